"""`/shelf resolve`: settle a pull request's conflicts with its base by regeneration, in one commit
GitHub makes.

The merge is computed in a throwaway clone, never in the workspace, and nothing from the pull
request is executed (no hooks, no signing). The PR's head and base branches are fetched with their
history, the base is merged into the head (`--no-commit`), and the core resolve regenerates every
derived path (the archive's included) from the merged episodes and unions `recall-log.tsv`. Derived
files stay at the base's version when the branch leaves them to the base, and also when it carries
regenerated ones and the base's `restore_derived` is on (the default), so the pull request touches
only episodes; with `restore_derived: false` a branch that carries them gets them fresh. The clone
never commits: the merged tree's difference from the head's (paths, modes, deletions) goes through
the port as one commit with the head and the base as parents, no explicit author, so GitHub signs
it, and the branch is fast-forwarded to it, never forced. A branch someone pushed to meanwhile
starts the work again from its new head (a bounded number of times); a protected branch, a ruleset
(GH013) or a read-only token is named in the reply. A conflict only a human can settle (an episode,
a config file) means nothing is committed; a fork's branch is refused, since the job's token cannot
write to another repository.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from memshelf_render.check import repo_path, shelf_relative
from memshelf_render.derived import is_derived
from memshelf_render.resolve import GitError as ResolveGitError
from memshelf_render.resolve import ResolveResult, ShelfConfigError, resolve
from memshelf_render.shelf import Shelf, load_shelf

from ..gitlocal import EOO, GitFailed, LocalRepo
from ..job import Job
from ..port import FileMode, FilesCommit, PortError, PullRequest, PullState, Reason, RefUpdate
from .pull_request import base_settings

MAX_ATTEMPTS = 3
GITLINK, DELETED = "160000", "000000"
REFUSED_UPDATES = {
    RefUpdate.PROTECTED: "a branch protection rule on {branch} refused the update",
    RefUpdate.RULESET: "a repository ruleset on {branch} refused the update (GH013)",
    RefUpdate.READ_ONLY: "the token may not write to {branch} (read-only)",
}


class SettlementOutcome(StrEnum):
    READY = "ready"  # a commit to make (within `settle` only)
    COMMITTED = "committed"
    UP_TO_DATE = "up-to-date"
    NEEDS_HUMAN = "needs-human"
    REFUSED = "refused"
    FAILED = "failed"


@dataclass
class Settlement:
    """How a resolve request ended, and what the reply needs to say about it."""

    outcome: SettlementOutcome
    head: str = ""  # the PR head the merge was built on
    base: str = ""  # the base commit merged in
    commit: str = ""  # the commit the branch now points at
    result: ResolveResult | None = None
    reason: str = ""  # refused / failed: why
    carries_derived: bool = False
    merged: bool = False  # the base was merged in (else the head already held it: derived files only)
    attempts: int = 0
    keeps_base_derived: bool = True  # derived files stay at the base's version (else: regenerated)
    restored: list[str] = field(default_factory=list)  # derived paths kept at the base's version
    change: FilesCommit | None = None  # ready: the commit to make


@contextmanager
def _clone(job: Job) -> Iterator[LocalRepo]:
    clone = LocalRepo.throwaway(job.workspace.remote_url, job.workspace.token)
    try:
        yield clone
    finally:
        clone.close()


def settle(job: Job, pull: PullRequest, requested_by: str) -> Settlement:
    """Merge the base into the PR's branch with derived files settled, as one commit GitHub makes."""
    if pull.state is not PullState.OPEN:
        return Settlement(SettlementOutcome.REFUSED, reason="the pull request is closed")
    if pull.is_fork_of(job.full_name):
        return Settlement(SettlementOutcome.REFUSED, reason=(
            f"its branch lives in a fork ({pull.head_label}), and this "
            f"job's token can only write to {job.full_name}"))
    head_ref, base_ref = pull.head_ref, pull.base_ref
    attempt = 0
    while True:
        attempt += 1
        with _clone(job) as clone:
            settled = _attempt(job, clone, head_ref, base_ref, requested_by)
        settled.attempts = attempt
        if settled.outcome is not SettlementOutcome.READY:
            return settled
        assert settled.change is not None
        try:
            sha = job.port.create_commit(settled.change)
            moved = job.port.move_branch(head_ref, sha)
        except PortError as exc:
            if exc.reason not in (Reason.READ_ONLY, Reason.FORBIDDEN):
                raise
            return _failed(settled, f"the token may not write to {head_ref}: {exc.message}")
        if moved is RefUpdate.NON_FAST_FORWARD and attempt < MAX_ATTEMPTS:
            job.reporter.log(f"memshelf-bot: {head_ref} moved while resolving (attempt {attempt}); "
                             "starting again from its new head")
            continue
        if moved is RefUpdate.NON_FAST_FORWARD:
            return _failed(settled, f"{head_ref} kept moving while the bot resolved it ({attempt} attempts)")
        if moved is not RefUpdate.MOVED:
            return _failed(settled, REFUSED_UPDATES[moved].format(branch=head_ref))
        settled.commit, settled.outcome = sha, SettlementOutcome.COMMITTED
        return settled


