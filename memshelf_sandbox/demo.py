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

import textwrap
from pathlib import Path
from typing import Any

from .demo_agents import play_agents
from .demo_stage import (
    AGENT,
    AGENT_TOKEN,
    BAD,
    BOT_TOKEN,
    BRANCH,
    GOOD,
    REPO,
    Demo,
    expect,
    heading,
    rendered_example,
    run_demo,
    show_annotations,
    show_comment,
    show_file,
    show_verdict,
)

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


def play(work: Path) -> None:
    from memshelf_render.render import render_shelf
    from memshelf_render.shelf import load_shelf
    from memshelf_render.stats import format_text, shelf_stats

    from . import Sandbox

    bare = rendered_example(work)
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

        play_agents(demo, work)


def cli_main(args: Any) -> int:
    if getattr(args, "app", False):  # the same story through webhooks into `serve`
        from .demo_app import cli_main as app_main

        return app_main(args)
    return run_demo(args, "memshelf-bot demo", play,
                    "the loop closed — PR checked, fixed, merged, rendered; agents' branches opened, "
                    "resolved and merged by the bot.")
