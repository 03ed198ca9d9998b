"""The demo's stage: the sandbox repository's actors, a scratch `Demo` that pushes as the agent and
runs the bot's steps, and the printing both acts share."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.context import WRITE_SPACING_VAR

from .actionrun import StepResult, run_step

EXAMPLE = Path(__file__).resolve().parent / "data" / "example-shelf"
REPO = "homelab/shelf"
BRANCH = "night-shift/2026-09-23"
AGENT, AGENT_TOKEN = "night-shift-agent", "ghp_demoAgentToken000000000000000000000000"
BOT_TOKEN = "ghs_demoBotToken0000000000000000000000000"
GOOD = "docs/sessions/2026-09-23-ups-runtime-test.md"
BAD = "docs/topics/2026-09-23-nas-migration.md"


class Demo:
    """One run of the loop in a scratch directory."""

    def __init__(self, work: Path, sandbox: Any) -> None:
        self.work = work
        self.sb = sandbox
        self.home = work / "home"
        self.home.mkdir()
        self.agent_dir = work / "agent"
        self.bot_dir = work / "runner-workspace"

    def git(self, *args: str, cwd: Path) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(HOME=str(self.home), GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1",
                   GIT_AUTHOR_NAME=AGENT, GIT_AUTHOR_EMAIL="agent@homelab.example",
                   GIT_COMMITTER_NAME=AGENT, GIT_COMMITTER_EMAIL="agent@homelab.example")
        proc = subprocess.run(["git", "-c", "credential.helper=", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"git {args[0]} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def agent_pushes(self, message: str, files: dict[str, str]) -> None:
        for path, text in files.items():
            (self.agent_dir / path).write_text(text, encoding="utf-8")
        self.git("add", "-A", cwd=self.agent_dir)
        self.git("commit", "--quiet", "-m", message, cwd=self.agent_dir)
        self.git("push", "--quiet", "origin", f"HEAD:refs/heads/{BRANCH}", cwd=self.agent_dir)

    def bot_checkout(self, sha: str) -> None:
        """What actions/checkout leaves in the runner's workspace: the repository at `sha`."""
        if not self.bot_dir.exists():
            self.git("clone", "--quiet", self.sb.git_url(BOT_TOKEN), str(self.bot_dir), cwd=self.work)
        self.git("fetch", "--quiet", "origin", sha, cwd=self.bot_dir)
        self.git("checkout", "--quiet", "--detach", sha, cwd=self.bot_dir)

    def step(self, event_name: str, payload: dict[str, Any], **inputs: str) -> StepResult:
        """One Action run; the sandbox has no secondary rate limits, so writes are not spaced."""
        return run_step(workspace=self.bot_dir, event_name=event_name, payload=payload, repository=REPO,
                        api_url=self.sb.api_url, inputs={"token": BOT_TOKEN, **inputs}, home=self.home,
                        extra_env={WRITE_SPACING_VAR: "0"})

    # payloads, shaped like GitHub's webhooks (the fields the bot reads come from the API itself)

    def pull_request_payload(self, action: str, number: int) -> dict[str, Any]:
        repo = self.sb.github(BOT_TOKEN).get_repo(REPO)
        pull = repo.get_pull(number)
        return {"action": action, "number": number, "pull_request": pull.raw_data,
                "repository": repo.raw_data, "sender": pull.raw_data["user"]}

    def push_payload(self, before: str, after: str, pusher: str, ref: str = "refs/heads/main",
                     since: str | None = None) -> dict[str, Any]:
        """A push of `before..after` to `ref`; a new branch has `before` all zeros and lists the
        commits `since` the commit it started from."""
        store = self.sb.store
        commits = []
        for sha in store.commits_between(since or before, after):
            info = store.commit(sha)
            changes = store.diff(info.parents[0], sha)
            commits.append({"id": sha, "message": info.message.strip(),
                            "added": [c.filename for c in changes if c.status == "added"],
                            "removed": [c.filename for c in changes if c.status == "removed"],
                            "modified": [c.filename for c in changes if c.status not in ("added", "removed")]})
        repo = self.sb.github(BOT_TOKEN).get_repo(REPO)
        return {"ref": ref, "before": before, "after": after, "created": set(before) == {"0"}, "commits": commits,
                "head_commit": commits[-1] if commits else None, "pusher": {"name": pusher},
                "repository": repo.raw_data}


def rendered_example(work: Path) -> Path:
    """The example shelf, rendered, as the first commit of a bare repository under `work`."""
    from memshelf_render.render import render_shelf
    from memshelf_render.shelf import load_shelf

    from .gitstore import seed_bare_repo

    seed = work / "seed"
    shutil.copytree(EXAMPLE, seed)
    shelf, _ = load_shelf(seed)
    assert shelf is not None
    render_shelf(shelf)
    bare = work / "shelf.git"
    seed_bare_repo(seed, bare, message="Example shelf, rendered")
    return bare


def show_file(sb: Any, commit: str | None, path: str) -> str:
    return sb.store.git("show", f"{commit}:{path}").stdout.decode("utf-8")


def heading(text: str) -> None:
    print(f"\n== {text}")


def show_annotations(result: StepResult) -> None:
    for a in result.annotations:
        where = f"{a.file}#L{a.line}" if a.file and a.line else a.file or "(no file)"
        print(f"  {a.level.capitalize():8} {where}  {a.title or ''}")
        print(textwrap.indent(a.message, "           "))


def show_comment(sb: Any, number: int) -> str:
    comments = list(sb.github(BOT_TOKEN).get_repo(REPO).get_issue(number).get_comments())
    sticky = [c for c in comments if c.body.startswith("<!-- memshelf-bot:sticky")]
    print(f"  ({len(sticky)} sticky comment(s) by {', '.join(c.user.login for c in sticky)})")
    body = sticky[-1].body if sticky else ""
    print(textwrap.indent(body, "  │ ", predicate=lambda _: True))
    return body


def show_verdict(result: StepResult) -> None:
    o = result.outputs
    print(f"  exit {result.exit_code}: verdict={o.get('verdict')} errors={o.get('errors')} "
          f"warnings={o.get('warnings')} standing_tokens={o.get('standing_tokens')}"
          + ("  → the check is red: merging is blocked" if result.exit_code else "  → the check is green"))


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(f"demo: expected {what}")


def run_demo(args: Any, name: str, play: Callable[[Path], None], closed: str) -> int:
    """Play a demo in a fresh work directory: exit 0 with its closing line, 1 with the failed
    expectation; the directory is removed unless `--keep`."""
    work = Path(tempfile.mkdtemp(prefix=f"{name.replace(' --', '-').replace(' ', '-')}-"))
    try:
        play(work)
        print(f"\n{name}: {closed}")
        return 0
    except (AssertionError, RuntimeError) as exc:
        print(f"\n{name} failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if getattr(args, "keep", False):
            print(f"(kept in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)
