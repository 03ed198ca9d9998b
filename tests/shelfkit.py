"""Tiny builders for hand-written test shelves (the seeded generator lives in shelfgen.py)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

MANIFEST = """\
spec_version: "0.1"
mode: single
name: "Test shelf"
profile: memory
docs_root: docs
categories:
  - topics
  - research
  - sessions
index:
  path: INDEX.md
  generated_by: docshelf-mcp
ledger:
  path: ledger.tsv
policy:
  path: POLICY.md
  patterns: POLICY.patterns
"""

TOPIC = """\
# 2026-01-05-cache-policy

---
id: 2026-01-05-cache-policy
kind: topic
span: 2026-01-05
date: 2026-01-05
display_title: "Cache policy"
description: "Edge cache eviction settled on TTL"
tags: [cache, edge]
approx_tokens: 1200
approx_tokens_source: estimate
mode: live
notes: "reviewed"
---

## Digest
The edge cache moved to TTL eviction. Decided: a TTL of 300 seconds. Open: per-route overrides.

## Decisions
TTL 300 s for every route.
"""

SESSION = """\
# 2026-01-06-night-run

---
id: 2026-01-06-night-run
kind: session
span: 2026-01-06
date: 2026-01-06
tags: []
approx_tokens: 0
approx_tokens_source: unmeasured
mode: live
---

## Digest
The night run verified backups. Open: alerting on failures.

## Timeline
02:00 check ran.

## Open threads
Alerting.
"""

RESEARCH = """\
---
id: 2026-01-07-queue-survey
kind: research
span: 2026-01-07
tags: [queue]
approx_tokens: 900
mode: import
---

## Digest
Survey of queues for billing. Verdict: NATS JetStream.

## Sources
Vendor docs.
"""

TOPIC_PATH = "docs/topics/2026-01-05-cache-policy.md"
SESSION_PATH = "docs/sessions/2026-01-06-night-run.md"
RESEARCH_PATH = "docs/research/2026-01-07-queue-survey.md"


def make_shelf(root: Path, episodes: dict[str, str | bytes] | None = None, *, manifest: str = MANIFEST,
               policy: bool = True, patterns: str | None = None) -> Path:
    """A memory shelf with the three standard categories and the given episode files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "shelf.yml").write_text(manifest, encoding="utf-8")
    for cat in ("topics", "research", "sessions"):
        (root / "docs" / cat).mkdir(parents=True, exist_ok=True)
    if policy:
        (root / "POLICY.md").write_text("# Policy\n\nNo secrets.\n", encoding="utf-8")
    if patterns is not None:
        (root / "POLICY.patterns").write_text(patterns, encoding="utf-8")
    default = {TOPIC_PATH: TOPIC, SESSION_PATH: SESSION, RESEARCH_PATH: RESEARCH}
    for rel, content in (default if episodes is None else episodes).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, cwd=cwd,
                          check=False)


def run_cli_in_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """What `run_cli` answers, from the CLI's `main` called in this process: a command's output and
    exit code without an interpreter start and the package's imports (~0.3 s of CPU each), for tests
    that run a command many times. Tests of the process boundary itself use `run_cli`."""
    from bot.cli import main

    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.chdir(cwd or "."), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    texts = []
    for stream in (out, err):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode("utf-8"))
    return subprocess.CompletedProcess(["memshelf-bot", *args], code, *texts)


def validate_json(root: Path, *extra: str) -> tuple[int, dict]:
    """`memshelf-bot validate ROOT --format json`: its exit code and parsed output (in-process; the
    command's process boundary is tested through `run_cli` in tests/unit/test_validate_command.py)."""
    proc = run_cli_in_process("validate", str(root), "--format", "json", *extra)
    return proc.returncode, json.loads(proc.stdout)
