"""stats.svg drawn in a forked helper process, so importing matplotlib overlaps the parsing.

Importing matplotlib costs about as much as parsing a few thousand episodes. For a big shelf the
helper (`parallel.Helper`) is forked when the render starts and imports matplotlib on another
core; the records are sent to it once INDEX is rendered, and the SVG comes back while the
remaining files render. A chart whose input is unchanged is settled here by its hash, and an
unused helper is stopped at once. Single-core machines, platforms without `fork` and
`MEMSHELF_BOT_JOBS=1` (the knob validate honours too) draw in-process. The drawing is
`render.chart.chart_svg` either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .parallel import Helper, can_fork, cores

if TYPE_CHECKING:
    from .records import Record

FORK_FROM_EPISODES = 300


def _draw(records: list[Record], index_text: str, context_window: int, previous: bytes | None) -> bytes:
    from .render.chart import chart_svg

    return chart_svg(records, index_text=index_text, context_window=context_window, previous=previous)


def _warm_up() -> None:
    from .render.chart import warm_up

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
        from .render.chart import is_current

        if previous is not None and is_current(records, index_text, context_window, previous):
            return lambda: previous
        if self._helper is None:
            return lambda: _draw(records, index_text, context_window, previous)
        return self._helper.call(records, index_text, context_window, previous)

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