def _failed(settled: Settlement, reason: str) -> Settlement:
    settled.outcome, settled.reason = SettlementOutcome.FAILED, reason
    return settled


def _message(base_ref: str, head_ref: str, requested_by: str, merged: bool, restored: bool) -> str:
    by = f"memshelf-bot on /shelf resolve (requested by {requested_by})"
    derived = (f"derived files kept at {base_ref}'s version (the bot renders them there after the merge)"
               if restored else "derived files regenerated from the merged episodes")
    if merged:
        return f"Merge {base_ref} into {head_ref}\n\nSettled by {by}: {derived}, recall-log.tsv unioned.\n"
    if restored:
        return (f"Restore derived files of {head_ref} to {base_ref}'s version\n\nBy {by}: {head_ref} already "
                f"contains {base_ref}; its {derived}.\n")
    return (f"Regenerate the derived files of {head_ref}\n\nBy {by}: {head_ref} already contains {base_ref}; "
            "its derived files follow its episodes.\n")


def _attempt(job: Job, clone: LocalRepo, head_ref: str, base_ref: str, requested_by: str) -> Settlement:
    """One try in a fresh clone: `ready` with the commit to make, or how it ended."""
    try:
        shas = clone.fetch_branches(head_ref, base_ref)
    except GitFailed as exc:
        return Settlement(SettlementOutcome.FAILED, reason=f"could not fetch {head_ref} and {base_ref}: {exc}")
    head, base = shas[head_ref], shas[base_ref]
    clone.git("checkout", "--quiet", "--detach", head)
    prefix = job.prefix
    root = clone.path / job.workspace.shelf_path
    shelf, _ = load_shelf(root)
    carries = _carries_derived(clone, shelf, prefix, head, base)
    merge = clone.run("merge", "--no-ff", "--no-commit", "--no-verify", EOO, base)
    if merge.returncode not in (0, 1):
        return Settlement(SettlementOutcome.FAILED, head, base, reason=f"git merge failed: {clone.error_text(merge)}")
    in_merge = clone.run("rev-parse", "-q", "--verify", "MERGE_HEAD").returncode == 0
    if not in_merge and not carries:
        return Settlement(SettlementOutcome.UP_TO_DATE, head, base)
    try:
        result = resolve(root, commit=False)
    except ShelfConfigError as exc:
        return Settlement(SettlementOutcome.FAILED, head, base, reason=f"the merged shelf does not load: {exc}")
    except ResolveGitError as exc:
        return Settlement(SettlementOutcome.FAILED, head, base, reason=f"git failed while resolving: {exc}")
    settled = Settlement(SettlementOutcome.NEEDS_HUMAN, head, base, result=result, carries_derived=carries,
                         merged=in_merge)
    if result.unresolved:
        return settled
    settled.keeps_base_derived = keeps_base = not carries or _restores_derived(job, base, base_ref)
    if not keeps_base and not in_merge and result.regenerated:
        clone.git("add", "-A", "--", *[repo_path(p, prefix) for p in result.regenerated])
    if keeps_base:
        settled.restored = _keep_base_derived(clone, prefix, base)
    try:
        files, modes = _difference(clone, head, clone.git("write-tree").strip())
    except _Gitlink as exc:
        return _failed(settled, f"{exc.path} is a submodule (a gitlink), which the bot never writes")
    if not in_merge and not files:
        settled.outcome = SettlementOutcome.UP_TO_DATE
        return settled
    message = _message(base_ref, head_ref, requested_by, in_merge, bool(settled.restored))
    settled.change = FilesCommit(head, message, files, modes, merged=(base,) if in_merge else ())
    settled.outcome = SettlementOutcome.READY
    return settled


