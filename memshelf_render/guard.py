"""The PR guard (docs/format.md §8): what a change may touch.

A PR may add or modify episodes. Derived paths are the bot's. Repository upkeep (UPKEEP, plus the
policy files shelf.yml names) passes, and a changed config file is validated rather than blocked;
`deny_paths` blocks even those; any other path, and any non-episode file among the episodes, needs
`allow_paths`. Removing an episode deletes memory (a warning); an added id that already exists on
the base is a collision; symlinks and submodules are never accepted. `classify` is pure and used
by the CLI (changes from `git diff`) and by the Action (changes from the PR's file list); the
config files it validates are read from the shelf it is given (the head's tree).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from .findings import Finding
from .paths import stem
from .redact import PolicyPack
from .shelf import ARCHIVE_DIR, MANIFEST, RECALL_LOG, SETTINGS, Shelf, load_settings, load_shelf

MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"
STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "C": "added", "T": "modified"}
# Paths every shelf repository keeps up besides its episodes: they pass the guard by default.
UPKEEP = (".github/**", "README*", "LICENSE*", SETTINGS, MANIFEST, "POLICY.*", RECALL_LOG)
# Repository-level upkeep still passes when the shelf is a sub-directory (its path is then '../…').
REPOSITORY_UPKEEP = (".github/**", "README*", "LICENSE*")


@dataclass(frozen=True, slots=True)
class Change:
    status: str  # added | modified | removed | renamed
    path: str  # shelf-relative (or outside the shelf: prefixed with '../')
    old_path: str | None = None
    mode: str | None = None  # git file mode on the head side, when known


@dataclass
class GuardResult:
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def changed_episodes(self) -> list[str]:
        return self.added + self.modified

    @property
    def ok(self) -> bool:
        return not any(f.severity.value == "error" for f in self.findings)

    def as_dict(self) -> dict:
        return {
            "ok": self.ok,
            "episodes": {"added": self.added, "modified": self.modified, "removed": self.removed},
            "derived": self.derived,
            "other": self.other,
            "allowed": self.allowed,
            "findings": [f.as_dict() for f in self.findings],
        }


def is_episode_path(shelf: Shelf, path: str) -> bool:
    """`<docs root>/<category>/<name>.md` or the same under the archive."""
    for base in (shelf.docs_root, shelf.archive_docs_root):
        prefix = base + "/"
        if path.startswith(prefix):
            rest = path[len(prefix):].split("/")
            return len(rest) == 2 and rest[1].endswith(".md") and rest[1] != "SUBINDEX.md" and not rest[0].startswith(".")
    return False


def _allowed(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    return any(fnmatch.fnmatchcase(path, p) or path.startswith(p.rstrip("/") + "/") for p in patterns)


def is_upkeep(shelf: Shelf, path: str) -> bool:
    """Repository upkeep: the UPKEEP paths and the policy files at the shelf root; outside a
    shelf that is a sub-directory, the repository's own (`../README.md`, `../.github/…`)."""
    if path.startswith("../"):
        outside = path
        while outside.startswith("../"):
            outside = outside[3:]
        return _allowed(outside, REPOSITORY_UPKEEP)
    return _allowed(path, UPKEEP) or path in (shelf.policy_path, shelf.patterns_path)


def config_findings(shelf: Shelf, path: str) -> list[Finding]:
    """A changed config file, validated as the bot would load it: each problem with its line."""
    if path == MANIFEST:
        _, problems = load_shelf(shelf.root)
        found = [(f.line, f.message) for f in problems if f.path == MANIFEST]
    elif path == SETTINGS:
        _, problems = load_settings(shelf.root)
        found = [(f.line, f.message) for f in problems]
    elif path == shelf.patterns_path:
        found = list(PolicyPack.parse(shelf.read_text(path)).problems)
    else:
        return []
    return [Finding("config-invalid", path, line, f"{path}: {message}") for line, message in found]


def classify(shelf: Shelf, changes: list[Change], *, base_ids: set[str], allow: list[str] | tuple[str, ...] = (),
             deny: list[str] | tuple[str, ...] | None = None, head: Shelf | None = None) -> GuardResult:
    """`deny` defaults to the shelf's `deny_paths` setting. A changed config file is validated as
    `head` has it (when `shelf` reads another branch's policy, the PR's own files are `head`'s)."""
    from .derived import is_derived

    deny = shelf.settings.deny_paths if deny is None else deny

    result = GuardResult()
    for ch in changes:
        if ch.status == "renamed" and ch.old_path:
            changes_here = [Change("removed", ch.old_path), Change("added", ch.path, mode=ch.mode)]
        else:
            changes_here = [ch]
        for c in changes_here:
            _classify_one(shelf, c, base_ids, allow, deny, result, is_derived, head or shelf)
    return result


