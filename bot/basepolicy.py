"""The policy that governs a pull request's check: the base branch's, never the PR's own.

A PR that could edit `POLICY.patterns` for its own check could delete the patterns that mask its
secrets in the bot's comment, or add a catastrophic regex that hangs CI. So the check reads the
policy files (and the shelf.yml names for them) from the base commit through the port, and the
rules run on a shelf whose policy reads come from there. The PR's own policy files are still
validated (their problems are findings), and apply once merged.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, fields

import yaml

from memshelf_render import yamlload
from memshelf_render.check import repo_path
from memshelf_render.shelf import Shelf

from .port import GitHubPort

MANIFEST = "shelf.yml"
DEFAULT_POLICY, DEFAULT_PATTERNS = "POLICY.md", "POLICY.patterns"


def _inside(rel: object, default: str) -> str:
    """A shelf-relative path shelf.yml names, or the default when it is not a plain inner path."""
    if not isinstance(rel, str) or not rel.strip():
        return default
    path = posixpath.normpath(rel.strip())
    return default if path.startswith(("/", "..")) or path == "." else path


@dataclass(frozen=True, slots=True)
class BasePolicy:
    policy_path: str
    patterns_path: str
    policy: bytes | None
    patterns: str | None

    @classmethod
    def read(cls, port: GitHubPort, base_sha: str, prefix: str) -> BasePolicy:
        """The base commit's policy files, where the base's shelf.yml names them."""
        raw = port.file_at(base_sha, repo_path(MANIFEST, prefix))
        try:
            manifest = yamlload.load(raw.decode("utf-8", errors="replace")) if raw else None
        except (yaml.YAMLError, yamlload.AliasError, RecursionError):
            manifest = None
        section = manifest.get("policy") if isinstance(manifest, dict) else None
        section = section if isinstance(section, dict) else {}
        policy_path = _inside(section.get("path"), DEFAULT_POLICY)
        patterns_path = _inside(section.get("patterns"), DEFAULT_PATTERNS)
        patterns = port.file_at(base_sha, repo_path(patterns_path, prefix))
        return cls(policy_path, patterns_path, port.file_at(base_sha, repo_path(policy_path, prefix)),
                   None if patterns is None else patterns.decode("utf-8", errors="replace"))

    def governed(self, shelf: Shelf) -> Shelf:
        """`shelf` (the PR's head) with its policy read from the base."""
        copied = {f.name: getattr(shelf, f.name) for f in fields(Shelf)}
        return GovernedShelf(**copied, base=self)


@dataclass
class GovernedShelf(Shelf):
    """A shelf whose policy files are the base branch's (see the module docstring)."""

    base: BasePolicy | None = field(default=None, repr=False)

    @property
    def policy_path(self) -> str:
        return self.base.policy_path if self.base else super().policy_path

    @property
    def patterns_path(self) -> str:
        return self.base.patterns_path if self.base else super().patterns_path

    def read_bytes(self, rel: str) -> bytes | None:
        if self.base is not None and rel == self.base.policy_path:
            return self.base.policy
        if self.base is not None and rel == self.base.patterns_path:
            return None if self.base.patterns is None else self.base.patterns.encode("utf-8")
        return super().read_bytes(rel)
