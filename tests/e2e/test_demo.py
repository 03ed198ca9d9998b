"""`memshelf-bot demo` closes the whole loop on the sandbox, in seconds, and shows each stage: act one
a pull request checked, fixed, merged and rendered; act two agents' branches opened as pull requests,
auto-merged, and a conflict settled by `/shelf resolve`. `demo --app` tells the same story through
webhooks into a real `serve`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest


def check_story(out: str) -> None:
    """What `memshelf-bot demo` must show, stage by stage. The demo itself runs once in the suite:
    from a fresh `pip install .[sandbox]` (tests/e2e/test_install.py), which is how a user gets it."""
    stages = ["the night-shift agent pushes night-shift/2026-09-23", "annotations on the diff:",
              "the sticky comment:", "→ the check is red: merging is blocked", "→ the check is green",
              "== INDEX.md on main", "== new ledger rows", "== stats", "== chart and badge, committed on main",
              "== act two:", "== two night-shift agents shelve from the same main",
              "== the bot's run for the push of shelve/2026-09-24-backup-window",
              "== the bot's run for the push of shelve/2026-09-24-dns-cutover",
              "== homelab-maintainer comments `/shelf resolve` on PR #4", "memshelf-bot demo: the loop closed"]
    positions = [out.index(stage) for stage in stages]
    assert positions == sorted(positions)
    assert "Error    docs/topics/2026-09-23-nas-migration.md#L4  memshelf-bot: id-mismatch" in out
    assert "│   ```suggestion" in out and "│ ### memshelf-bot: ✅ valid" in out
    assert "9f8e7d6c5b4a39281706" not in out  # the bad episode's secret is never echoed
    ledger = out[out.index("== new ledger rows"):out.index("== stats")]
    assert "2026-09-23\t2026-09-23-nas-migration\tlive\t30000" in ledger
    assert "2026-09-23\t2026-09-23-ups-runtime-test\tlive\t14000" in ledger
    assert "badge.svg" in out and "stats.svg" in out

    act_two = out[out.index("== act two:"):]
    # PR numbers follow the shelf dashboard issue (#2), which the first render on main opens
    assert "PR #3 'Backup window moved to 03:00' (shelve/2026-09-24-backup-window → main), labels [shelf:episode], " \
           "status [memshelf-bot/validate: success], merged" in act_two
    assert "  ┆ > The agent moved the nightly backup window to 03:00" in act_two
    assert "PR #4 'DNS cut over to the new resolver' (shelve/2026-09-24-dns-cutover → main), labels [shelf:episode], " \
           "status [memshelf-bot/validate: success], dirty" in act_two
    assert "the sticky comment says: ⚠️ Auto-merge waits: this branch conflicts with `main`." in act_two
    assert "reactions on the comment: eyes rocket" in act_two
    assert "│ 🚀 Merged `main` (" in act_two and "│ - unioned, every row from both sides kept: `recall-log.tsv`" in act_two
    assert act_two.count("status [memshelf-bot/validate: success], merged") == 2
    log = act_two[act_two.index("recall-log.tsv on main"):]
    assert "2026-09-21-night-shift-backups\tTimeline\t96" in log and "2026-09-20-zfs-recordsize\tDigest\t60" in log


def test_the_app_demo_closes_the_loop_through_webhooks_and_exits_0(tmp_path: Path) -> None:
    cli = Path(sys.executable).parent / "memshelf-bot"
    # a generous bound against a hang, not a speed test (about 25 s here)
    done = subprocess.run([str(cli), "demo", "--app"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    out = done.stdout
    stages = ["plays GitHub for the App memshelf-bot-demo[bot]", "(memshelf-bot serve, pid ",
              "push delivered → the App opened PR #1 as memshelf-bot-demo[bot]",
              "check run 'memshelf-bot' by memshelf-bot-demo: failure — ❌ violations",
              "memshelf-bot: id-mismatch", "│ ### memshelf-bot: ❌ violations",
              "check run 'memshelf-bot' by memshelf-bot-demo: success — ✅ valid",
              "by memshelf-bot-demo[bot]: 'memshelf-bot: render derived files [skip ci]'",
              "(created through the Git Data API with no explicit author or committer: GitHub signs it)",
              "== INDEX.md on main", "visitor: /shelf resolve → 😕", "maintainer: /shelf resolve →",
              "│ 🚀 Merged `main` (", "serve stopped on SIGTERM: exit 0",
              "memshelf-bot demo --app: the loop closed through webhooks"]
    positions = [out.index(stage) for stage in stages]
    assert positions == sorted(positions)
    assert "in one commit" in out and "made by GitHub (signed), the branch fast-forwarded to it" in out
    assert "Night shift: UPS runtime test" in out[out.index("== INDEX.md on main"):]
    delivered = re.search(r"(\d+) webhooks delivered, (\d+) acknowledged with 2xx; (\d+) jobs ran", out)
    assert delivered is not None and delivered[1] == delivered[2] and int(delivered[3]) > 0
    assert "9f8e7d6c5b4a39281706" not in out + done.stderr  # the bad episode's secret is never echoed


def test_serves_log_on_failure_reaches_the_terminal_inert(capsys: pytest.CaptureFixture[str]) -> None:
    """The log's values come from the shelf and the pull request: a branch name holding an escape
    sequence or a line break is shown, not obeyed."""
    import json

    from memshelf_sandbox.demo_app import _print_tail

    hostile = {"level": "error", "event": "job.failed", "error": "push to \x1b[2Jevil\n::error::pwn"}
    _print_tail([json.dumps(hostile), "not json"])
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\n::error" not in err and "evil" in err
