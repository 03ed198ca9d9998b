"""The one gate between a shelf's text and a derived file (ledger, .meta.json, INDEX, archive).

Render never refuses: a shelf with error-level content still renders, but no secret reaches a
derived file. Every text a derived file takes from the shelf passes here and is masked with the
built-in shapes and the shelf's POLICY.patterns: an episode's values (`cell`), but also its path,
file name and id, a category's name (`name`), and the renderer config (`config`: the
`.docshelf.json` name, preamble, remote, branch…). Names are masked as found, before anything
humanizes, title-cases or percent-encodes them (which would break a secret's shape and let its
characters through), and such a change then leaves the masks as they are (`around_masks`). The
files whose text had to be changed are listed, so a caller can say so (and gate on it). Markup
and line breaks in titles are escaped and flattened by the INDEX writer itself; they are noted
here, where the episode is known.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..markup import find_markup
from ..redact import MASK_OPEN, PolicyPack, mask
from ..rules.content import find_instructions
from ..shelf import DocshelfConfig, Shelf
from ..text import flatten_cell

_SURROGATE = re.compile("[\ud800-\udfff]")
_MASK = re.compile(re.escape(MASK_OPEN) + "[^»\n]*»")
_CONFIG_TEXTS = ("name", "preamble", "remote", "branch", "url_template")  # the ones a derived file shows


def encodable(text: str) -> str:
    """`text` with each lone surrogate (a YAML escape can spell one, an undecodable file-name byte
    arrives as one), which no UTF-8 file can hold, written as a `\\uXXXX` escape; `text` itself
    when it holds none."""
    if text.isprintable() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def around_masks(text: str, change: Callable[[str], str]) -> str:
    """`change` applied to the text between the masks of `text` (each part on its own, the parts
    joined by a space); `text` itself when it holds no mask. A humanized or title-cased name so
    still shows `«redacted:github-token»` where the secret was."""
    if MASK_OPEN not in text:
        return change(text)
    out: list[str] = []
    at = 0
    for m in _MASK.finditer(text):
        out += [change(text[at:m.start()]), m.group()]
        at = m.end()
    out.append(change(text[at:]))
    return " ".join(part for part in out if part)


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
        masked = self.name(text, path, name)
        escaped = encodable(masked)
        if escaped != masked:
            self._note(path, f"an unencodable character in {name} was written as an escape")
        return escaped

    def name(self, text: str, path: str, what: str) -> str:
        """A path, file name or category name of the episode at `path` as a derived file may
        hold it: secrets masked. An undecodable file-name byte stays as found, so a link still
        percent-encodes it to the file's real name (the writers escape it in text)."""
        masked = self._masked.get(text)
        if masked is None:
            masked = self._masked[text] = mask(text, self.pack)
        if masked != text:
            self._note(path, f"a secret in {what} was masked")
        return masked

    def config(self, cfg: DocshelfConfig, source: str) -> DocshelfConfig:
        """The renderer config read from `source` (`.docshelf.json`) with every text masked:
        INDEX shows its name, preamble and remote, and its links carry its remote and branch."""
        masked = {key: self.cell(value, source, key) for key in _CONFIG_TEXTS
                  if isinstance(value := getattr(cfg, key), str)}
        order = tuple(self.cell(c, source, "category_order") for c in cfg.category_order)
        return replace(cfg, category_order=order, **masked)

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

    def scratch(self) -> CellGuard:
        """A guard with this one's pack and memo and notes of its own (`render.pieces`: a
        piece's notes are kept with it, then handed here with `take`)."""
        return CellGuard(self.pack, {}, self._masked)

    def take(self, path: str, notes: list[str] | tuple[str, ...]) -> None:
        """Note `notes` for the episode at `path`, as if they had been made here."""
        for note in notes:
            self._note(path, note)

    def report(self) -> list[tuple[str, str]]:
        """(path, what was neutralised) per episode, in path order."""
        return [(path, "; ".join(notes)) for path, notes in sorted(self.neutralised.items())]

    def _note(self, path: str, note: str) -> None:
        notes = self.neutralised.setdefault(path, [])
        if note not in notes:
            notes.append(note)
