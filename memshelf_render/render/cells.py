"""The one gate between an episode's text and a derived file (ledger, .meta.json, INDEX, archive).

Render never refuses: a shelf with error-level content still renders, but no secret reaches a
derived file (every cell is masked with the built-in shapes and the shelf's POLICY.patterns) and
the episodes whose text had to be changed are listed, so a caller can say so (and gate on it).
Markup and line breaks in titles are escaped and flattened by the INDEX writer itself; they are
noted here, where the episode is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..markup import find_markup
from ..redact import PolicyPack, mask
from ..rules.content import find_instructions
from ..shelf import Shelf
from ..text import flatten_cell

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class CellGuard:
    """Masks cells with `pack` and remembers, per episode path, what it neutralised."""

    pack: PolicyPack | None = None
    neutralised: dict[str, list[str]] = field(default_factory=dict)
    _masked: dict[str, str] = field(default_factory=dict)  # text -> masked text (modes, ids repeat)

    @classmethod
    def for_shelf(cls, shelf: Shelf) -> CellGuard:
        return cls(PolicyPack.parse(shelf.read_text(shelf.patterns_path)))

    def cell(self, text: str, path: str, name: str) -> str:
        """`text` (the value of field `name` of the episode at `path`) as a derived file may
        hold it: secrets masked. Masking keeps line breaks; the writers flatten them."""
        masked = self._masked.get(text)
        if masked is None:
            masked = self._masked[text] = mask(text, self.pack)
        if masked != text:
            self._note(path, f"a secret in {name} was masked")
        if not masked.isprintable() and _SURROGATE.search(masked):
            # a YAML escape can spell a lone surrogate, which no UTF-8 file can hold
            self._note(path, f"an unencodable character in {name} was written as an escape")
            return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", masked)
        return masked

    def ledger_cell(self, text: str, path: str, name: str) -> str:
        masked = self.cell(text, path, name)
        flat = flatten_cell(masked)
        if flat != masked:
            self._note(path, f"a line break or tab in {name} was flattened")
        return flat

    def shown_text(self, text: str, path: str, name: str) -> str:
        """A title or description INDEX will show: masked; its markup and line breaks noted (the
        INDEX writer escapes and flattens them)."""
        masked = self.cell(text, path, name)
        what = find_markup(masked)
        if what is not None:
            self._note(path, f"{what} in {name} was escaped in INDEX")
        if flatten_cell(masked) != masked:
            self._note(path, f"a line break or tab in {name} was flattened in INDEX")
        return masked

    def instruction_free(self, text: str, path: str, name: str) -> str:
        """`text`, or "" when it is instruction-shaped (it would reach every future session
        through INDEX): INDEX then shows the id and no description, as for an episode without them."""
        if text and find_instructions(text):
            self._note(path, f"instruction-shaped text in {name} was left out of INDEX")
            return ""
        return text

    def report(self) -> list[tuple[str, str]]:
        """(path, what was neutralised) per episode, in path order."""
        return [(path, "; ".join(notes)) for path, notes in sorted(self.neutralised.items())]

    def _note(self, path: str, note: str) -> None:
        notes = self.neutralised.setdefault(path, [])
        if note not in notes:
            notes.append(note)
