"""A pull request's head, read without the episodes it leaves alone (the App's check, issue 22).

The door checks a pull request's head out without its files: a worktree of the repository's
blobless object store made with `--no-checkout`, so the store holds the head's commit and trees
and no blob yet. The check then writes what it reads (`fill`): the shelf's manifest first (it
says where the episodes live), then every file that is neither an episode nor a derived file
(settings, POLICY, shelf.yml, .docshelf.json, ...), the episodes the pull request changes and the
split documents (INDEX shows their size) — git fetches just those blobs, in one batch — and every
other episode and derived file as an empty stand-in, so discovery sees the head's whole layout and
the guard and the rules read what they always read.

What the stand-ins would give the standing-cost delta, their rows, comes without their bytes
(`head_rows`): from the episode cache, by the blob id the head's tree gives; else, for an episode
whose blob is the same on the base branch, from the base's ledger and `.meta.json` (each row
rebuilt and checked to render its line and its entry back exactly: `check.rows_from_derived`);
else the episode is fetched and parsed. So the numbers are those of a full read whenever the base
branch's derived files are what a render of the base gives, which the render flow keeps true on
the default branch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memshelf_render import paths
from memshelf_render.check import repo_path, rows_from_derived, shelf_relative
from memshelf_render.derived import META_NAME, is_derived
from memshelf_render.guard import is_episode_path
from memshelf_render.records import Record, cached_rows, gather, row_of
from memshelf_render.shelf import MANIFEST, Shelf, load_shelf

from ..gitlocal import LocalRepo
from ..job import Job
from .base_files import BaseFiles

REGULAR = ("100644", "100755")


@dataclass
class StandIns:
    """The episodes (and derived files) of a head written empty: shelf-relative path -> blob id."""

    commit: str
    blobs: dict[str, str]


def fill(local: LocalRepo, shelf_root: Path, commit: str, prefix: str, changed: set[str]) -> StandIns | None:
    """Write the files of `commit` a check reads into the checkout `local` made without them,
    the other episodes as empty stand-ins (`changed`: the pull request's repository paths).
    None when every file was written: the shelf has no manifest to say which are episodes, or
    a stand-in would lie past a link (git writes links; nothing is written through one)."""
    listed = local.files(commit, prefix)
    manifest = repo_path(MANIFEST, prefix)
    local.check_out(commit, [manifest] if manifest in listed else [])
    shelf, _ = load_shelf(shelf_root)
    if shelf is None:
        local.check_out(commit, list(listed))
        return None
    split = {folder for path in listed for folder in folders(shelf_relative(path, prefix))}
    wanted, empty = [], {}
    for path, (mode, oid) in listed.items():
        rel = shelf_relative(path, prefix)
        if mode in REGULAR and path not in changed and rel != MANIFEST and (
                (is_episode_path(shelf, rel) and rel[:-3] not in split) or is_derived(rel, shelf)):
            empty[rel] = oid
        else:
            wanted.append(path)
    local.check_out(commit, wanted)
    if any(paths.problem(shelf_root, rel) is not None for rel in empty):  # a link on the way: follow none
        local.check_out(commit, list(listed))
        return None
    for rel in empty:
        os.makedirs(os.path.dirname(shelf_root / rel), exist_ok=True)
        os.close(os.open(shelf_root / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
    return StandIns(commit, empty)


def folders(rel: str) -> list[str]:
    """Every directory `rel` lies in (each may be a split document's, next to its episode)."""
    parts = rel.split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def head_rows(job: Job, shelf: Shelf, stand_ins: StandIns, base: BaseFiles, base_blobs: dict[str, str],
              base_ledger: str) -> tuple[list[Record], list[tuple[str, str]]]:
    """The head's rows as `collect` gives them, the stand-ins' without their bytes where they
    can be had so (see the module's docstring); the rest parsed from their files."""
    prefix, local = job.prefix, job.workspace.local
    missing = {ref.path: ref for ref in shelf.layout.episodes if ref.path in stand_ins.blobs}
    rows = {} if job.cache is None else cached_rows(shelf, job.cache, {
        path: bytes.fromhex(stand_ins.blobs[path]) for path in missing})
    same = [ref for path, ref in missing.items() if path not in rows and base_blobs.get(path) == stand_ins.blobs[path]]
    if same:
        roots = {(ref.archived, ref.category) for ref in same}
        metas = {meta: base.text(meta) for meta in (
            f"{shelf.archive_docs_root if archived else shelf.docs_root}/{category}/{META_NAME}"
            for archived, category in sorted(roots))}
        rows.update(rows_from_derived(shelf, same, base_ledger, metas))
    unread = [path for path in missing if path not in rows]
    local.check_out(stand_ins.commit, [repo_path(path, prefix) for path in unread])  # over their stand-ins
    return gather(rows[ref.path] if ref.path in rows else row_of(shelf.parse_episode(ref, upto_digest=True))
                  for ref in shelf.layout.episodes)

