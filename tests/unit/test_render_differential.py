"""Differential byte tests: our render against `memshelf rebuild` + the reference archive render.

Generated shelves (seeded, quirks on, archive present) in every link mode are copied twice; the
reference tools render one copy in their own virtualenv, `render_shelf` the other. Afterwards the
two trees must hold the same files with the same bytes — ledger.tsv, every `.meta.json` (presence
included), INDEX.md, archive/INDEX.md and the episodes themselves — except stats.svg, which is a
matplotlib drawing of ours by design.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from tests import refs
from tests.shelfgen import LINK_MODES, generate_shelf

SEEDS = (11, 23, 37)
NOT_COMPARED = {"stats.svg"}


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name not in NOT_COMPARED}


@pytest.fixture(scope="module")
def rendered_pairs(tmp_path_factory, ref_venv) -> dict[tuple[str, int], tuple[Path, Path]]:
    """(link mode, seed) -> (reference-rendered copy, our copy), reference runs batched."""
    base = tmp_path_factory.mktemp("differential")
    pairs = {}
    for mode in LINK_MODES:
        for seed in SEEDS:
            gen = base / f"{mode}-{seed}" / "generated"
            generate_shelf(gen, seed=seed, episodes=40, archive=6, quirks=True, link_mode=mode)
            theirs, ours = gen.parent / "theirs", gen.parent / "ours"
            shutil.copytree(gen, theirs, symlinks=True)
            shutil.copytree(gen, ours, symlinks=True)
            pairs[(mode, seed)] = (theirs, ours)
    refs.render(theirs for theirs, _ in pairs.values())
    for _, ours in pairs.values():
        shelf, problems = load_shelf(ours)
        assert shelf is not None, problems
        render_shelf(shelf)
    return pairs


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", LINK_MODES)
def test_derived_files_are_byte_identical_to_the_reference(rendered_pairs, mode, seed):
    theirs, ours = rendered_pairs[(mode, seed)]
    want, got = _tree(theirs), _tree(ours)
    assert sorted(got) == sorted(want)
    differing = [path for path in want if want[path] != got[path]]
    assert differing == []
    derived = [p for p in want if p.endswith((".meta.json", "INDEX.md", "ledger.tsv"))]
    assert {"ledger.tsv", "INDEX.md", "archive/INDEX.md"} <= set(derived)
    assert any(p.startswith("archive/docs/") and p.endswith(".meta.json") for p in derived)


@pytest.mark.slow
@pytest.mark.parametrize("mode", LINK_MODES)
def test_reference_check_agrees_after_our_render(rendered_pairs, mode):
    """`memshelf rebuild --check` on our output reports no drift."""
    _, ours = rendered_pairs[(mode, SEEDS[0])]
    result = refs.memshelf_rebuild(ours, check=True)
    assert (result["exit"], result["drifted"]) == (0, [])