def _restores_derived(job: Job, base: str, base_ref: str) -> bool:
    """The base's `restore_derived` (a branch cannot opt itself out)."""
    return job.workspace.apply(base_settings(job, base, base_ref)).restore_derived


class _Gitlink(Exception):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def _difference(clone: LocalRepo, head: str, tree: str) -> tuple[dict[str, bytes | None], dict[str, FileMode]]:
    """What `tree` changes from `head`'s tree: the bytes (None: deleted) and the mode of each
    path that is not a plain file; a submodule on either side raises `_Gitlink`."""
    fields = clone.git("diff-tree", "-r", "-z", "--raw", "--no-renames", EOO, head, tree).split("\0")
    files: dict[str, bytes | None] = {}
    modes: dict[str, FileMode] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        old_mode, new_mode, _, new_sha, _ = meta.lstrip(":").split(" ")
        if GITLINK in (old_mode, new_mode):
            raise _Gitlink(path)
        if new_mode == DELETED:
            files[path] = None
            continue
        files[path] = clone.run("cat-file", "blob", new_sha).stdout
        if new_mode != FileMode.FILE:
            modes[path] = FileMode(new_mode)
    return files, modes


def _changed(clone: LocalRepo, old: str, new: str) -> list[str]:
    listing = clone.git("diff", "--name-only", "-z", "--no-renames", EOO, old, new)
    return [p for p in listing.split("\0") if p]


def _carries_derived(clone: LocalRepo, shelf: Shelf | None, prefix: str, head: str, base: str) -> bool:
    """Whether the branch changes derived files itself (since it left the base)."""
    if shelf is None:
        return False
    fork_point = clone.run("merge-base", EOO, head, base).stdout.decode().strip()
    if not fork_point:
        return False
    return any(not rel.startswith("../") and is_derived(rel, shelf)
               for rel in (shelf_relative(p, prefix) for p in _changed(clone, fork_point, head)))


def _keep_base_derived(clone: LocalRepo, prefix: str, base: str) -> list[str]:
    """Put every staged derived path back to the base's version; the paths restored."""
    root = clone.path / prefix if prefix else clone.path
    shelf, _ = load_shelf(root)
    if shelf is None:
        return []
    staged = clone.git("diff", "--cached", "--name-only", "-z", "--no-renames", base).split("\0")
    restored = [p for p in staged if p and not shelf_relative(p, prefix).startswith("../")
                and is_derived(shelf_relative(p, prefix), shelf)]
    for path in restored:
        if clone.run("cat-file", "-e", f"{base}:{path}").returncode == 0:
            clone.git("checkout", base, "--", path)
        else:
            clone.git("rm", "--quiet", "--force", "--ignore-unmatch", "--", path)
            Path(clone.path, path).unlink(missing_ok=True)
    return restored
