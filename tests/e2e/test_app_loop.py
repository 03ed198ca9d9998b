"""The whole loop with real webhooks into a real `serve`: the sandbox plays GitHub for the App and
delivers signed webhooks as things happen. An agent pushes a branch over git → the App opens its
pull request with a failing check run (annotations) and the sticky comment → the agent pushes a
fix → the check passes → a writer merges → the App's render commit on main (no explicit author)
→ `/shelf resolve` refused for a reader and answered for a writer."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.app.jobs import bot_login
from memshelf_sandbox import Sandbox
from memshelf_sandbox.app import App
from memshelf_sandbox.demo import BAD_TEXT, GOOD_TEXT, _fixed
from memshelf_sandbox.demo_stage import BAD, GOOD
from tests.app_helpers import SECRET, rsa_pem
from tests.app_procs import Proc, app_env, get, start
from tests.app_redis import free_port
from tests.app_shelves import RENDER_MESSAGE, episode, seed_repos

APP_ID, SLUG = 4747, "shelf-app"
BOT = bot_login(SLUG)
AGENT = ("night-shift-agent", "ghp_agent00000000000000000000000000000000")
WRITER = ("writer", "ghp_writer000000000000000000000000000000")
READER = ("reader", "ghp_reader0000000000000000000000000000000")
MARKER = "<!-- memshelf-bot"
T = TypeVar("T")


def eventually(what: str, probe: Callable[[], T | None], timeout: float = 60.0) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


class Agent:
    """A clone pushed to over git smart HTTP, as an agent's session does."""

    def __init__(self, sb: Sandbox, work: Path) -> None:
        self.dir = work / "agent"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        self.env.update(HOME=str(work), GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1",
                        GIT_AUTHOR_NAME=AGENT[0], GIT_AUTHOR_EMAIL="agent@example.com",
                        GIT_COMMITTER_NAME=AGENT[0], GIT_COMMITTER_EMAIL="agent@example.com")
        subprocess.run(["git", "clone", "--quiet", sb.git_url(AGENT[1]), str(self.dir)], env=self.env, check=True,
                       capture_output=True)

    def push(self, branch: str, files: dict[str, str], base: str = "origin/main") -> str:
        git = ["git", "-C", str(self.dir)]
        subprocess.run([*git, "fetch", "--quiet", "origin"], env=self.env, check=True, capture_output=True)
        subprocess.run([*git, "checkout", "--quiet", "-B", branch, base], env=self.env, check=True, capture_output=True)
        for path, text in files.items():
            (self.dir / path).parent.mkdir(parents=True, exist_ok=True)
            (self.dir / path).write_text(text, encoding="utf-8")
        subprocess.run([*git, "add", "-A"], env=self.env, check=True, capture_output=True)
        subprocess.run([*git, "commit", "--quiet", "-m", f"Shelve {branch}"], env=self.env, check=True,
                       capture_output=True)
        subprocess.run([*git, "push", "--quiet", "origin", f"HEAD:refs/heads/{branch}"], env=self.env, check=True,
                       capture_output=True)
        return subprocess.run([*git, "rev-parse", "HEAD"], env=self.env, check=True, capture_output=True,
                              text=True).stdout.strip()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Sandbox, Proc]]:
    pem = rsa_pem()
    key = tmp_path / "app.pem"
    key.write_text(pem, encoding="ascii")
    (bare, name), = seed_repos(tmp_path, ["homelab/shelf"])
    port = free_port()
    app = App.from_private_key(APP_ID, pem.encode(), slug=SLUG)
    with Sandbox.start(bare, name, app=app, webhook=(f"http://127.0.0.1:{port}/webhook", SECRET.decode())) as sb:
        for login, token in (AGENT, WRITER, READER):
            sb.add_token(token, login, "read" if login == "reader" else "write", integration=False)
        serve = start(["serve", "--port", str(port), "--data-dir", str(tmp_path / "data"), "--workers", "2",
                       "--github-url", sb.api_url], app_env(key, APP_ID, MEMSHELF_BOT_WRITE_SPACING="0"), tmp_path)
        try:
            yield sb, serve
        finally:
            assert serve.stop() == 0, "\n".join(serve.lines[-30:])
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


def _runs(repo: Any, sha: str) -> list[Any]:
    return [r for r in repo.get_commit(sha).get_check_runs() if r.status == "completed"]


