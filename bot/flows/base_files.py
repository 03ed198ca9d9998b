"""The base branch's files a pull request's check reads: its episodes (ids and blob ids), its
INDEX, ledger and `.meta.json`. Through the API (`port`); or, in the App, whose checkout is a
worktree of the repository's object store, through git from that store (`local`): the base's
commit and trees come as deltas against the head's, the few blobs read come compressed, and the
store keeps them for the next check of the same base (the API's base64 JSON of a big shelf's
tree and INDEX costs more than a shallow clone)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memshelf_render.check import repo_path, shelf_relative
from memshelf_render.guard import is_episode_path
from memshelf_render.shelf import Shelf

from ..gitlocal import LocalRepo
from ..port import EntryType, GitHubPort

SUBMODULE = "160000"


@dataclass
class BaseFiles:
    port: GitHubPort
    commit: str
    prefix: str
    local: LocalRepo | None = None  # read through git (the App's store) when given
    _listed: dict[str, tuple[str, str]] | None = field(default=None, init=False, repr=False)

    def _listing(self) -> dict[str, tuple[str, str]]:
        assert self.local is not None
        if self._listed is None:
            self.local.fetch(self.commit)
            self._listed = self.local.files(self.commit, self.prefix)
        return self._listed

    def episodes(self, shelf: Shelf) -> dict[str, str]:
        """Every episode on the base, docs and archive: shelf-relative path -> blob id (its id
        is the file stem)."""
        found = {}
        if self.local is not None:
            for path, (mode, oid) in self._listing().items():
                rel = shelf_relative(path, self.prefix)
                if mode != SUBMODULE and is_episode_path(shelf, rel):  # the API's blobs: files and links
                    found[rel] = oid
            return found
        for root in (shelf.docs_root, shelf.archive_docs_root):
            for item in self.port.tree(self.commit, repo_path(root, self.prefix), recursive=True) or ():
                rel = f"{root}/{item.path}"
                if item.type is EntryType.BLOB and is_episode_path(shelf, rel):
                    found[rel] = item.sha
        return found

    def text(self, rel: str) -> str | None:
        """A shelf file's text on the base (None when absent), undecodable bytes replaced."""
        path = repo_path(rel, self.prefix)
        if self.local is not None:
            listed = self._listing().get(path)
            data = None if listed is None else self.local.read_blob(listed[1])
        else:
            data = self.port.file_at(self.commit, path)
        return None if data is None else data.decode("utf-8", errors="replace")
