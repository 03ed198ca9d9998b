"""End-to-end harness for `memshelf-bot action`: a sandbox serving a real shelf, agent branches,
workspaces that are real clones over smart HTTP, and steps run as the Actions runner would.

Use in a test module: `shelf_sandbox = action_harness.shelf_sandbox` (re-binding the fixture).

Steps run through this worker's fork server (tests/stepserver.py): a process per step, without
paying the bot's imports each time. A test marked `real_step` runs its steps as real
`python -m bot.cli action` subprocesses, as the demo and the runner do; every event kind keeps
such a test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.context import WRITE_SPACING_VAR
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox import Sandbox, actionrun, seed_bare_repo
from memshelf_sandbox.actionrun import Runner, StepResult, run_subprocess
from tests.sandbox_fixtures import branch_with, pull_request_event, push_event
from tests.stepserver import StepServer

EXAMPLE = Path(__file__).resolve().parent.parent / "memshelf_sandbox" / "data" / "example-shelf"
REPO = "octo/shelf"
BOT_TOKEN = "ghs_" + "B0tT0ken" * 4 + "abcd"  # a GitHub-token-shaped secret the bot must never echo
MAINTAINER_TOKEN = "ghp_" + "Ma1nta1n" * 4 + "wxyz"
# The sandbox has no secondary rate limit: no pause between writes (the spacing itself is
# tests/unit/test_action_runtime.py's), as the demo runs it.
SANDBOX_ENV = {WRITE_SPACING_VAR: "0"}
TOWER = "docs/topics/2026-09-16-tower-rack-case.md"
STEP_SERVER = StepServer()  # this worker's, started on its first step
REAL_STEP = "real_step"


def run_step(**step: Any) -> StepResult:
    """`actionrun.run_step` through this worker's fork server."""
    return actionrun.run_step(runner=STEP_SERVER, **step)


def episode(stem: str, *, kind: str = "topic", title: str = "UPS runtime", extra: str = "", body: str = "") -> str:
    """A valid episode (Digest, Decisions, Open threads) with `extra` frontmatter lines."""
    return (f"# {stem}\n\n---\nid: {stem}\nkind: {kind}\nspan: {stem[:10]}\ndate: {stem[:10]}\n"
            f'display_title: "{title}"\ntags: [homelab]\napprox_tokens: 12000\nmode: live\n{extra}---\n\n'
            "## Digest\nThe UPS carries the rack for 38 minutes under full load. Decided: shutdown at 20 percent. "
            "Open: the NUT client on the backup host.\n\n"
            "## Decisions\n- Shutdown threshold at 20 percent of the UPS battery.\n\n"
            "## Timeline\n- 01:00 mains cut; 01:10 restored.\n\n"
            f"## Open threads\n- NUT client on the backup host.\n{body}")


