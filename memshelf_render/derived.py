"""Which files of a shelf are derived: bot-owned, regenerated from the episodes, never merged.

`render` writes exactly `derived_paths(shelf)`; the PR guard and `resolve` ask `is_derived`, which
also recognises paths that do not exist yet. Settings decide the list: `index.path` and
`ledger.path` from shelf.yml, `index.generated_by: manual` (a human keeps INDEX.md and the
SUBINDEX files under the docs root, so they are not derived; the archive's index stays the bot's),
and the badge switch. `.meta.json` is derived for the three standard categories only, as in the
reference: an extra directory's `.meta.json` is nobody's output.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import paths
from .paths import normalize
from .shelf import ARCHIVE_DIR, STANDARD_CATEGORIES, Shelf

STATS_PATH = "stats.svg"
BADGE_PATHS = ("badge.svg", "badge.json")
META_NAME = ".meta.json"
SUBINDEX_NAME = "SUBINDEX.md"
ARCHIVE_INDEX = f"{ARCHIVE_DIR}/INDEX.md"


@dataclass(frozen=True, slots=True)
class SectionFile:
    """One chapter file of a legacy split document."""

    name: str
    size: int


def split_sections(shelf: Shelf, split_dir: str) -> tuple[SectionFile, ...]:
    """The chapter files of a split directory (`*.md` except SUBINDEX.md, regular files only,
    sorted by name); empty when the directory holds none."""
    try:
        with os.scandir(shelf.abs(split_dir)) as it:
            found = [
                SectionFile(e.name, e.stat(follow_symlinks=False).st_size)
                for e in it
                if e.name.endswith(".md") and e.name != SUBINDEX_NAME and e.is_file(follow_symlinks=False)
            ]
    except OSError:
        return ()
    return tuple(sorted(found, key=lambda s: s.name))


def split_documents(shelf: Shelf) -> dict[str, tuple[SectionFile, ...]]:
    """Split directory -> its chapters, for every directory that sits next to an episode of the
    same stem and holds at least one chapter (docs and archive alike)."""
    episode_paths = {ref.path for ref in shelf.layout.episodes}
    found: dict[str, tuple[SectionFile, ...]] = {}
    for folder in shelf.layout.split_dirs:
        if f"{folder}.md" not in episode_paths:
            continue
        sections = split_sections(shelf, folder)
        if sections:
            found[folder] = sections
    return found


def index_is_derived(shelf: Shelf) -> bool:
    return shelf.generated_by != "manual"


def badge_enabled(shelf: Shelf, badge: bool | None = None) -> bool:
    return shelf.settings.badge if badge is None else badge


def _exists(shelf: Shelf, rel: str) -> bool:
    return paths.exists(shelf.root, rel)


def _is_dir(shelf: Shelf, rel: str) -> bool:
    return paths.is_dir(shelf.root, rel)


def meta_paths(shelf: Shelf, *, archived: bool) -> list[str]:
    """`.meta.json` of each standard category directory that exists (docs or archive)."""
    base = shelf.archive_docs_root if archived else shelf.docs_root
    present = set(shelf.layout.archive_categories if archived else shelf.layout.categories)
    return [f"{base}/{c}/{META_NAME}" for c in sorted(STANDARD_CATEGORIES) if c in present]


def subindex_paths(shelf: Shelf, *, archived: bool) -> list[str]:
    """SUBINDEX.md of every split document, plus any SUBINDEX.md left in a directory that is no
    longer a split document (derived, so it must go)."""
    if not archived and not index_is_derived(shelf):
        return []
    base = (shelf.archive_docs_root if archived else shelf.docs_root) + "/"
    splits = split_documents(shelf)
    out = []
    for folder in shelf.layout.split_dirs:
        if not folder.startswith(base):
            continue
        path = f"{folder}/{SUBINDEX_NAME}"
        if folder in splits or _exists(shelf, path):
            out.append(path)
    return out


def derived_paths(shelf: Shelf, badge: bool | None = None) -> list[str]:
    """Every derived file of this shelf, in render order; `badge` overrides the shelf setting."""
    paths = [shelf.ledger_path, *meta_paths(shelf, archived=False)]
    if index_is_derived(shelf):
        paths.append(shelf.index_path)
    paths += subindex_paths(shelf, archived=False)
    if _is_dir(shelf, shelf.archive_docs_root):
        paths += meta_paths(shelf, archived=True)
        paths.append(ARCHIVE_INDEX)
        paths += subindex_paths(shelf, archived=True)
    elif _exists(shelf, ARCHIVE_INDEX):
        paths.append(ARCHIVE_INDEX)  # no archive left: its index must go
    paths.append(STATS_PATH)
    if badge_enabled(shelf, badge):
        paths += BADGE_PATHS
    return list(dict.fromkeys(normalize(p) for p in paths))


def _split_under(path: str, base: str) -> list[str] | None:
    prefix = base + "/"
    return path[len(prefix):].split("/") if path.startswith(prefix) else None


def is_derived(path: str, shelf: Shelf) -> bool:
    """Whether a shelf-relative path is (or would be) a derived file — by pattern, so it also
    answers for paths that do not exist yet."""
    path = normalize(path)
    if path in (normalize(shelf.ledger_path), STATS_PATH, ARCHIVE_INDEX):
        return True
    if index_is_derived(shelf) and path == normalize(shelf.index_path):
        return True
    if shelf.settings.badge and path in BADGE_PATHS:
        return True
    for base, subindex_derived in ((shelf.docs_root, index_is_derived(shelf)), (shelf.archive_docs_root, True)):
        rest = _split_under(path, normalize(base))
        if rest is None:
            continue
        if len(rest) == 2 and rest[0] in STANDARD_CATEGORIES and rest[1] == META_NAME:
            return True
        if len(rest) == 3 and rest[2] == SUBINDEX_NAME and subindex_derived and all(rest[:2]):
            return True
    return False
