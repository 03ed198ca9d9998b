"""Line numbers for offsets into an episode's text, in O(log n) each.

Counting newlines from offset 0 for every match is quadratic in the file size (a file of
conflict-marker lines has one match per line); the table of line starts is built once.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate


class LineTable:
    """Where each line of `lines` (the text split at "\\n") starts."""

    __slots__ = ("starts",)

    def __init__(self, lines: list[str]) -> None:
        self.starts = [0, *accumulate(len(line) + 1 for line in lines)]

    def line_of(self, offset: int) -> int:
        """The 1-based line that holds `offset`."""
        return bisect_right(self.starts, offset)
