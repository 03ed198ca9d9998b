"""`resolve` against `memshelf resolve` 0.4.0 on copies of one real merge (black-box oracle).

Same merge, two copies of the repository: ours and the reference's resolve must leave the same
recall log and the same ledger, `.meta.json` files and INDEX.md. Where they differ on purpose
(archive conflicts, docs/reference.md §14.6) the test says so.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memshelf_render.resolve import RECALL_LOG, resolve
from tests import refs
from tests.shelfgen import generate_shelf
from tests.unit.test_resolve import (
    A_ARCHIVED,
    A_RECALLS,
    A_TOPIC,
    B_ARCHIVED,
    B_RECALLS,
    B_TOPIC,
    branch,
    init_repo,
    merge,
    render,
    topic,
)

COMPARED = ("ledger.tsv", "INDEX.md", "docs/topics/.meta.json", "docs/research/.meta.json",
            "docs/sessions/.meta.json", RECALL_LOG)


def merged_pair(tmp_path: Path, seed: int, *, archived: bool) -> tuple[Path, Path, list[str]]:
    root = tmp_path / "ours"
    generate_shelf(root, seed=seed, episodes=10, archive=3)
    render(root)
    init_repo(root)
    a = {A_TOPIC: topic("2026-02-01-cache-warmup", "Cache warmup")}
    b = {B_TOPIC: topic("2026-02-02-queue-retries", "Queue retries")}
    if archived:
        a[A_ARCHIVED] = topic("2026-02-03-old-proxy", "Old proxy")
        b[B_ARCHIVED] = topic("2026-02-04-old-cdn", "Old CDN")
    branch(root, root, "a", a, A_RECALLS)
    branch(root, root, "b", b, B_RECALLS)
    conflicted = merge(root, "a", "b")
    theirs = tmp_path / "reference"
    shutil.copytree(root, theirs, symlinks=True)
    return root, theirs, conflicted


@pytest.mark.parametrize("seed", [2, 9, 23])
def test_same_recall_log_and_derived_bytes_as_the_reference(ref_venv, tmp_path: Path, seed: int):
    ours, theirs, conflicted = merged_pair(tmp_path, seed, archived=False)
    assert {"ledger.tsv", RECALL_LOG} <= set(conflicted)

    result = resolve(ours)
    reference = refs.run_jobs([{"op": "resolve", "shelf": theirs}])[0]

    assert result.ok and reference["unresolved"] == []
    assert result.resolved == reference["resolved"] == [RECALL_LOG]
    for rel in COMPARED:
        mine, ref = ours / rel, theirs / rel
        assert mine.is_file() == ref.is_file(), rel
        if mine.is_file():
            assert mine.read_bytes() == ref.read_bytes(), rel


def test_archive_conflicts_are_regenerated_where_the_reference_gives_up(ref_venv, tmp_path: Path):
    ours, theirs, conflicted = merged_pair(tmp_path, 4, archived=True)
    assert "archive/INDEX.md" in conflicted

    result = resolve(ours)
    reference = refs.run_jobs([{"op": "resolve", "shelf": theirs}])[0]

    assert "archive/INDEX.md" in reference["unresolved"] and reference["exit"] == 1
    assert result.ok and "archive/INDEX.md" in result.regenerated
    assert (ours / RECALL_LOG).read_bytes() == (theirs / RECALL_LOG).read_bytes()
