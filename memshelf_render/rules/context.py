"""What every check may look at besides the episode itself."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..redact import PolicyPack
from ..shelf import Shelf


@dataclass
class Context:
    shelf: Shelf

    @cached_property
    def policy(self) -> PolicyPack:
        return PolicyPack.parse(self.shelf.read_text(self.shelf.patterns_path))

    @property
    def memory(self) -> bool:
        return self.shelf.is_memory
