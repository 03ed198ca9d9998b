"""`memshelf-bot resolve`: settle the mechanical conflicts of a shelf merge (docs/format.md §9).

Derived files are regenerated from the merged episodes, never text-merged. `recall-log.tsv` is
an append-only event log (not derived): it is three-way multiset-unioned, so rows appended on
both sides all survive. Every other conflict (an episode, shelf.yml and the other config files,
POLICY files, anything outside the shelf) is a human's; while one stands nothing derived is
written, so conflict markers never reach INDEX.md or the ledger.

Deliberate differences from the reference (docs/reference.md §10, §14.6):
- `archive/INDEX.md`, archive `.meta.json` and SUBINDEX.md conflicts are derived: regenerated.
- Exactly the derived paths and the recall log are staged (deletions included), never the whole
  `archive/` directory; the git index is touched only while conflicts or a merge are in progress,
  or with `--commit`. Outside a merge, `--commit` commits only those paths.
- Our validate replaces doctor. Its errors make the status `attention`, but the exit code answers
  "is the merge settled?": 0 settled (status `resolved` or `attention`), 1 a human must act (a
  conflict we may not settle, or a requested commit that could not be made), 2 config error.
  `--commit` completes a settled merge even when validate reports errors: they came in with the
  branches, and the shelf's own validate check reports them.
- Recall-log rows end at LF, CRLF or CR only; other Unicode line breaks stay inside their row.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .derived import is_derived
from .findings import Finding
from .guard import is_episode_path
from .render import render_shelf
from .render.archive import CONFIG_PATH as ARCHIVE_CONFIG
from .render.disk import on_disk, write_atomic
from .shelf import DOCSHELF, MANIFEST, RECALL_LOG, SETTINGS, Shelf, load_shelf

RECALL_HEADER = "episode_id\tsection\tfetched_tokens"
REGULAR_MODES = ("100644", "100755")
MARK_OURS, MARK_BASE, MARK_SPLIT, MARK_THEIRS = "<<<<<<<", "|||||||", "=======", ">>>>>>>"


# --- the recall log: three-way multiset union (pure) -----------------------------------------


def recall_rows(text: str | None) -> list[str]:
    """A recall log's rows: its non-blank lines other than the canonical header line."""
    if not text:
        return []
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [line for line in lines if line.strip() and line != RECALL_HEADER]


def row_identity(row: str) -> tuple[str, ...]:
    """Tab-split cells without trailing empty ones: `a⇥b⇥` and `a⇥b` are one row, `a⇥⇥b` is not."""
    cells = row.split("\t")
    while cells and not cells[-1]:
        cells.pop()
    return tuple(cells)


def union_recall_log(base: str | None, ours: str | None, theirs: str | None) -> str:
    """The merged log: each row as often as max(ours + theirs − base, ours, theirs) (no base:
    max(ours, theirs)), ours' rows first, then theirs', each spelled with its most tabs.

    A row appended on one side survives; rows both sides appended are kept twice (two sessions
    recalled the same thing); a row one side dropped is kept (the log is append-only).
    """
    ours_rows, theirs_rows = recall_rows(ours), recall_rows(theirs)
    n_base = Counter(map(row_identity, recall_rows(base)))
    n_ours = Counter(map(row_identity, ours_rows))
    n_theirs = Counter(map(row_identity, theirs_rows))
    spelling: dict[tuple[str, ...], str] = {}
    for row in ours_rows + theirs_rows:
        key = row_identity(row)
        if key not in spelling or row.count("\t") > spelling[key].count("\t"):
            spelling[key] = row
    emitted: Counter[tuple[str, ...]] = Counter()
    out = [RECALL_HEADER]
    for row in ours_rows + theirs_rows:
        key = row_identity(row)
        both = n_ours[key] + n_theirs[key] if base is None else n_ours[key] + n_theirs[key] - n_base[key]
        target = max(n_ours[key], n_theirs[key]) if base is None else max(both, n_ours[key], n_theirs[key])
        if emitted[key] < target:
            emitted[key] += 1
            out.append(spelling[key])
    return "\n".join(out) + "\n"