def _explained(sb: Sandbox, serve: Proc) -> Callable[[str, Callable[[], T | None]], T]:
    """`eventually`, saying on a timeout what serve logged last and how each webhook went, so a
    loop that stalls under load tells whether a delivery failed or a job did."""
    def wait(what: str, probe: Callable[[], T | None], timeout: float = 60.0) -> T:
        try:
            return eventually(what, probe, timeout)
        except AssertionError as exc:
            hooks = [(d["event"], d["action"], d["status_code"], d["status"]) for d in sb.deliveries.listing()]
            raise AssertionError(f"{exc}\nserve's last lines:\n" + "\n".join(serve.lines[-40:]) +
                                 f"\nwebhooks: {hooks}") from None
    return wait


def test_the_loop_driven_by_webhooks_into_serve(world: tuple[Sandbox, Proc], tmp_path: Path) -> None:
    sb, serve = world
    eventually = _explained(sb, serve)
    sb.require_signed_commits("main")  # a ruleset: only commits GitHub signed may land on main
    repo = sb.github(WRITER[1]).get_repo(sb.full_name)
    agent = Agent(sb, tmp_path)

    head = agent.push("night-shift/one", {GOOD: GOOD_TEXT, BAD: BAD_TEXT})
    pull = eventually("the App opens the branch's pull request",
                      lambda: next(iter(repo.get_pulls(head="homelab:night-shift/one")), None))
    assert pull.user.login == BOT
    run = eventually("a failing check run on the head", lambda: _runs(repo, head))[-1]
    assert (run.name, run.conclusion, run.app.slug) == ("memshelf-bot", "failure", SLUG)
    assert run.output.annotations_count > 0 and list(run.get_annotations())
    sticky = eventually("the sticky comment", lambda: [c for c in repo.get_issue(pull.number).get_comments()
                                                       if c.body.startswith(MARKER)])
    assert sticky[0].user.login == BOT and "9f8e7d6c5b4a39281706" not in sticky[0].body

    fixed = agent.push("night-shift/one", {BAD: _fixed(BAD_TEXT)}, base="night-shift/one")
    passed = eventually("the re-check passes", lambda: [r for r in _runs(repo, fixed) if r.conclusion == "success"])
    assert passed[0].app.slug == SLUG

    merged = repo.get_pull(pull.number).merge(merge_method="merge").sha
    rendered = eventually("the App's render commit on main", lambda: (
        c if (c := repo.get_branch("main").commit).commit.message.startswith(RENDER_MESSAGE) else None))
    assert rendered.commit.parents[0].sha == merged
    creates = [c for c in sb.calls_to("POST", "/git/commits") if c.status == 201]
    assert creates and all("author" not in c.body and "committer" not in c.body for c in creates)
    assert rendered.author is None or rendered.author.login == BOT
    assert rendered.commit.verification.verified  # GitHub signed it: no explicit author or committer
    index = repo.get_contents("INDEX.md", ref=rendered.sha).decoded_content.decode()
    assert "2026-09-23-nas-migration" in index

    agent.push("night-shift/two", {"docs/sessions/2026-09-24-two.md": episode("2026-09-24-two")})
    second = eventually("the second pull request", lambda: next(iter(repo.get_pulls(head="homelab:night-shift/two")),
                                                                None))
    sb.github(READER[1]).get_repo(sb.full_name).get_issue(second.number).create_comment("/shelf resolve")
    refusal = eventually("the refusal for a reader", lambda: [
        c.body for c in repo.get_issue(second.number).get_comments()
        if c.user.login == BOT and "write access" in c.body])
    assert "reader" in refusal[0]
    repo.get_issue(second.number).create_comment("/shelf resolve")
    eventually("the answer for a writer", lambda: [c.body for c in repo.get_issue(second.number).get_comments()
                                                   if c.user.login == BOT and c.body.startswith("🚀")])

    metrics = get(serve.admin + "/metrics")[1].decode()
    calls = [line for line in metrics.splitlines() if line.startswith("memshelf_bot_github_api_calls_total{")]
    assert calls and float(calls[0].rsplit(" ", 1)[1]) > 30, calls
    assert 'memshelf_bot_jobs_total{event="push",flow="render",outcome="succeeded"}' in metrics
    status, page = get(serve.admin + "/")
    assert status == 200 and b"homelab/shelf" in page and b"ignored: caused by the App itself" in page
    assert SECRET not in page and b"ghs_" not in page
