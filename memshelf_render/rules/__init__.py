"""One small module per group of checks; `validate` runs them in this order.

Episode checks take `(episode, context)` and yield findings; shelf checks take the context.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..episode import Episode
from ..findings import Finding
from . import consistency, content, digest, frontmatter, secrets, sections, structure
from .context import Context

EpisodeCheck = Callable[[Episode, Context], Iterable[Finding]]
ShelfCheck = Callable[[Context], Iterable[Finding]]

EPISODE_CHECKS: tuple[EpisodeCheck, ...] = (
    frontmatter.check,
    sections.check,
    digest.check,
    content.check,
    secrets.check,
)

__all__ = ["EPISODE_CHECKS", "Context", "consistency", "structure"]