def split_conflict_markers(text: str) -> tuple[str, str] | None:
    """Ours and theirs of a text git wrote conflict markers into (diff3 base blocks dropped;
    lines outside a block belong to both), or None when no line opens or closes a block."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not any(line.startswith((MARK_OURS, MARK_THEIRS)) for line in lines):
        return None
    ours: list[str] = []
    theirs: list[str] = []
    side = "both"
    for line in lines:
        if line.startswith(MARK_OURS):
            side = "ours"
        elif line.startswith(MARK_BASE) and side == "ours":
            side = "base"
        elif line.startswith(MARK_SPLIT) and side in ("ours", "base"):
            side = "theirs"
        elif line.startswith(MARK_THEIRS):
            side = "both"
        else:
            if side in ("both", "ours"):
                ours.append(line)
            if side in ("both", "theirs"):
                theirs.append(line)
    return "\n".join(ours), "\n".join(theirs)


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


# --- git --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stage:
    mode: str
    sha: str


class GitError(Exception):
    """A git command failed; the message is git's own."""


class Repo:
    """The git work tree holding the shelf: paths go in and come out shelf-relative."""

    def __init__(self, root: Path, cdup: str, prefix: str) -> None:
        self.root = root
        self.top = root / cdup if cdup else root
        self.prefix = prefix  # the shelf's directory inside the work tree, '' or ending in '/'

    @classmethod
    def find(cls, root: Path) -> Repo | None:
        try:
            proc = subprocess.run(["git", "rev-parse", "--show-cdup", "--show-prefix"], cwd=root,
                                  capture_output=True, check=False)
        except OSError:
            return None
        lines = proc.stdout.decode("utf-8", errors="surrogateescape").split("\n")
        if proc.returncode or len(lines) < 2:
            return None
        return cls(root, lines[0], lines[1])

    def git(self, *args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess:
        proc = subprocess.run(["git", "--literal-pathspecs", *args], cwd=cwd or self.root, capture_output=True,
                              check=False)
        if check and proc.returncode:
            raise GitError(proc.stderr.decode("utf-8", errors="replace").strip() or f"git {args[0]} failed")
        return proc

    def in_merge(self) -> bool:
        return self.git("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0

    def relative(self, repo_path: str) -> str:
        """A work-tree path made shelf-relative (`../…` when it lies outside the shelf)."""
        if repo_path.startswith(self.prefix):
            return repo_path[len(self.prefix):]
        return "../" * self.prefix.count("/") + repo_path

    def conflicts(self) -> dict[str, dict[int, Stage]]:
        """Every unmerged path of the whole work tree -> its stages (1 base, 2 ours, 3 theirs)."""
        out = self.git("ls-files", "-u", "-z", cwd=self.top).stdout
        found: dict[str, dict[int, Stage]] = {}
        for entry in out.decode("utf-8", errors="surrogateescape").split("\0"):
            if not entry:
                continue
            meta, _, path = entry.partition("\t")
            mode, sha, stage = meta.split()
            found.setdefault(self.relative(path), {})[int(stage)] = Stage(mode, sha)
        return found

    def blob(self, sha: str) -> bytes:
        return self.git("cat-file", "blob", sha).stdout

    def stage(self, paths: list[str]) -> list[str]:
        """`git add -A` the paths git knows or would track (deletions too); ignored new files and
        paths absent everywhere are left out. Returns what was staged."""
        if not paths:
            return []
        listed = self.git("ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *paths).stdout
        known = set(listed.decode("utf-8", errors="surrogateescape").split("\0"))
        chosen = [p for p in paths if p in known]
        if chosen:
            self.git("add", "-A", "--", *chosen)
        return chosen

    def has_staged_changes(self, paths: list[str]) -> bool:
        return bool(paths) and self.git("diff", "--cached", "--quiet", "--", *paths, check=False).returncode == 1

    def commit(self, *args: str) -> str:
        self.git("commit", "-q", *args)
        return self.git("rev-parse", "HEAD").stdout.decode().strip()


# --- the result -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unresolved:
    path: str  # shelf-relative; `../…` for a path outside the shelf
    reason: str


@dataclass
class ResolveResult:
    """What resolve settled, regenerated, staged and left for a human; `ok` = settled."""

    in_merge: bool = False
    git: bool = False
    resolved: list[str] = field(default_factory=list)
    regenerated: list[str] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    staged: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    committed: bool = False
    commit: str | None = None
    commit_error: str | None = None
    validation: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.unresolved and self.commit_error is None

    @property
    def status(self) -> str:
        if not self.ok:
            return "needs-human"
        return "resolved" if self.validation.get("verdict") == "valid" else "attention"

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def as_dict(self) -> dict:
        """The stable `--format json` object."""
        return {
            "tool": "memshelf-bot",
            "version": __version__,
            "command": "resolve",
            "status": self.status,
            "ok": self.ok,
            "in_merge": self.in_merge,
            "git": self.git,
            "resolved": self.resolved,
            "regenerated": self.regenerated,
            "unresolved": [{"path": u.path, "reason": u.reason} for u in self.unresolved],
            "staged": self.staged,
            "notes": self.notes,
            "committed": self.committed,
            "commit": self.commit,
            "commit_error": self.commit_error,
            "validate": self.validation,
        }


class ShelfConfigError(Exception):
    """shelf.yml (or .memshelf-bot.yml) is missing or invalid, and not because of a conflict."""

    def __init__(self, problems: list[Finding]) -> None:
        super().__init__("; ".join(f.message for f in problems))
        self.problems = problems


# --- resolving --------------------------------------------------------------------------------


def _how(stages: dict[int, Stage]) -> str:
    present = set(stages)
    if present == {2, 3}:
        return "added on both sides with different content"
    if present == {1, 2, 3}:
        return "changed on both sides"
    if present == {1, 2}:
        return "changed in ours, deleted in theirs"
    if present == {1, 3}:
        return "deleted in ours, changed in theirs"
    return "conflicted"


def _human_reason(path: str, stages: dict[int, Stage], shelf: Shelf | None) -> str:
    """Why a conflicted path is a human's to settle."""
    how = _how(stages)
    if path.startswith("../"):
        return f"outside the shelf, {how}"
    if path in (MANIFEST, SETTINGS, DOCSHELF, ARCHIVE_CONFIG):
        return f"shelf configuration, {how}"
    if shelf is None:
        return f"{how}; whether it is derived is decided once {MANIFEST} is settled"
    if path in (shelf.policy_path, shelf.patterns_path):
        return f"policy file, {how}"
    if is_episode_path(shelf, path):
        return f"episode, {how}"
    return f"not a derived file, {how}"


def _union_recall_stages(repo: Repo, stages: dict[int, Stage]) -> bytes | None:
    """The union of the conflicted recall log's stages; None when a side is not a regular file."""
    if any(s.mode not in REGULAR_MODES for s in stages.values()):
        return None
    base, ours, theirs = (_text(repo.blob(stages[n].sha)) if n in stages else None for n in (1, 2, 3))
    return _bytes(union_recall_log(base, ours, theirs))


def _write_recall(root: Path, data: bytes) -> None:
    have = on_disk(root, RECALL_LOG)
    write_atomic(root, RECALL_LOG, data, have.mode if have.kind == "file" else 0o644)


def _settle_recall_log(root: Path, repo: Repo | None, stages: dict[int, Stage] | None,
                       result: ResolveResult) -> bool:
    """Union the recall log from its stages, or (not conflicted) from markers left in it.
    Returns whether the file was rewritten."""
    if stages is not None:
        assert repo is not None
        data = _union_recall_stages(repo, stages)
        if data is None:
            result.unresolved.append(Unresolved(RECALL_LOG, f"not a regular file on one side, {_how(stages)}"))
            return False
        _write_recall(root, data)
        result.resolved.append(RECALL_LOG)
        return True
    have = on_disk(root, RECALL_LOG)
    sides = split_conflict_markers(_text(have.data) or "") if have.kind == "file" else None
    if sides is None:
        return False
    _write_recall(root, _bytes(union_recall_log(None, *sides)))
    result.resolved.append(RECALL_LOG)
    result.notes.append(f"{RECALL_LOG} held conflict markers: its two sides were unioned")
    return True


def _regenerate(shelf: Shelf, conflicted: list[str], result: ResolveResult) -> list[str]:
    """Render every derived file; returns the paths to stage. A conflicted derived path the render
    could not settle stays conflicted (unresolved), so its markers are never staged."""
    render = render_shelf(shelf)
    skipped = dict(render.skipped)
    result.notes += render.warnings + [f"skipped {p}: {why}" for p, why in render.skipped]
    for path in conflicted:
        if path not in render.files or path in skipped:
            why = skipped.get(path, "the render produced no content for it")
            result.unresolved.append(Unresolved(path, f"derived, but could not be regenerated: {why}"))
    settled = [p for p in conflicted if p in render.files and p not in skipped]
    changed = set(render.written) | set(render.deleted) | set(settled)
    result.regenerated = [p for p in render.files if p in changed]
    return [p for p in render.files if p not in skipped]


def _validation(root: Path) -> dict:
    from .report.as_json import as_dict
    from .validate import run

    return as_dict(run(root))


def _commit(repo: Repo, shelf: Shelf | None, result: ResolveResult, had_conflicts: bool) -> None:
    try:
        if result.in_merge:
            result.commit = repo.commit("--no-edit")
        elif had_conflicts:
            result.commit_error = ("the conflicts come from a git operation other than a merge (a rebase, "
                                   "cherry-pick or stash): they are settled and staged; finish it with git")
            return
        elif repo.has_staged_changes(result.staged):
            assert shelf is not None
            result.commit = repo.commit("-m", shelf.settings.commit_message, "--", *result.staged)
        else:
            result.notes.append("nothing to commit: the derived files were already current")
            return
    except GitError as exc:
        result.commit_error = f"git commit failed: {exc}"
        return
    result.committed = True


def resolve(root: str | Path, *, commit: bool = False) -> ResolveResult:
    """Settle what can be settled mechanically, stage it, validate, and with `commit` complete
    the merge. Raises ShelfConfigError when the shelf does not load and shelf.yml is not
    conflicted (then there is nothing to settle, only a config error to report)."""
    root = Path(root)
    repo = Repo.find(root)
    result = ResolveResult(git=repo is not None, in_merge=repo is not None and repo.in_merge())
    conflicts = repo.conflicts() if repo else {}
    shelf, problems = load_shelf(root)
    if shelf is None and MANIFEST not in conflicts:
        raise ShelfConfigError(problems)
    staging = repo is not None and (result.in_merge or bool(conflicts) or commit)
    if commit and repo is None:
        result.commit_error = "not a git repository: nothing can be committed"

    to_stage: list[str] = []
    if _settle_recall_log(root, repo, conflicts.get(RECALL_LOG), result):
        to_stage.append(RECALL_LOG)
    conflicted_derived: list[str] = []
    for path, stages in conflicts.items():
        if path == RECALL_LOG:
            continue
        if shelf is not None and is_derived(path, shelf):
            conflicted_derived.append(path)
        else:
            result.unresolved.append(Unresolved(path, _human_reason(path, stages, shelf)))

    if result.unresolved:
        result.notes.append(f"derived files were not regenerated: {len(result.unresolved)} conflicted "
                            "path(s) need a human first; run resolve again after settling them")
    else:
        assert shelf is not None
        to_stage += _regenerate(shelf, conflicted_derived, result)
    if staging:
        assert repo is not None
        result.staged = repo.stage(list(dict.fromkeys(to_stage)))
    result.validation = _validation(root)
    if commit and repo is not None and not result.unresolved:
        _commit(repo, shelf, result, bool(conflicts))
    elif result.in_merge and not result.unresolved:
        result.notes.append("the merge is settled and staged: `git commit` (or resolve --commit) completes it")
    return result
