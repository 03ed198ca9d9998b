"""The shelf dashboard and `/shelf purge` through the App: a real `serve` fed signed webhooks by the
sandbox. Agents push to main over git → the App renders and opens the dashboard issue as its bot,
with the open threads; a hostile thread arrives escaped; `/shelf purge` from a reader is refused
and from a writer opens the pull request that removes exactly the expired episode; `dashboard:
false` closes the issue."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.report.dashboard import LABEL, TITLE, last_render
from memshelf_sandbox import Sandbox
from memshelf_sandbox.app import App
from memshelf_sandbox.state import Issue
from tests.action_harness import episode
from tests.app_helpers import SECRET, rsa_pem
from tests.app_procs import Proc, app_env, start
from tests.app_redis import free_port
from tests.app_shelves import seed_repos
from tests.e2e.test_app_loop import Agent, _explained

APP_ID, SLUG = 4848, "shelf-dash"
BOT = f"{SLUG}[bot]"
WRITER = ("writer", "ghp_writer000000000000000000000000000000")
READER = ("reader", "ghp_reader0000000000000000000000000000000")
AGENT_LOGIN = "night-shift-agent"
OLD = "docs/topics/2026-01-10-old-ups.md"
UPS = "docs/topics/2026-09-22-ups-runtime.md"
pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Sandbox, Proc]]:
    pem = rsa_pem()
    key = tmp_path / "app.pem"
    key.write_text(pem, encoding="ascii")
    (bare, name), = seed_repos(tmp_path, ["homelab/shelf"])
    port = free_port()
    app = App.from_private_key(APP_ID, pem.encode(), slug=SLUG)
    with Sandbox.start(bare, name, app=app, webhook=(f"http://127.0.0.1:{port}/webhook", SECRET.decode())) as sb:
        sb.add_token("ghp_agent00000000000000000000000000000000", AGENT_LOGIN, "write", integration=False)
        for login, token in (WRITER, READER):
            sb.add_token(token, login, "read" if login == "reader" else "write", integration=False)
        serve = start(["serve", "--port", str(port), "--data-dir", str(tmp_path / "data"), "--workers", "2",
                       "--github-url", sb.api_url], app_env(key, APP_ID, MEMSHELF_BOT_WRITE_SPACING="0"), tmp_path)
        try:
            yield sb, serve
        finally:
            assert serve.stop() == 0, "\n".join(serve.lines[-30:])
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


def dashboard(sb: Sandbox) -> Issue | None:
    return next((i for i in sb.state.issues.values() if i.title == TITLE and i.user.login == BOT), None)


def test_the_app_keeps_the_dashboard_and_answers_purge(world: tuple[Sandbox, Proc], tmp_path: Path) -> None:
    sb, serve = world
    wait = _explained(sb, serve)
    repo = sb.github(WRITER[1]).get_repo(sb.full_name)
    agent = Agent(sb, tmp_path)

    agent.push("main", {OLD: episode("2026-01-10-old-ups", title="Old UPS", extra="retain_until: 2026-06-30\n")},
               base="origin/main")
    issue = wait("the App's dashboard issue", lambda: dashboard(sb))
    assert [label.name for label in issue.labels] == [LABEL.name] and issue.via_app and issue.app_id == APP_ID
    body = issue.body or ""
    assert "NUT client on the backup host." in body and "Rail kit delivery." in body
    assert "## Past `retain_until` (1 episode)" in body and "`/shelf purge`" in body
    rendered = wait("the render on main", lambda: (sha := last_render(dashboard(sb).body or "")) and sha)
    assert rendered == sb.store.ref("refs/heads/main")

    agent.push("main", {UPS: episode("2026-09-22-ups-runtime", body="- Ask @octocat about #7 <b>now</b>\n")},
               base="origin/main")
    updated = wait("the new thread on the dashboard", lambda: (
        b if "Ask @\u200doctocat about #\u200d7 \\<b\\>now\\</b\\>" in (b := dashboard(sb).body or "") else None))
    assert not re.search(r"@[A-Za-z0-9]", updated)

    agent.push("night-shift/x", {"docs/topics/2026-09-30-x.md": episode("2026-09-30-x")})
    pull = wait("the agent branch's pull request", lambda: next(iter(repo.get_pulls(head="homelab:night-shift/x")),
                                                                None))
    sb.github(READER[1]).get_repo(sb.full_name).get_issue(pull.number).create_comment("/shelf purge")
    wait("the refusal for a reader", lambda: [c for c in repo.get_issue(pull.number).get_comments()
                                              if c.user.login == BOT and "needs write access" in c.body])
    repo.get_issue(pull.number).create_comment("/shelf purge")
    purge = wait("the purge pull request", lambda: next(iter(repo.get_pulls(head="homelab:memshelf-bot/purge")),
                                                        None))
    assert purge.user.login == BOT and purge.title == "memshelf-bot: purge 1 episode past retain_until"
    assert [(f.status, f.filename) for f in purge.get_files()] == [("removed", OLD)]
    assert not purge.merged

    agent.push("main", {".memshelf-bot.yml": "dashboard: false\n"}, base="origin/main")
    wait("the dashboard closed", lambda: dashboard(sb).state == "closed")
