"""Run a command and measure it: wall time, CPU time and peak RSS, read with os.wait4.

CPU time is user + sys of the process and of every child it waited for (the pool workers and
the chart helper included); peak RSS is the largest single process among them.

Every command runs with Python's bytecode cache allowed (`RUN_ENV`): a development shell may
set PYTHONDONTWRITEBYTECODE, and then our editable install would compile its modules from
source on every start, while the reference tools (installed by pip, which compiles them) and
any installed memshelf-bot load bytecode. `warm` runs a command once, untimed, to write it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    wall: float  # seconds
    cpu: float  # user + sys seconds, children included
    rss_kb: int  # peak resident set size, KiB
    code: int


RUN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(cmd: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None) -> Sample:
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=RUN_ENV if env is None else env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode)


def warm(cmd: list[str], **kw) -> None:
    """Run `cmd` once, untimed (its modules' bytecode gets written)."""
    once(cmd, **kw)


def chain(cmds: list[list[str]], **kw) -> Sample:
    """Commands run back to back: summed wall and CPU time, the largest peak RSS."""
    samples = [once(c, **kw) for c in cmds]
    return Sample(sum(s.wall for s in samples), sum(s.cpu for s in samples), max(s.rss_kb for s in samples),
                  max(s.code for s in samples))


def summary(samples: list[Sample]) -> Sample:
    """Median wall and CPU time, the largest peak RSS, the last exit code."""
    return Sample(statistics.median(s.wall for s in samples), statistics.median(s.cpu for s in samples),
                  max(s.rss_kb for s in samples), samples[-1].code)


def median(fn, repeat: int) -> Sample:
    return summary([fn() for _ in range(repeat)])


def rounds(fns, repeat: int) -> list[list[Sample]]:
    """Each of `fns` once per round, `repeat` rounds (so drift in the machine's speed hits all
    alike); the samples per function."""
    out: list[list[Sample]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, samples in zip(fns, out, strict=True):
            samples.append(fn())
    return out


def ratio(ours: list[Sample], refs: list[Sample], what: str = "wall") -> float:
    """The median of the per-round ratios reference / ours."""
    return statistics.median(getattr(b, what) / getattr(a, what) for a, b in zip(ours, refs, strict=True))


def load() -> str:
    """The 1/5/15-minute load averages, to say how busy the machine was."""
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())