def git(*args: str, cwd: Path, home: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(home), GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Agent",
               GIT_AUTHOR_EMAIL="agent@example.com", GIT_COMMITTER_NAME="Agent", GIT_COMMITTER_EMAIL="agent@example.com")
    proc = subprocess.run(["git", "-c", "credential.helper=", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def seed_shelf(root: Path, bare: Path, *, subdir: str = "", extra: dict[str, str] | None = None) -> None:
    """A bare repository holding the example shelf (at `subdir` of the repository), rendered,
    plus `extra` repository files."""
    shelf_root = root / subdir if subdir else root
    shutil.copytree(EXAMPLE, shelf_root)
    for path, text in (extra or {}).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    shelf, problems = load_shelf(shelf_root)
    assert shelf is not None, problems
    render_shelf(shelf)
    seed_bare_repo(root, bare, message="Example shelf")


@contextmanager
def serve(bare: Path) -> Iterator[Sandbox]:
    """The sandbox on `bare`, with the bot's and a maintainer's tokens; fails on any answer that
    breaks GitHub's OpenAPI description."""
    with Sandbox.start(bare, REPO) as sb:
        sb.add_token(BOT_TOKEN, "github-actions[bot]")
        sb.add_token(MAINTAINER_TOKEN, "octo-maintainer", permission="maintain", integration=False)
        yield sb
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


@pytest.fixture
def shelf_sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    bare = tmp_path / "shelf.git"
    seed_shelf(tmp_path / "seed", bare)
    with serve(bare) as sb:
        yield sb


class Harness:
    """Drives one sandbox: agent branches and PRs straight in git, workspaces cloned over HTTP."""

    def __init__(self, sb: Sandbox, tmp: Path, runner: Runner = STEP_SERVER) -> None:
        self.sb = sb
        self.tmp = tmp
        self.runner = runner
        self.home = tmp / "home"
        self.home.mkdir(exist_ok=True)
        self._clones = 0

    @property
    def repo(self) -> Any:
        """The repository as a maintainer sees it (PRs opened and merged by them)."""
        return self.sb.github(MAINTAINER_TOKEN).get_repo(REPO)

    def branch(self, name: str, files: dict[str, str], base: str = "main") -> str:
        return branch_with(self.sb, name, files, base=base)

    def open_pr(self, branch: str, files: dict[str, str], title: str = "Shelve") -> int:
        self.branch(branch, files)
        return self.repo.create_pull(title=title, body="", head=branch, base="main").number

    def workspace(self, sha: str) -> Path:
        """A fresh clone over smart HTTP, checked out (detached) at `sha`: what actions/checkout leaves."""
        self._clones += 1
        where = self.tmp / f"workspace-{self._clones}"
        git("clone", "--quiet", self.sb.git_url(BOT_TOKEN), str(where), cwd=self.tmp, home=self.home)
        git("fetch", "--quiet", "origin", sha, cwd=where, home=self.home)
        git("checkout", "--quiet", "--detach", sha, cwd=where, home=self.home)
        return where

    def step(self, event_name: str, payload: dict[str, Any], workspace: Path, token: str = BOT_TOKEN,
             **inputs: str) -> StepResult:
        return actionrun.run_step(workspace=workspace, event_name=event_name, payload=payload, repository=REPO,
                                  api_url=self.sb.api_url, inputs={"token": token, **inputs}, home=self.home,
                                  extra_env=SANDBOX_ENV, runner=self.runner)

    def pr_step(self, number: int, action: str = "opened", token: str = BOT_TOKEN, payload: dict | None = None,
                **inputs: str) -> StepResult:
        event = payload or pull_request_event(self.sb, number, action)
        workspace = self.workspace(event["pull_request"]["head"]["sha"])
        return self.step("pull_request", event, workspace, token=token, **inputs)

    def merge(self, number: int) -> tuple[str, str]:
        """Merge PR `number`; (main before, main after)."""
        before = self.sb.store.ref("refs/heads/main")
        after = self.repo.get_pull(number).merge(merge_method="merge").sha
        return before or "", after

    def push_step(self, before: str, after: str, pusher: str = "octo", workspace_sha: str | None = None,
                  **inputs: str) -> StepResult:
        payload = push_event(self.sb, "refs/heads/main", before, after, pusher=pusher)
        return self.step("push", payload, self.workspace(workspace_sha or after), **inputs)

    def sticky(self, number: int) -> list[Any]:
        with self.sb.state.lock:
            return sorted((c for c in self.sb.state.comments.values()
                           if c.issue_number == number and c.body.startswith("<!-- memshelf-bot:sticky")),
                          key=lambda c: c.id)

    def show(self, rev: str, path: str) -> str:
        return self.sb.store.git("show", f"{rev}:{path}").stdout.decode("utf-8")

    def api_calls(self, since: int = 0) -> list[tuple[str, str, int]]:
        """(method, path, status) of the REST calls after the first `since` calls (git traffic left out)."""
        return [(c.method, c.path, c.status) for c in self.sb.calls[since:] if c.path.startswith("/repos/")]


@pytest.fixture
def harness(shelf_sandbox: Sandbox, tmp_path: Path, request: pytest.FixtureRequest) -> Harness:
    real = request.node.get_closest_marker(REAL_STEP) is not None
    return Harness(shelf_sandbox, tmp_path, run_subprocess if real else STEP_SERVER)
