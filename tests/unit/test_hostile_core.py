"""Every core command and format over generated hostile shelves (tests/hostile.py): no traceback,
the documented exit code, no secret printed or written, no output line a terminal or the GitHub
runner would act on, nothing written outside the shelf or to a path that is not derived, and
each run under a time bound."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from memshelf_render import escape
from memshelf_render.cli import main
from tests.hostile import SECRETS, Hostile, hostile_shelf, snapshot

SEEDS = range(28)  # two shelves per feature of tests/hostile.py
TIME_BOUND_S = 60  # per command run: generous, it only has to catch a hang (a FIFO opened, a loop)
OUTSIDE_MARK = "2026-01-01-outside"
DERIVED_NAMES = {"ledger.tsv", "INDEX.md", "stats.svg", "badge.svg", "badge.json", "archive/INDEX.md"}
COMMAND = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


@dataclass
class Run:
    argv: list[str]
    code: int
    out: str
    err: str
    seconds: float


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_main(argv: list[str]) -> Run:
    """`memshelf-bot ARGV` in this process, with real text streams over bytes (as a terminal has)."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_BOUND_S)
    started = time.monotonic()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    except Hang:
        pytest.fail(f"{argv}: no result within {TIME_BOUND_S} s")
    except BaseException:
        pytest.fail(f"{argv} raised:\n{traceback.format_exc()}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    seconds = time.monotonic() - started
    out.flush()
    err.flush()
    return Run(argv, code, out.buffer.getvalue().decode("utf-8"), err.buffer.getvalue().decode("utf-8"), seconds)


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command as the runner reads it: name, decoded properties, decoded message."""
    m = COMMAND.match(line)
    assert m, f"a line starting with '::' that is not a well-formed command: {line!r}"
    props = {}
    for item in m[2].split(","):
        key, sep, value = item.partition("=")
        assert sep and key in ("file", "line", "title"), f"unexpected property {item!r} in {line!r}"
        props[key] = (value.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r")
                      .replace("%25", "%"))
    data = m[3].replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
    return m[1], props, data


def check_output(h: Hostile, r: Run, *, github: bool = False) -> None:
    text = r.out + r.err
    assert "Traceback" not in text, (r.argv, text)
    for secret in h.secrets:
        assert secret not in text, (r.argv, secret, text)
    assert OUTSIDE_MARK not in text, (r.argv, text)
    for line in text.split("\n"):
        assert escape.terminal(line) == line, (r.argv, line)  # no control character, bidi, surrogate
        if line.lstrip().startswith("::"):
            assert github and line.startswith("::"), (r.argv, line)
            _, props, data = parse_command(line)
            for value in [*props.values(), data]:
                assert escape.multiline_terminal(value) == value, (r.argv, line)
                assert not any(s in value for s in h.secrets), (r.argv, line)


def expected(h: Hostile, ok: set[int]) -> set[int]:
    return {2} if h.config_error else ok


def _allowed_change(rel: bytes) -> bool:
    name = os.fsdecode(rel)
    if name.startswith(".git/") and name not in (".git/config", ".git/HEAD"):
        return True
    return name in DERIVED_NAMES or name.endswith(("/.meta.json", "/SUBINDEX.md"))


def command_runs(h: Hostile) -> list[tuple[list[str], set[int], bool]]:
    """(argv, allowed exit codes, github format) for every command and format on shelf `h`."""
    root = str(h.root)
    runs: list[tuple[list[str], set[int], bool]] = []
    for fmt in ("text", "json", "github", "sarif"):
        runs.append((["validate", root, "--format", fmt], expected(h, {0, 1}), fmt == "github"))
    changed_ok = {2} if "docs-link" in h.features else {0, 1}
    for fmt in ("text", "github"):
        runs.append((["validate", root, "--format", fmt, *(a for p in h.episodes[:2] for a in ("--changed", p))],
                     expected(h, changed_ok), fmt == "github"))
    runs.append((["validate", root, "--changed", "docs/topics/no-such-episode.md"], {2}, False))
    runs.append((["render", root, "--check"], expected(h, {0, 1}), False))
    runs.append((["render", root, "--format", "json"], expected(h, {0}), False))
    runs.append((["render", root, "--badge"], expected(h, {0}), False))
    runs.append((["render", root, "--check", "--badge"], expected(h, {0}), False))
    runs.append((["stats", root], expected(h, {0}), False))
    runs.append((["stats", root, "--format", "json"], expected(h, {0}), False))
    runs.append((["badge", root, "--format", "json"], expected(h, {0}), False))
    for fmt in ("text", "json", "github"):
        runs.append((["guard", root, "--base", "HEAD~1", "--format", fmt], expected(h, {0, 1}), fmt == "github"))
    runs.append((["guard", root, "--base=--output=" + str(h.outside / "git-wrote-this")], {2}, False))
    for fmt in ("text", "json"):
        runs.append((["resolve", root, "--format", fmt], expected(h, {0}), False))
    return runs


@pytest.mark.parametrize("seed", SEEDS)
def test_every_core_command_holds_on_a_hostile_shelf(tmp_path: Path, seed: int) -> None:
    h = hostile_shelf(tmp_path / "shelf", seed)
    outside_before = snapshot(h.outside)
    before = snapshot(h.root)
    for argv, codes, github in command_runs(h):
        r = run_main(argv)
        assert r.code in codes, (h.features, argv, r.code, r.out[-2000:], r.err[-2000:])
        check_output(h, r, github=github)
    assert snapshot(h.outside) == outside_before, "something was written outside the shelf"
    after = snapshot(h.root)
    for rel, content in after.items():
        if before.get(rel) != content:
            assert _allowed_change(rel), (h.features, rel)
            if isinstance(content, bytes):
                assert OUTSIDE_MARK.encode() not in content, (h.features, rel)
    for rel in before:
        assert rel in after or _allowed_change(rel), (h.features, rel, "deleted")
    for rel in h.protected:
        key = os.fsencode(rel)
        assert before.get(key) == after.get(key), (h.features, rel)


def test_subprocess_runs_have_no_traceback_and_stop_quietly_on_a_closed_pipe(tmp_path: Path) -> None:
    h = hostile_shelf(tmp_path / "shelf", 3)
    for args in (["validate", str(h.root), "--format", "sarif"], ["render", str(h.root), "--check"],
                 ["validate", str(h.root), "--format", "github"]):
        proc = subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, timeout=120,
                              check=False)
        out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
        check_output(h, Run(args, proc.returncode, out, err, 0.0), github="github" in args)
        assert proc.returncode in (0, 1, 2)
    reader = subprocess.Popen([sys.executable, "-m", "bot.cli", "validate", str(h.root), "--format", "json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()  # like `| head`: the reader is gone before the first write
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=120) in (0, 1, 141)
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_render_writes_no_secret_into_derived_files(tmp_path: Path) -> None:
    h = hostile_shelf(tmp_path / "shelf", 1)
    assert run_main(["render", str(h.root)]).code == 0
    for rel in ("ledger.tsv", "INDEX.md", "docs/topics/.meta.json"):
        data = (h.root / rel).read_text(encoding="utf-8")
        assert not any(s in data for s in SECRETS), rel
