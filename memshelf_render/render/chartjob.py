"""stats.svg drawn in a forked helper process, so importing matplotlib overlaps the parsing.

Importing matplotlib costs about as much as parsing a few thousand episodes. On a big shelf the
helper is forked before the episodes are parsed and imports matplotlib on the second core; the
records are handed to it once they exist. Small shelves, single-core machines, platforms without
`fork` and `MEMSHELF_BOT_JOBS=1` (the knob validate honours too) draw in-process. The drawing
itself is `chart.chart_svg` either way.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..records import Record

FORK_FROM_EPISODES = 300


def _prewarm() -> None:
    try:
        import matplotlib.backends.backend_svg
        import matplotlib.figure  # noqa: F401
    except ImportError:
        pass  # chart_svg reports it when it is called


def _draw(records: list[Record], index_text: str, context_window: int, previous: bytes | None) -> bytes:
    from .chart import chart_svg

    return chart_svg(records, index_text=index_text, context_window=context_window, previous=previous)


def _cores() -> int:
    wanted = os.environ.get("MEMSHELF_BOT_JOBS", "")
    return int(wanted) if wanted.isdigit() else (os.cpu_count() or 1)


class ChartJob:
    """Draws the chart; forks its helper at construction when the shelf is big enough."""

    def __init__(self, episodes: int) -> None:
        self._pool: ProcessPoolExecutor | None = None
        if episodes >= FORK_FROM_EPISODES and _cores() > 1 and "fork" in multiprocessing.get_all_start_methods():
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
            self._pool.submit(_prewarm)

    def draw(self, records: list[Record], index_text: str, context_window: int, previous: bytes | None) -> bytes:
        if self._pool is not None:
            try:
                return self._pool.submit(_draw, records, index_text, context_window, previous).result()
            except BrokenProcessPool:
                self.close()
        return _draw(records, index_text, context_window, previous)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> ChartJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
