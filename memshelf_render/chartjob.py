"""stats.svg drawn in a forked helper process, so importing matplotlib overlaps the parsing.

Importing matplotlib costs about as much as parsing a few thousand episodes. `render` forks the
helper (`parallel.Helper`) first thing, before the shelf and the renderers are loaded, so it
imports matplotlib on another core from a small process; what it draws is a `ChartData` (a few
hundred numbers, never the rows), sent once INDEX is rendered, and the SVG comes back while the
remaining files render. A chart whose input is unchanged is settled here by its hash, and an
unused helper is stopped at once. Single-core machines, platforms without `fork` and
`MEMSHELF_BOT_JOBS=1` (the knob validate honours too) draw in-process. The drawing is
`chartdraw.draw` either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .parallel import Helper, can_fork, cores

if TYPE_CHECKING:
    from .chartdraw import ChartData
    from .records import Record

FORK_FROM_EPISODES = 300


def _draw(data: ChartData) -> bytes:
    from .chartdraw import draw

    return draw(data)


def _warm_up() -> None:
    from .chartdraw import warm_up

    warm_up()


class ChartJob:
    """Draws the chart; with `fork`, in a helper forked at construction."""

    def __init__(self, fork: bool) -> None:
        self._helper = Helper(_warm_up, _draw) if fork and cores() > 1 and can_fork() else None

    @classmethod
    def for_shelf(cls, episodes: int) -> ChartJob:
        """A helper for a shelf big enough that matplotlib's import is worth hiding."""
        return cls(episodes >= FORK_FROM_EPISODES)

    def submit(self, records: list[Record], index_text: str, context_window: int,
               previous: bytes | None) -> Callable[[], bytes]:
        """Start drawing (in the helper, if there is one); call the result to get the bytes."""
        from .render.chart import labelled, to_draw

        todo = to_draw(records, index_text, context_window, previous)
        if todo is None:
            return lambda: previous
        data, digest = todo
        drawing = (lambda: _draw(data)) if self._helper is None else self._helper.call(data)
        return lambda: labelled(drawing(), digest)

    def pause(self) -> None:
        """Let the episode workers have every core (see `parallel.Helper.pause`)."""
        if self._helper is not None:
            self._helper.pause()

    def resume(self) -> None:
        if self._helper is not None:
            self._helper.resume()

    @property
    def forked(self) -> bool:
        return self._helper is not None

    def close(self) -> None:
        if self._helper is not None:
            self._helper.close()
            self._helper = None

    def __enter__(self) -> ChartJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
