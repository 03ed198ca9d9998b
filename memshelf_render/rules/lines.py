"""Line numbers for offsets into an episode's text, in O(log n) each.

Counting newlines from offset 0 for every match is quadratic in the file size (a file of
conflict-marker lines has one match per line); the table of line starts is built once.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate


class LineTable:
    """Where each line of `lines` (the text split at newlines) starts; built on the first
    lookup, so a file without a match never pays for it."""

    __slots__ = ("_lines", "_starts")

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self._starts: list[int] | None = None

    def line_of(self, offset: int) -> int:
        """The 1-based line that holds `offset`."""
        if self._starts is None:
            self._starts = [0, *accumulate(len(line) + 1 for line in self._lines)]
        return bisect_right(self._starts, offset)