def _classify_one(shelf, c: Change, base_ids, allow, deny, result: GuardResult, is_derived, head: Shelf) -> None:
    path = c.path
    if c.mode == MODE_SYMLINK and c.status != "removed":
        result.findings.append(Finding("symlink", path, None, "the change adds a symbolic link"))
        return
    if c.mode == MODE_SUBMODULE and c.status != "removed":
        result.findings.append(Finding("submodule", path, None, "the change adds a submodule"))
        return
    if is_derived(path, shelf):
        result.derived.append(path)
        result.findings.append(Finding("derived-path-touched", path, None,
                                       f"{path} is derived: the bot renders it on main ({c.status} here)"))
        return
    if is_episode_path(shelf, path):
        if c.status == "removed":
            result.removed.append(path)
            result.findings.append(Finding("episode-removed", path, None, f"episode {stem(path)} is removed"))
        elif c.status == "added":
            result.added.append(path)
            if stem(path) in base_ids:
                result.findings.append(Finding("id-collision", path, None,
                                               f"id '{stem(path)}' already exists on the base branch"))
        else:
            result.modified.append(path)
        return
    if _allowed(path, deny):
        result.other.append(path)
        result.findings.append(Finding("path-not-allowed", path, None, f"{path} is in deny_paths ({c.status})"))
        return
    if is_upkeep(shelf, path) or _allowed(path, allow):
        result.allowed.append(path)
        if c.status != "removed":
            result.findings.extend(config_findings(head, path))
        return
    result.other.append(path)
    among = any(path.startswith(root + "/") for root in (shelf.docs_root, ARCHIVE_DIR))
    message = (f"{path} is among the episodes but is not one, and not in allow_paths ({c.status})" if among
               else f"{path} is neither an episode nor in allow_paths ({c.status})")
    result.findings.append(Finding("path-not-allowed", path, None, message))


# --- the CLI front-end: changes from git ------------------------------------------------------


def _git(shelf: Shelf, *args: str) -> str:
    """git's output; every call that takes a user revision puts `--end-of-options` before it, so
    a revision such as `--output=FILE` is a revision (that does not exist), never an option.
    subprocess is imported here: validate and fix load this module for its path rules alone."""
    import subprocess

    return subprocess.run(["git", *args], cwd=shelf.root, capture_output=True, check=True).stdout.decode(
        "utf-8", errors="surrogateescape")


def git_changes(shelf: Shelf, base: str, head: str) -> list[Change]:
    """Changes in base...head (merge-base diff), shelf-relative, with head-side modes."""
    prefix = _git(shelf, "rev-parse", "--show-prefix").strip()
    raw = _git(shelf, "diff", "--raw", "-z", "--find-renames", "--no-abbrev", "--end-of-options",
               f"{base}...{head}", "--", ":/")
    fields = raw.split("\0")
    out: list[Change] = []
    i = 0
    while i < len(fields) - 1:
        meta = fields[i].lstrip(":").split()
        i += 1
        letter = meta[4][0]
        paths = [fields[i]]
        i += 1
        if letter in "RC":
            paths.append(fields[i])
            i += 1
        new_mode = meta[1]
        rel = [_relative(p, prefix) for p in paths]
        if letter == "R":
            out.append(Change("renamed", rel[1], old_path=rel[0], mode=new_mode))
        else:
            status = STATUS.get(letter, "modified")
            out.append(Change(status, rel[-1], mode=None if status == "removed" else new_mode))
    return out


def _relative(repo_path: str, prefix: str) -> str:
    if not prefix:
        return repo_path
    return repo_path[len(prefix):] if repo_path.startswith(prefix) else "../" * prefix.count("/") + repo_path


def base_episode_ids(shelf: Shelf, base: str) -> set[str]:
    roots = [shelf.docs_root, shelf.archive_docs_root]
    listing = _git(shelf, "ls-tree", "-r", "--name-only", "-z", "--end-of-options", base, "--", *roots)
    return {stem(p) for p in listing.split("\0") if is_episode_path(shelf, p)}
