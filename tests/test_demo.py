"""`memshelf-bot demo` closes the whole loop on the sandbox, in seconds, and shows each stage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_the_demo_runs_the_loop_and_exits_0(tmp_path: Path) -> None:
    cli = Path(sys.executable).parent / "memshelf-bot"
    done = subprocess.run([str(cli), "demo"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    out = done.stdout
    stages = ["the night-shift agent pushes night-shift/2026-09-23", "annotations on the diff:",
              "the sticky comment:", "→ the check is red: merging is blocked", "→ the check is green",
              "== INDEX.md on main", "== new ledger rows", "== stats", "== chart and badge, committed on main",
              "memshelf-bot demo: the loop closed"]
    positions = [out.index(stage) for stage in stages]
    assert positions == sorted(positions)
    assert "Error    docs/topics/2026-09-23-nas-migration.md#L4  memshelf-bot: id-mismatch" in out
    assert "│   ```suggestion" in out and "│ ### memshelf-bot: ✅ valid" in out
    assert "9f8e7d6c5b4a39281706" not in out  # the bad episode's secret is never echoed
    ledger = out[out.index("== new ledger rows"):out.index("== stats")]
    assert "2026-09-23\t2026-09-23-nas-migration\tlive\t30000" in ledger
    assert "2026-09-23\t2026-09-23-ups-runtime-test\tlive\t14000" in ledger
    assert "badge.svg" in out and "stats.svg" in out
