"""`memshelf-bot demo`: the whole loop on the embedded GitHub sandbox, in a few seconds.

A temporary bare repository is seeded with the bundled example shelf (derived files rendered)
and served by the sandbox. A night-shift agent pushes a branch with one good and one bad episode
and opens a pull request; the bot's pull-request flow runs as the Action would (a subprocess of
`memshelf-bot action` with a runner-like environment) and the demo prints what the author sees:
the annotations, the sticky comment, the verdict. The agent fixes the episode and pushes; the
check turns green and the comment is updated; the PR is merged; the render-on-main flow commits
the derived files, and the demo prints the rendered INDEX.md, the new ledger rows, the stats and
where the chart and badge are.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

from .actionrun import StepResult, run_step
from .context import WRITE_SPACING_VAR

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "shelf"
REPO = "homelab/shelf"
BRANCH = "night-shift/2026-09-23"
AGENT, AGENT_TOKEN = "night-shift-agent", "ghp_demoAgentToken000000000000000000000000"
BOT_TOKEN = "ghs_demoBotToken0000000000000000000000000"
GOOD = "docs/sessions/2026-09-23-ups-runtime-test.md"
BAD = "docs/topics/2026-09-23-nas-migration.md"

GOOD_TEXT = """\
# 2026-09-23-ups-runtime-test

---
id: 2026-09-23-ups-runtime-test
kind: session
span: 2026-09-23
date: 2026-09-23
display_title: "Night shift: UPS runtime test"
tags: [power, night-shift]
approx_tokens: 14000
approx_tokens_source: estimate
mode: live
---

## Digest
The night-shift agent ran the UPS on battery for ten minutes under the rack's full load. Runtime \
estimate held at 38 minutes, so the shutdown threshold stays at 20 percent. Open: the NUT client \
on the backup host still ignores the low-battery signal.

## Timeline
- 01:00 mains cut at the wall, load 410 W.
- 01:10 mains restored; the UPS reported 38 minutes of runtime left.

## Open threads
- NUT client on the backup host ignores the low-battery signal.
"""

BAD_TEXT = """\
# 2026-09-23-nas-migration

---
id: 2026-09-22-nas-migration
kind: topic
span: '2026-09-23'
date: 2026-09-23
display_title: "NAS migration weekend"
approx_tokens: 30000
mode: live
notes: "pool moved,\trails pending"
---

## Digest
We moved the ZFS pool to the new tower over the weekend. Decided: keep raidz2 and the recordsize \
chosen in the research note. Open: retire the old chassis.

## Decisions
- Keep raidz2 on the new tower.
- Replication to the backup host resumes with NAS_API_TOKEN=9f8e7d6c5b4a39281706 in the job.

