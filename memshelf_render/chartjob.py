"""stats.svg drawn in a forked helper process, so importing matplotlib overlaps the parsing.

Importing matplotlib costs about as much as parsing a few thousand episodes. The helper is forked
as early as possible (the `render` command forks it before it even imports the renderers) and
imports matplotlib on another core; the records are piped to it once INDEX is rendered, and the
SVG comes back while the remaining files render. A chart whose input is unchanged is settled in
the parent by its hash, and an unused helper is stopped at once. A plain process and a pipe, no
threads, so the parse workers forked later inherit none. Single-core machines, platforms without
`fork` and `MEMSHELF_BOT_JOBS=1` (the knob validate honours too) draw in-process. The drawing is
`render.chart.chart_svg` either way. This module stays light: it is imported before the rest.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from .parallel import can_fork, cores

if TYPE_CHECKING:
    from .records import Record

    _Args = tuple[list[Record], str, int, bytes | None]

FORK_FROM_EPISODES = 300


def _draw(records: list[Record], index_text: str, context_window: int, previous: bytes | None) -> bytes:
    from .render.chart import chart_svg

    return chart_svg(records, index_text=index_text, context_window=context_window, previous=previous)


def _helper(conn: Connection) -> None:
    """The forked helper: import matplotlib now, draw once the arguments arrive."""
    try:
        from .render.chart import warm_up

        warm_up()
    except ImportError:
        pass  # _draw raises it again, and the parent reports it
    try:
        args = conn.recv()
    except EOFError:
        return
    try:
        conn.send((True, _draw(*args)))
    except Exception as exc:  # handed to the parent, which raises it where it would have
        conn.send((False, exc))


class ChartJob:
    """Draws the chart; with `fork`, in a helper forked at construction."""

    def __init__(self, fork: bool) -> None:
        self._conn: Connection | None = None
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._used = False
        if fork and cores() > 1 and can_fork():
            ctx = multiprocessing.get_context("fork")
            self._conn, child = ctx.Pipe()
            self._proc = ctx.Process(target=_helper, args=(child,), daemon=True)
            self._proc.start()
            child.close()

    @classmethod
    def for_shelf(cls, episodes: int) -> ChartJob:
        """A helper for a shelf big enough that matplotlib's import is worth hiding."""
        return cls(episodes >= FORK_FROM_EPISODES)

    def submit(self, records: list[Record], index_text: str, context_window: int,
               previous: bytes | None) -> Callable[[], bytes]:
        """Start drawing (in the helper, if there is one); call the result to get the bytes."""
        from .render.chart import is_current

        if previous is not None and is_current(records, index_text, context_window, previous):
            return lambda: previous
        args: _Args = (records, index_text, context_window, previous)
        conn = self._conn
        if conn is None:
            return lambda: _draw(*args)
        self._used = True
        try:
            conn.send(args)
        except OSError:
            self.close()
            return lambda: _draw(*args)

        def result() -> bytes:
            try:
                ok, value = conn.recv()
            except (EOFError, OSError):  # the helper died: draw here instead
                self.close()
                return _draw(*args)
            if not ok:
                raise value
            return value

        return result

    @property
    def forked(self) -> bool:
        return self._proc is not None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            if not self._used:  # never asked to draw: do not wait for its import to finish
                self._proc.kill()
            self._proc.join(timeout=5)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
            self._proc = None

    def __enter__(self) -> ChartJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
