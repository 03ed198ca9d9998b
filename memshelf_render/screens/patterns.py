"""The screens in front of one pattern of the secret rules (a built-in shape or a POLICY rule).

A text is ruled out when it lacks the literal every match holds (`literals`), its lowercase form
for a case-insensitive pattern (in the text's `casing.screen_lower`), or the class codes every
match shows (`classcodes`). Within a text, `lines` names the lines the plain line-by-line search
must still read: those holding the literal, in runs of lines where one search of the pattern over
the whole run (`lines.screen_of`) finds something.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

from . import switch
from .classcodes import class_run
from .lines import RUN_CHARS, screen_of
from .literals import folded_literal, required_literal
from .view import Screened


@dataclass(frozen=True, slots=True)
class PatternScreen:
    needle: str | None = None  # a literal every match contains
    folded: str | None = None  # the same for a case-insensitive literal, in `Screened.lower`
    shape: bytes | None = None  # class codes every match shows, in `Screened.codes`
    run: re.Pattern[str] | None = None  # searched over a run of lines: no match, none in any line

    @classmethod
    def literal(cls, regex: re.Pattern[str]) -> PatternScreen:
        """Only the literal: for the built-in shapes, which are linear and match across lines."""
        return cls(required_literal(regex))

    @classmethod
    def line_rule(cls, regex: re.Pattern[str]) -> PatternScreen:
        """Every screen a POLICY rule (matched within one line) can have."""
        return cls(required_literal(regex), folded_literal(regex), class_run(regex), screen_of(regex))

    def absent(self, text: str) -> bool:
        """Surely no match in `text` (only the literal is looked at: the text may change between
        passes, as the built-in shapes mask it one after another)."""
        return not switch.MAYBE_ONLY and self.needle is not None and self.needle not in text

    def rules_out(self, view: Screened) -> bool:
        """Surely no match anywhere in the text."""
        if switch.MAYBE_ONLY:
            return False
        return ((self.needle is not None and self.needle not in view.text)
                or (self.folded is not None and self.folded not in view.lower)
                or (self.shape is not None and self.shape not in view.codes))

    def lines(self, view: Screened, deadline: float) -> Iterator[tuple[int, str]]:
        """(1-based number, line) of every line that may hold a match, in order. Once `deadline`
        has passed, the run screen stops (its search would spend time the budget no longer has)
        and every line still holding the literal is handed on."""
        text = view.text
        if switch.MAYBE_ONLY:
            yield from enumerate(text.split("\n"), start=1)
            return
        needle, run = self.needle, self.run
        for start, end, first in view.runs:
            if needle is not None and text.find(needle, start, end) == -1:
                continue
            if (run is not None and end - start <= RUN_CHARS and time.monotonic() <= deadline
                    and run.search(text, start, end) is None):
                continue
            for number, line in enumerate(text[start:end].split("\n"), start=first):
                if needle is None or needle in line:
                    yield number, line
