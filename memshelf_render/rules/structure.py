"""Shelf-wide checks: manifest profile, categories, stray files, links, split dirs, titles,
renderer config, policy, and duplicate ids across docs and archive."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..episode import Episode
from ..findings import Finding
from ..records import row_text, unrowed
from ..shelf import DOCSHELF, MANIFEST, STANDARD_CATEGORIES, Shelf
from ..text import humanize_stem
from .context import Context

PROVIDERS = ("github", "gitlab", "gitea", "custom", "none")
_SPLIT_SECTION = re.compile(r"(\d{3,})-.*\.md")


def manifest_checks(ctx: Context) -> Iterator[Finding]:
    shelf = ctx.shelf
    m = shelf.manifest
    if not shelf.is_memory:
        yield Finding("profile-unknown", MANIFEST, shelf.manifest_lines.get("profile"),
                      f"profile '{shelf.profile}': episode rules are skipped")
    if m.get("mode") == "multi" or "agents" in m or "provenance" in m:
        key = next(k for k in ("mode", "agents", "provenance") if k in m and (k != "mode" or m[k] == "multi"))
        yield Finding("reserved-mode", MANIFEST, shelf.manifest_lines.get(key), f"'{key}' is reserved for a later spec")
    for extra in shelf.extra_dirs:
        if not (shelf.root / extra).is_dir():
            yield Finding("extra-dir-missing", MANIFEST, shelf.manifest_lines.get("extra_dirs"),
                          f"extra dir '{extra}' does not exist")
    if not (shelf.root / shelf.docs_root).is_dir() or shelf.is_link(shelf.docs_root):
        yield Finding("docs-root-missing", MANIFEST, shelf.manifest_lines.get("docs_root"),
                      f"the docs root '{shelf.docs_root}/' is not a directory")


def config_checks(ctx: Context) -> Iterator[Finding]:
    shelf = ctx.shelf
    cfg = shelf.docshelf
    if shelf.docshelf_problem:
        yield Finding("docshelf-config-invalid", DOCSHELF, None, f".docshelf.json {shelf.docshelf_problem}")
        return
    if not cfg.present:
        return
    if cfg.provider not in PROVIDERS:
        yield Finding("docshelf-provider-unknown", DOCSHELF, None, f"provider '{cfg.provider}' is not one of {', '.join(PROVIDERS)}")
    elif cfg.provider == "custom" and not cfg.url_template.strip():
        yield Finding("docshelf-template-missing", DOCSHELF, None, "provider 'custom' needs a url_template")
    name = shelf.manifest.get("name")
    if isinstance(name, str) and cfg.name != name:
        yield Finding("docshelf-config-conflict", DOCSHELF, None,
                      f"name '{cfg.name}' differs from shelf.yml name '{name}'")
    declared = shelf.declared_categories
    if declared is not None:
        unknown = [c for c in cfg.category_order if c not in declared]
        if unknown:
            yield Finding("docshelf-config-conflict", DOCSHELF, None,
                          f"category_order lists undeclared categories: {', '.join(unknown)}")


def policy_checks(ctx: Context) -> Iterator[Finding]:
    shelf = ctx.shelf
    if shelf.read_bytes(shelf.policy_path) is None:
        yield Finding("policy-missing", shelf.policy_path, None, f"{shelf.policy_path} is missing")
    for line, problem in ctx.policy.problems:
        yield Finding("policy-pattern-invalid", shelf.patterns_path, line, problem)


def layout_checks(ctx: Context, only: set[str] | None = None) -> Iterator[Finding]:
    """Categories, stray files, links, submodules, split dirs. `only` limits the per-path
    checks to these paths (PR mode)."""
    shelf = ctx.shelf
    layout = shelf.layout
    declared = shelf.declared_categories

    def wanted(path: str) -> bool:
        return only is None or path in only or any(p.startswith(path + "/") for p in only)

    for path in layout.symlinks:
        if wanted(path):
            yield Finding("symlink", path, None, "symbolic link (not followed)")
    for path in layout.submodules + _gitmodules(shelf):
        if wanted(path):
            yield Finding("submodule", path, None, "a git submodule or nested repository")
    for path in layout.stray_files:
        if wanted(path):
            yield Finding("stray-file", path, None, f"Markdown file directly in '{shelf.docs_root}/', outside any category")
    for base, cats in ((shelf.docs_root, layout.categories), (shelf.archive_docs_root, layout.archive_categories)):
        for cat in cats:
            rel = f"{base}/{cat}"
            if not wanted(rel):
                continue
            if declared is not None and cat not in declared:
                yield Finding("category-undeclared", rel, None, f"category '{cat}' is not declared in shelf.yml")
            elif ctx.memory and cat not in STANDARD_CATEGORIES:
                yield Finding("category-unknown", rel, None,
                              f"'{cat}/' is not a memory category (topics, research, sessions)")
    if only is None and declared is not None:
        present = {ref.category for ref in layout.episodes if not ref.archived}
        for cat in declared:
            if cat not in present:
                yield Finding("category-empty", f"{shelf.docs_root}/{cat}", None, f"category '{cat}' has no episodes")
    episode_paths = {ref.path for ref in layout.episodes}
    for split in layout.split_dirs:
        if not wanted(split):
            continue
        if split + ".md" not in episode_paths:
            yield Finding("split-dir-orphaned", split, None, "directory without an episode of the same name")
        elif shelf.generated_by == "docshelf-mcp":
            problem = _split_problem(shelf, split)
            if problem:
                yield Finding("split-out-of-sync", split, None, problem)


def _gitmodules(shelf: Shelf) -> list[str]:
    text = shelf.read_text(".gitmodules")
    if not text:
        return []
    roots = (shelf.docs_root + "/", shelf.archive_docs_root + "/")
    paths = re.findall(r"^\s*path\s*=\s*(.+?)\s*$", text, re.MULTILINE)
    return [p for p in paths if p.startswith(roots) and p not in shelf.layout.submodules]


def _split_problem(shelf: Shelf, split: str) -> str | None:
    try:
        names = sorted(n for n in os.listdir(shelf.root / split) if n.endswith(".md") and n != "SUBINDEX.md")
    except OSError:
        return None
    numbers = []
    for name in names:
        m = _SPLIT_SECTION.fullmatch(name)
        if not m:
            return f"section file '{name}' is not named NNN-<name>.md"
        numbers.append(int(m.group(1)))
    if sorted(numbers) != list(range(1, len(numbers) + 1)):
        return "section files are not numbered contiguously from 001"
    return None


@dataclass(frozen=True, slots=True)
class Summary:
    """What the shelf-wide checks need from one episode; small enough to cross processes."""

    path: str
    stem: str
    category: str
    archived: bool
    id: str  # the frontmatter id as text, else the file stem
    id_line: int | None
    title: str  # the title INDEX will show
    title_line: int | None


def summarize(ep: Episode) -> Summary:
    raw = ep.get("id")
    usable = isinstance(raw, (str, int)) and not isinstance(raw, bool) and str(raw).strip()
    if unrowed(ep) is not None:
        title = humanize_stem(ep.stem)
    else:  # as the row gives it, without building the row
        title = row_text(ep, "display_title") or (row_text(ep, "id") if row_text(ep, "description")
                                                  else humanize_stem(ep.stem))
    return Summary(ep.path, ep.stem, ep.category, ep.archived, str(raw) if usable else ep.stem,
                   ep.line_of("id"), title, ep.line_of("display_title"))


def title_checks(summaries: Iterable[Summary]) -> Iterator[Finding]:
    """Two docs episodes of one category with the same INDEX title (trimmed, lowercased)."""
    seen: dict[tuple[str, str], str] = {}
    for s in sorted(summaries, key=lambda s: s.path):
        if s.archived:
            continue
        key = (s.category, s.title.strip().lower())
        if key in seen:
            yield Finding("duplicate-title", s.path, s.title_line, f"same INDEX title '{s.title.strip()}' as {seen[key]}")
        else:
            seen[key] = s.path


def duplicate_ids(summaries: Iterable[Summary], other_stems: dict[str, list[str]] | None = None) -> Iterator[Finding]:
    """The same id in two files. Checked episodes count by frontmatter id (else stem);
    `other_stems` (id -> paths) adds files that were not parsed (PR mode)."""
    owners: dict[str, list[tuple[str, int | None]]] = {}
    for s in summaries:
        owners.setdefault(s.id, []).append((s.path, s.id_line))
    parsed = {path for entries in owners.values() for path, _ in entries}
    for eid, paths in (other_stems or {}).items():
        if eid in owners:
            owners[eid].extend((p, None) for p in paths if p not in parsed)
    for eid, entries in owners.items():
        if len(entries) < 2:
            continue
        for path, line in entries:
            if other_stems is not None and path not in parsed:
                continue
            others = ", ".join(p for p, _ in entries if p != path)
            yield Finding("duplicate-id", path, line, f"id '{eid}' is also used by {others}")
