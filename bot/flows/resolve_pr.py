"""`/shelf resolve`: settle a pull request's conflicts with its base by regeneration, then push.

Everything happens in a throwaway clone, never in the workspace, and nothing from the pull
request is executed (no hooks, no signing, the bot's identity set in the clone's own config).
The PR's head and base branches are fetched with their history, the base is merged into the head
(`--no-commit`), and the core resolve regenerates every derived path (the archive's included)
from the merged episodes and unions `recall-log.tsv`. A branch that carries rendered derived
files gets them fresh; a branch that leaves them to the base keeps the base's, so its pull
request still touches only episodes. The merge commit goes to the PR's branch with a plain
push: a fast-forward of the head it was built on, never a force, so a branch someone pushed to
meanwhile is never overwritten (the work starts again from the new head, a bounded number of
times). A conflict only a human can settle (an episode, a config file) means nothing is pushed;
a fork's branch is refused, since the job's token cannot write to another repository.
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
from ..port import PullRequest, PullState

MAX_ATTEMPTS = 3


class SettlementOutcome(StrEnum):
    READY = "ready"  # a commit to push (within `settle` only)
    PUSHED = "pushed"
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
    commit: str = ""  # the pushed commit
    result: ResolveResult | None = None
    reason: str = ""  # refused / failed: why
    carries_derived: bool = False
    merged: bool = False  # the base was merged in (else the head already held it: derived files only)
    attempts: int = 0
    restored: list[str] = field(default_factory=list)  # derived paths kept at the base's version


@contextmanager
def _clone(job: Job) -> Iterator[LocalRepo]:
    clone = LocalRepo.throwaway(job.workspace.remote_url, job.workspace.token)
    try:
        yield clone
    finally:
        clone.close()


def settle(job: Job, pull: PullRequest, requested_by: str) -> Settlement:
    """Merge the base into the PR's branch with derived files regenerated, and push it."""
    if pull.state is not PullState.OPEN:
        return Settlement(SettlementOutcome.REFUSED, reason="the pull request is closed")
    if pull.is_fork_of(job.full_name):
        return Settlement(SettlementOutcome.REFUSED, reason=(
            f"its branch lives in a fork ({pull.head_label}), and this "
            f"job's token can only push to {job.full_name}"))
    head_ref, base_ref = pull.head_ref, pull.base_ref
    attempt = 0
    while True:
        attempt += 1
        with _clone(job) as clone:
            settled = _attempt(job, clone, head_ref, base_ref, requested_by)
            settled.attempts = attempt
            if settled.outcome is not SettlementOutcome.READY:
                return settled
            try:
                clone.push(settled.commit, head_ref)
            except GitFailed as exc:
                if exc.moved and attempt < MAX_ATTEMPTS:
                    job.reporter.log(f"memshelf-bot: {head_ref} moved while resolving (attempt {attempt}); "
                                     "starting again from its new head")
                    continue
                settled.outcome = SettlementOutcome.FAILED
                settled.reason = (f"{head_ref} kept moving while the bot resolved it ({attempt} attempts)"
                                  if exc.moved else f"the token may not push to {head_ref}: {exc}")
                return settled
            settled.outcome = SettlementOutcome.PUSHED
            return settled


def _message(base_ref: str, head_ref: str, requested_by: str, merged: bool) -> str:
    if not merged:
        return (f"Regenerate the derived files of {head_ref}\n\nBy memshelf-bot on /shelf resolve (requested by "
                f"{requested_by}): {head_ref} already contains {base_ref}; its derived files follow its episodes.\n")
    return (f"Merge {base_ref} into {head_ref}\n\nSettled by memshelf-bot on /shelf resolve (requested by "
            f"{requested_by}): derived files regenerated from the merged episodes, recall-log.tsv unioned.\n")


def _attempt(job: Job, clone: LocalRepo, head_ref: str, base_ref: str, requested_by: str) -> Settlement:
    """One try in a fresh clone: `ready` with the commit to push, or how it ended."""
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
    if carries and not in_merge and result.regenerated:
        clone.git("add", "-A", "--", *[repo_path(p, prefix) for p in result.regenerated])
    if not carries:
        settled.restored = _keep_base_derived(clone, prefix, base)
    if not in_merge and clone.run("diff", "--cached", "--quiet").returncode == 0:
        settled.outcome = SettlementOutcome.UP_TO_DATE
        return settled
    clone.git("commit", "--quiet", "--no-verify", "-m", _message(base_ref, head_ref, requested_by, in_merge))
    settled.commit = clone.git("rev-parse", "HEAD").strip()
    settled.outcome = SettlementOutcome.READY
    return settled


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