## Open threads
- Retire the old chassis.
"""


def _fixed(text: str) -> str:
    return (text.replace("id: 2026-09-22-nas-migration", "id: 2026-09-23-nas-migration")
            .replace("span: '2026-09-23'", "span: 2026-09-23")
            .replace("display_title:", "tags: [homelab, storage]\ndisplay_title:")
            .replace(",\trails", ", rails")
            .replace("We moved the ZFS pool", "The agent moved the ZFS pool")
            .replace(" with NAS_API_TOKEN=9f8e7d6c5b4a39281706 in the job", " (its token lives in the vault)"))


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


def play(work: Path) -> None:
    from memshelf_render.render import render_shelf
    from memshelf_render.shelf import load_shelf
    from memshelf_render.stats import format_text, shelf_stats

    from .sandbox import Sandbox, seed_bare_repo

    seed = work / "seed"
    shutil.copytree(EXAMPLE, seed)
    shelf, _ = load_shelf(seed)
    assert shelf is not None
    render_shelf(shelf)
    bare = work / "shelf.git"
    seed_bare_repo(seed, bare, message="Example shelf, rendered")
    with Sandbox.start(bare, REPO, allow_auto_merge=True) as sb:
        sb.add_token(AGENT_TOKEN, AGENT, permission="write", integration=False)
        sb.add_token(BOT_TOKEN, "github-actions[bot]", permission="write")
        demo = Demo(work, sb)
        heading(f"sandbox {sb.api_url} serves {REPO}: the example shelf, 3 episodes, derived files rendered")

        heading(f"the night-shift agent pushes {BRANCH} with one good and one bad episode and opens a PR")
        demo.git("clone", "--quiet", sb.git_url(AGENT_TOKEN), str(demo.agent_dir), cwd=work)
        demo.agent_pushes("Shelve the night shift", {GOOD: GOOD_TEXT, BAD: BAD_TEXT})
        agent_repo = sb.github(AGENT_TOKEN).get_repo(REPO)
        pull = agent_repo.create_pull(title="Night shift 2026-09-23", body="Two episodes from the night shift.",
                                      head=BRANCH, base="main")
        print(f"  PR #{pull.number}: {GOOD}, {BAD}")

        heading("the bot's pull-request flow: what the author sees")
        demo.bot_checkout(pull.head.sha)
        first = demo.step("pull_request", demo.pull_request_payload("opened", pull.number))
        print("  annotations on the diff:")
        show_annotations(first)
        print("  the sticky comment:")
        show_comment(sb, pull.number)
        show_verdict(first)
        expect(first.exit_code == 1, "the bad episode to fail the check")

        heading("the agent applies the suggestions and pushes; the check runs again")
        demo.agent_pushes("Fix the NAS episode", {BAD: _fixed(BAD_TEXT)})
        head = sb.store.ref(f"refs/heads/{BRANCH}")
        demo.bot_checkout(head)
        second = demo.step("pull_request", demo.pull_request_payload("synchronize", pull.number))
        show_annotations(second)
        body = show_comment(sb, pull.number)
        show_verdict(second)
        expect(second.exit_code == 0 and "✅ valid" in body, "the fixed PR to pass and its comment to say so")

        heading("a maintainer merges; the push to main runs the render flow")
        before = sb.store.ref("refs/heads/main")
        old_ledger = show_file(sb, before, "ledger.tsv").splitlines()
        merged = sb.github(BOT_TOKEN).get_repo(REPO).get_pull(pull.number).merge(merge_method="merge")
        demo.bot_checkout(merged.sha)
        render = demo.step("push", demo.push_payload(before, merged.sha, "octo"), badge="true")
        main = sb.store.ref("refs/heads/main")
        commit = sb.store.commit(main)
        print(f"  exit {render.exit_code}: commit {render.outputs.get('commit_sha', '')[:12]} by "
              f"{commit.author.name}: {commit.message.strip()!r}; {render.outputs.get('changed')} derived files")
        expect(render.exit_code == 0 and render.outputs.get("commit_sha") == main, "the render commit on main")

        heading("INDEX.md on main")
        print(textwrap.indent(show_file(sb, main, "INDEX.md"), "  "), end="")
        heading("new ledger rows")
        for row in show_file(sb, main, "ledger.tsv").splitlines():
            if row not in old_ledger:
                print(f"  {row}")
        demo.bot_checkout(main)
        rendered, _ = load_shelf(demo.bot_dir)
        assert rendered is not None
        heading("stats")
        print(textwrap.indent(format_text(shelf_stats(rendered, rendered.settings.context_window)), "  "), end="")
        drift = render_shelf(rendered, check=True).drifted
        expect(not drift, "main to be a fixed point of render")
        heading("chart and badge, committed on main")
        for name in ("stats.svg", "badge.svg", "badge.json"):
            size = (demo.bot_dir / name).stat().st_size
            print(f"  {name:11} {size:>6,} bytes  {sb.api_url}/{REPO}/blob/main/{name}")
        print("  badge.json: " + (demo.bot_dir / "badge.json").read_text(encoding="utf-8").replace("\n", " "))

        from .demo_agents import play_agents  # act two builds on this module's Demo

        play_agents(demo, work)


def cli_main(args: Any) -> int:
    work = Path(tempfile.mkdtemp(prefix="memshelf-demo-"))
    try:
        play(work)
        print("\nmemshelf-bot demo: the loop closed — PR checked, fixed, merged, rendered; agents' branches opened, "
              "resolved and merged by the bot.")
        return 0
    except (AssertionError, RuntimeError) as exc:
        print(f"\nmemshelf-bot demo failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"(kept in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)
