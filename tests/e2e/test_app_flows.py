"""The App's flows in-process against the sandbox playing GitHub: webhook payloads (valid against
GitHub's schemas) → the same flows as the Action through the port, as the App's bot, with an
installation token per job. PR → check run with annotations and the sticky comment → fix →
re-check → merge → render commit on main (no explicit author) → `/shelf resolve` from a writer,
refused for a reader."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.app.auth import InstallationTokens
from bot.app.config import AppConfig, load_config
from bot.app.door import run_route
from bot.app.jobs import bot_login
from bot.events import Event
from bot.flows.result import FlowResult
from bot.router import route
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from memshelf_sandbox.demo import BAD_TEXT, GOOD_TEXT, _fixed
from memshelf_sandbox.demo_stage import BAD, EXAMPLE, GOOD
from tests.app_helpers import rsa_pem
from tests.sandbox_fixtures import branch_with, issue_comment_event, pull_request_event, push_event

APP_ID, SLUG = 4545, "shelf-app"
BOT = bot_login(SLUG)
WRITER, READER = ("writer", "ghp_writer000000000000000000000000000000"), ("reader", "ghp_reader0000000000000000000000000000000")
MARKER = "<!-- memshelf-bot"


@dataclass
class Loop:
    sb: Sandbox
    tokens: InstallationTokens
    config: AppConfig
    installation: int

    def deliver(self, name: str, payload: dict[str, Any]) -> FlowResult:
        payload["installation"] = {"id": self.installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
        routed = route(Event.from_payload(name, payload))
        assert routed is not None, name
        return run_route(routed, key=f"1:{name}-{len(self.sb.calls)}", config=self.config, tokens=self.tokens,
                         login=BOT)

    def gh(self, who: tuple[str, str] = WRITER) -> Any:
        return self.sb.github(who[1]).get_repo(self.sb.full_name)


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[Loop]:
    seed = tmp_path / "seed"
    shutil.copytree(EXAMPLE, seed)
    shelf, problems = load_shelf(seed)
    assert shelf is not None, problems
    render_shelf(shelf)
    seed_bare_repo(seed, tmp_path / "shelf.git")
    pem = rsa_pem()
    app = App.from_private_key(APP_ID, pem.encode(), slug=SLUG)
    with Sandbox.start(tmp_path / "shelf.git", "homelab/shelf", app=app) as sb:
        for login, token in (WRITER, READER):
            sb.add_token(token, login, "write" if login == "writer" else "read", integration=False)
        config = load_config({"MEMSHELF_BOT_APP_ID": str(APP_ID), "MEMSHELF_BOT_PRIVATE_KEY": pem,
                              "MEMSHELF_BOT_WEBHOOK_SECRET": "s"}, sb.api_url)
        tokens = InstallationTokens(config)
        installation = tokens.integration.get_repo_installation("homelab", "shelf").id
        yield Loop(sb, tokens, config, installation)
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


def _check_runs(loop: Loop, sha: str) -> list[Any]:
    return list(loop.gh().get_commit(sha).get_check_runs())


def test_the_whole_loop_through_the_apps_flows(loop: Loop) -> None:
    sb, repo = loop.sb, loop.gh()
    sb.require_signed_commits("main")  # a ruleset: only commits GitHub signed may land on main
    head = branch_with(sb, "night-shift/one", {GOOD: GOOD_TEXT, BAD: BAD_TEXT}, message="Shelve the night shift")
    pull = repo.create_pull(title="Night shift", body="", head="night-shift/one", base="main")
    assert loop.deliver("pull_request", pull_request_event(sb, pull.number)).exit_code == 1

    (run,) = _check_runs(loop, head)
    assert (run.name, run.status, run.conclusion, run.app.slug) == ("memshelf-bot", "completed", "failure", SLUG)
    assert run.output.annotations_count > 0
    sticky = [c for c in repo.get_issue(pull.number).get_comments() if c.body.startswith(MARKER)]
    assert len(sticky) == 1 and sticky[0].user.login == BOT
    assert "9f8e7d6c5b4a39281706" not in sticky[0].body and "9f8e7d6c5b4a39281706" not in run.output.summary

    fixed = branch_with(sb, "night-shift/one", {BAD: _fixed(BAD_TEXT)}, base="night-shift/one", message="Fix it")
    assert loop.deliver("pull_request", pull_request_event(sb, pull.number, "synchronize")).exit_code == 0
    (rerun,) = _check_runs(loop, fixed)
    assert (rerun.status, rerun.conclusion) == ("completed", "success")

    before = repo.get_branch("main").commit.sha
    merged = repo.get_pull(pull.number).merge(merge_method="merge").sha
    commits_before = len(sb.calls_to("POST", "/git/commits"))
    loop.deliver("push", push_event(sb, "refs/heads/main", before, merged, pusher="writer"))
    rendered = repo.get_branch("main").commit
    assert rendered.sha != merged and rendered.commit.parents[0].sha == merged
    creates = sb.calls_to("POST", "/git/commits")[commits_before:]
    assert creates and all("author" not in c.body and "committer" not in c.body for c in creates)
    assert rendered.author is None or rendered.author.login == BOT
    assert rendered.commit.verification.verified  # GitHub signed it: no explicit author or committer
    index = repo.get_contents("INDEX.md", ref=rendered.sha).decoded_content.decode()
    assert "2026-09-23-ups-runtime-test" in index and "2026-09-23-nas-migration" in index

    branch_with(sb, "night-shift/two", {"docs/sessions/2026-09-24-two.md": GOOD_TEXT.replace(
        "2026-09-23-ups-runtime-test", "2026-09-24-two")}, message="Another night")
    second = repo.create_pull(title="Two", body="", head="night-shift/two", base="main")
    reader_comment = loop.gh(READER).get_issue(second.number).create_comment("/shelf resolve")
    loop.deliver("issue_comment", issue_comment_event(sb, second.number, "/shelf resolve", user="reader",
                                                      comment_id=reader_comment.id))
    refusal = [c.body for c in repo.get_issue(second.number).get_comments() if c.user.login == BOT]
    assert len(refusal) == 1 and "write" in refusal[0].lower(), refusal
    writer_comment = repo.get_issue(second.number).create_comment("/shelf resolve")
    loop.deliver("issue_comment", issue_comment_event(sb, second.number, "/shelf resolve", user="writer",
                                                      comment_id=writer_comment.id))
    answers = [c.body for c in repo.get_issue(second.number).get_comments() if c.user.login == BOT]
    assert len(answers) == 2 and answers[1] != refusal[0]
    assert loop.tokens.calls > 30  # the ports' requests are counted, for /metrics


def test_a_ruleset_refusal_is_named_in_the_renders_check_run(loop: Loop) -> None:
    from memshelf_sandbox.routes_git import RULE_VIOLATION

    sb, repo = loop.sb, loop.gh()
    before = repo.get_branch("main").commit.sha
    after = branch_with(sb, "main", {GOOD: GOOD_TEXT}, message="Merge the night shift")
    sb.faults.add("PATCH", r"/repos/homelab/shelf/git/refs/heads/main", 422,
                  {"message": RULE_VIOLATION, "status": "422"}, times=None)
    loop.deliver("push", push_event(sb, "refs/heads/main", before, after, pusher="writer"))
    assert repo.get_branch("main").commit.sha == after  # nothing landed on main
    (run,) = [r for r in repo.get_commit(after).get_check_runs() if r.app.slug == SLUG]
    assert run.status == "completed" and "GH013" in run.output.summary, run.output.summary
