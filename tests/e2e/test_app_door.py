"""The App's door against the sandbox playing GitHub, through the real adapter and an installation
token: a fork's pull request (GitHub's payload, validated against its schema) gets the completed
check run, the sticky comment and the review suggestions as the App's bot — the App's token may
write on a fork's pull request — and the same job run again updates its one check run, found by
its `external_id`."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.app.auth import InstallationTokens
from bot.app.config import AppConfig, load_config
from bot.app.door import run_route
from bot.app.jobs import bot_login
from bot.events import Event
from bot.router import FlowName, Route, route
from memshelf_render.check import Verdict
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from memshelf_sandbox.demo_stage import EXAMPLE
from tests.action_harness import episode
from tests.app_helpers import rsa_pem
from tests.sandbox_fixtures import branch_with, pull_request_event

APP_ID, SLUG = 4646, "shelf-app"
BOT = bot_login(SLUG)
NAS = "docs/topics/2026-09-23-nas.md"
FIXABLE = episode("2026-09-23-nas", title="NAS").replace("id: 2026-09-23-nas\n", "id: nas-move\n")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Sandbox, AppConfig, InstallationTokens, int]]:
    seed = tmp_path / "seed"
    shutil.copytree(EXAMPLE, seed)
    shelf, problems = load_shelf(seed)
    assert shelf is not None, problems
    render_shelf(shelf)
    seed_bare_repo(seed, tmp_path / "shelf.git")
    pem = rsa_pem()
    with Sandbox.start(tmp_path / "shelf.git", "homelab/shelf", app=App.from_private_key(APP_ID, pem.encode(),
                                                                                          slug=SLUG)) as sb:
        config = load_config({"MEMSHELF_BOT_APP_ID": str(APP_ID), "MEMSHELF_BOT_PRIVATE_KEY": pem,
                              "MEMSHELF_BOT_WEBHOOK_SECRET": "s"}, sb.api_url)
        tokens = InstallationTokens(config)
        yield sb, config, tokens, tokens.integration.get_repo_installation("homelab", "shelf").id
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


def fork_pull_event(sb: Sandbox, installation: int) -> tuple[int, str, dict[str, Any]]:
    sha = branch_with(sb, "scratch/fork-head", {NAS: FIXABLE}, message="NAS from a fork")
    number = sb.open_fork_pull("outsider/shelf", "patch-1", sha, "NAS from a fork", "outsider")
    payload = pull_request_event(sb, number)
    payload["pull_request"]["head"]["repo"] = sb.repo.pull_json(sb.state.pull(number), full=True)["head"]["repo"]
    payload["installation"] = {"id": installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
    return number, sha, payload


def test_a_fork_pull_request_is_checked_commented_and_reviewed_as_the_app(app: Any) -> None:
    sb, config, tokens, installation = app
    number, sha, payload = fork_pull_event(sb, installation)
    routed = route(Event.from_payload("pull_request", payload))
    assert routed is not None and routed.flow is FlowName.CHECK_PR and routed.event.fork
    routed = Route.from_json(routed.to_json())  # as the queue carries it
    result = run_route(routed, key="fork-1:1", config=config, tokens=tokens, login=BOT)
    assert (result.verdict, result.pr_number) == (Verdict.VIOLATIONS, number)
    repo = sb.github().get_repo(sb.full_name)
    [run] = list(repo.get_commit(sha).get_check_runs())
    assert (run.status, run.conclusion, run.external_id, run.app.slug) == ("completed", "failure", "fork-1:1", SLUG)
    [sticky] = [c for c in repo.get_issue(number).get_comments() if c.body.startswith("<!-- memshelf-bot:sticky")]
    assert sticky.user.login == BOT
    suggestions = [c for c in repo.get_pull(number).get_review_comments() if "```suggestion" in c.body]
    assert suggestions and all(c.user.login == BOT for c in suggestions)

    again = run_route(routed, key="fork-1:1", config=config, tokens=tokens, login=BOT)  # the job, run again
    assert again.verdict is Verdict.VIOLATIONS
    [same] = list(repo.get_commit(sha).get_check_runs(filter="all"))
    assert (same.id, same.status, same.conclusion) == (run.id, "completed", "failure")
    assert len(sb.calls_to("POST", "/check-runs")) == 1
