"""Per-row pieces of the derived files, kept in the cache, so a render's text work follows what
changed.

Why: with the rows from the cache, what a render after a one-episode change still paid for was
the text work over every row: masking each cell, the instruction and markup screens, the ledger
line, the `.meta.json` entry, the INDEX entry. Each of those is a function of one row's values
and of the rules' inputs, so its result is kept under a digest of those values.

How it stays the definition: a piece is computed by the renderer's own function (`compute`),
with a scratch `CellGuard` (the run's pack, notes of its own); the run's guard then takes the
piece's notes, in the order the renderers ask for the pieces, which is the order a plain run
makes them. A cached piece is taken only when its key (16 bytes of blake2b over the piece's name
and every value `compute` reads) is in the table (whose own file name covers the tool's code and
the rules' inputs: POLICY.patterns, the settings, `.docshelf.json`) and its value has the
piece's shape; anything else is computed. A piece holds what the guard let through — masked
text — and the names of what it changed; its key is a digest, so no episode's own value is
kept. Without a cache (`Pieces()`), every piece is computed, through the same steps.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from hashlib import blake2b

from ..cache import EpisodeCache, Kind, Table
from ..shelf import Shelf
from .cells import CellGuard


class Pieces:
    """The pieces of one render: from `table` when it holds them, computed otherwise."""

    def __init__(self, table: Table | None = None) -> None:
        self.table = table

    @classmethod
    def for_shelf(cls, shelf: Shelf, cache: EpisodeCache | None) -> Pieces:
        return cls(None if cache is None or cache.directory is None else cache.table(shelf, Kind.PIECES))

    def of(self, guard: CellGuard, path: str, inputs: tuple, size: int,
           compute: Callable[[CellGuard], tuple[str, ...]]) -> tuple[str, ...]:
        """The piece `compute(guard)` for the episode at `path`: `size` strings. `inputs` starts
        with the piece's name and holds every value `compute` reads."""
        value = self.guessed(guard, path, inputs, size, compute, lambda _value: True)
        assert value is not None  # accepted
        return value

    def guessed(self, guard: CellGuard, path: str, inputs: tuple, size: int,
                compute: Callable[[CellGuard], tuple[str, ...]],
                accept: Callable[[tuple[str, ...]], bool]) -> tuple[str, ...] | None:
        """As `of`, for a caller that guessed one of the inputs and checks the guess against
        what the piece holds: a piece `accept` refuses (kept or computed) is None, and its
        notes are not taken."""
        table = self.table
        key = None
        if table is not None:
            # marshal's version 2 has no back-references: equal inputs give equal bytes, whichever
            # objects hold them
            key = blake2b(marshal.dumps(inputs, 2), digest_size=16).digest()
            kept = table.get(key)
            # kept: the piece's strings, then its notes (strings too); anything else is a miss
            if kept is not None and len(kept) >= size and set(map(type, kept)) == _STR:
                value = kept[:size]
                if not accept(value):
                    return None
                if len(kept) > size:
                    guard.take(path, kept[size:])
                return value
        scratch = guard.scratch()
        value = compute(scratch)
        if not accept(value):
            return None
        notes = scratch.neutralised.pop(path, [])
        for other, more in scratch.neutralised.items():  # never expected: such a piece is not kept
            guard.take(other, more)
            key = None
        guard.take(path, notes)
        if key is not None:
            table.put(key, (*value, *notes))
        return value

    def save(self) -> None:
        if self.table is not None:
            self.table.save()


_STR = {str}
