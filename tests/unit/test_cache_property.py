"""The cache changes nothing: over random edits, output with the cache is output without it.

Each example generates a small shelf and applies a random sequence of edits (add, modify,
delete, rename an episode; a secret, markup or a tab in a row value; change POLICY.patterns or
.memshelf-bot.yml); after every edit the validate JSON, the rows, every derived text file and
what render neutralised, computed through the (by then warm) cache of rows and rendered pieces,
equal those computed without it, byte for byte; at the end a whole render, stats.svg included.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memshelf_render import parallel
from memshelf_render.cache import EpisodeCache
from memshelf_render.records import Collecting
from memshelf_render.render import plan, render_shelf
from memshelf_render.render.cells import CellGuard
from memshelf_render.render.pieces import Pieces
from memshelf_render.report import emit
from memshelf_render.shelf import load_shelf
from memshelf_render.validate import run as validate
from tests.shelfgen import generate_shelf

# patterns that match what the generator writes (and what "modify" adds), so findings and masks move
POLICY_ADDED = ("later\\s+note\\s+\\d+", "\\b[Tt]he\\b", "[0-9]{4}-[0-9]{2}")
EDITS = ("add", "modify", "digest", "delete", "rename", "policy", "settings", "frontmatter", "hostile")
GHP = "ghp_" + "Q7w" * 12


def _episodes(root: Path) -> list[Path]:
    return sorted(p for p in (root / "docs").rglob("*.md") if p.parent.name in ("topics", "research", "sessions"))


def _edit(root: Path, kind: str, pick: int, n: int) -> None:
    eps = _episodes(root)
    target = eps[pick % len(eps)]
    text = target.read_text(encoding="utf-8")
    if kind == "add":
        new = target.with_name(f"2031-01-{n % 28 + 1:02d}-added-{n}.md")
        new.write_text(text.replace(f"id: {target.stem}", f"id: {new.stem}", 1), encoding="utf-8")
    elif kind == "modify":
        target.write_text(text + f"\nA later note {n} token_{n}.\n", encoding="utf-8")
    elif kind == "digest":
        target.write_text(text.replace("## Digest\n", f"## Digest\n\nWords added {n} AKIAIOSFODNN7EXAMPLE.\n", 1),
                          encoding="utf-8")
    elif kind == "frontmatter":
        target.write_text(text.replace("\n---\n", f"\ndisplay_title: Renamed {n}\n---\n", 1), encoding="utf-8")
    elif kind == "hostile":  # what the guard masks, escapes and flattens, in the values a row shows
        target.write_text(text.replace("\n---\n", f'\ndisplay_title: "<b>Key</b> {GHP} {n}"\n'
                                       f'notes: "one\\ttwo {n}"\n---\n', 1), encoding="utf-8")
    elif kind == "delete" and len(eps) > 2:
        target.unlink()
    elif kind == "rename":
        target.rename(target.parent.parent / ("research" if target.parent.name != "research" else "topics")
                      / target.name)
    elif kind == "policy":
        with open(root / "POLICY.patterns", "a", encoding="utf-8") as fh:
            fh.write(f"later-{n} {POLICY_ADDED[n % len(POLICY_ADDED)]}\n")
    elif kind == "settings":
        (root / ".memshelf-bot.yml").write_text(f"max_episode_bytes: {[4000, 9000, 1048576][n % 3]}\n"
                                                f"context_window: {100000 + n}\n", encoding="utf-8")


def _validate_json(root: Path, cache: EpisodeCache | None) -> str:
    out = io.StringIO()
    emit(validate(root, cache=cache), "json", out)
    return out.getvalue()


def _text_files(root: Path, cache: EpisodeCache | None) -> tuple:
    """Rows and the derived text files; with a cache, both the rows and the rendered pieces
    come from it. What the guard neutralised is part of the answer."""
    shelf, _ = load_shelf(root)
    assert shelf is not None
    records, skipped = Collecting(shelf, cache=cache).result()
    guard = CellGuard.for_shelf(shelf)
    files, warnings = plan(shelf, records, draw_chart=False, guard=guard, pieces=Pieces.for_shelf(shelf, cache))
    return records, skipped, files, warnings, guard.report()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000),
       edits=st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 50)), min_size=1, max_size=5),
       forked=st.booleans())
@example(seed=3, edits=[("policy", 1), ("modify", 2)], forked=False)
@example(seed=4, edits=[("settings", 0), ("rename", 1)], forked=True)
def test_cached_output_is_the_uncached_output(tmp_path_factory, monkeypatch, seed, edits, forked):
    base = tmp_path_factory.mktemp("cacheprop")
    root = base / "shelf"
    generate_shelf(root, seed=seed, episodes=6, archive=2, quirks=True)
    cache = EpisodeCache(base / "cache")
    if forked:  # the workers' path: forked shares that each go through the cache
        monkeypatch.setattr(parallel, "PARALLEL_FROM", 1)
        monkeypatch.setenv("MEMSHELF_BOT_JOBS", "2")
    _validate_json(root, cache)
    _text_files(root, cache)
    for n, (kind, pick) in enumerate(edits):
        _edit(root, kind, pick, n)
        assert _validate_json(root, cache) == _validate_json(root, None)
        assert _text_files(root, cache) == _text_files(root, None)
        assert cache.warning is None
    shelf, _ = load_shelf(root)
    cached = render_shelf(shelf, check=True, cache=cache)
    plain = render_shelf(load_shelf(root)[0], check=True)
    assert (cached.files, cached.neutralised) == (plain.files, plain.neutralised)
    assert json.loads(_validate_json(root, cache))["tool"] == "memshelf-bot"
