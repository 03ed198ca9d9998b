"""The one switch that turns every screen to "maybe" and every quick form to its plain spelling.

Production never turns it; `tests/screens/test_maybe_only.py` does, to show the plain
definitions alone give the same findings as the screened production path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

MAYBE_ONLY = False  # read by every screen on each call (a module attribute: one lookup)


@contextmanager
def maybe_only() -> Iterator[None]:
    """Within the block every screen answers "maybe" (for this process and the workers it forks)."""
    global MAYBE_ONLY
    saved, MAYBE_ONLY = MAYBE_ONLY, True
    try:
        yield
    finally:
        MAYBE_ONLY = saved
