"""Run a command and measure it: wall time and the peak RSS of that one child (os.wait4)."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    wall: float  # seconds
    rss_kb: int  # peak resident set size of the child, KiB
    code: int


def once(cmd: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None) -> Sample:
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Sample(wall, usage.ru_maxrss, proc.returncode)


def chain(cmds: list[list[str]], **kw) -> Sample:
    """Commands run back to back: summed wall time, the largest peak RSS."""
    samples = [once(c, **kw) for c in cmds]
    return Sample(sum(s.wall for s in samples), max(s.rss_kb for s in samples), max(s.code for s in samples))


def median(fn, repeat: int) -> Sample:
    samples = [fn() for _ in range(repeat)]
    return Sample(statistics.median(s.wall for s in samples), max(s.rss_kb for s in samples), samples[-1].code)
