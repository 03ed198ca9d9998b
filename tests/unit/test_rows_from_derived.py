"""Rows rebuilt from a rendered shelf's own ledger and `.meta.json` (what the App's pull-request
check takes for the episodes it does not fetch) render exactly the derived files the parsed rows
render; a row whose line or entry does not round-trip is left out, for the caller to parse."""

from __future__ import annotations

from pathlib import Path

import pytest

from memshelf_render.check import rows_from_derived
from memshelf_render.derived import meta_paths
from memshelf_render.records import collect, gather, row_of
from memshelf_render.render import plan, render_shelf
from memshelf_render.shelf import Shelf, load_shelf
from tests.shelfgen import generate_shelf


def rendered(tmp_path: Path, seed: int, quirks: bool) -> Shelf:
    root = generate_shelf(tmp_path / "shelf", seed=seed, episodes=120, archive=12, quirks=quirks).root
    shelf, problems = load_shelf(root)
    assert shelf is not None, problems
    render_shelf(shelf)
    shelf, _ = load_shelf(root)
    assert shelf is not None
    return shelf


def metas_of(shelf: Shelf) -> dict[str, str | None]:
    return {path: shelf.read_text(path) for archived in (False, True) for path in meta_paths(shelf, archived=archived)}


@pytest.mark.parametrize(("seed", "quirks"), [(3, False), (4, True)])
def test_rebuilt_rows_render_the_files_parsed_rows_render(tmp_path: Path, seed: int, quirks: bool) -> None:
    shelf = rendered(tmp_path, seed, quirks)
    refs = shelf.layout.episodes
    rebuilt = rows_from_derived(shelf, refs, shelf.read_text(shelf.ledger_path) or "", metas_of(shelf))
    assert len(rebuilt) >= 0.9 * len(refs), (len(rebuilt), len(refs))
    records, _ = gather(rebuilt[ep.path] if ep.path in rebuilt else row_of(ep) for ep in shelf.episodes)
    parsed, _ = collect(shelf.episodes)
    assert plan(shelf, records, badge=False, draw_chart=False) == plan(shelf, parsed, badge=False, draw_chart=False)


def test_a_row_that_does_not_round_trip_is_left_to_be_parsed(tmp_path: Path) -> None:
    shelf = rendered(tmp_path, 5, False)
    ledger = (shelf.read_text(shelf.ledger_path) or "").split("\n")
    refs = {ref.path.rsplit("/", 1)[-1][:-3]: ref for ref in shelf.layout.episodes}
    padded, doubled = ledger[1].split("\t"), ledger[2].split("\t")
    padded[4] = "0" + padded[4]  # a count no render writes
    ledger[1] = "\t".join(padded)
    ledger.append(ledger[2])  # two lines for one id
    metas = metas_of(shelf)
    broken = next(path for path, text in metas.items() if text)
    metas[broken] = "[]"  # not the shape of a .meta.json
    rebuilt = rows_from_derived(shelf, shelf.layout.episodes, "\n".join(ledger), metas)
    assert refs[padded[1]].path not in rebuilt and refs[doubled[1]].path not in rebuilt
    under = broken.rsplit("/", 1)[0] + "/"
    assert not [path for path in rebuilt if path.startswith(under)]
    assert len(rebuilt) > len(shelf.layout.episodes) // 2
