"""Restoring the derived files an agent branch regenerated (`restore_derived`, on by default).

The reference tool's `memshelf shelve --publish` commits a regenerated INDEX.md, ledger.tsv,
`.meta.json` files and stats.svg next to each new episode, and the guard blocks derived paths in
a pull request: such a branch would always be red. So before the branch is checked, the bot puts
every derived path the branch changed back to the version its pull request is compared against
(the merge base with the base branch, so the path leaves the pull request's diff and a merge keeps
the base's own rendering), in one commit of its own through the port: Git Data API, no explicit
author, a fast-forward of the head it was built on and never a force. A branch that moved
meanwhile is left as it is (its own push starts its own run). The setting is read from the base
branch, so a branch cannot opt itself out.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from memshelf_render.check import shelf_relative
from memshelf_render.derived import is_derived
from memshelf_render.escape import terminal
from memshelf_render.shelf import Settings

from ..basepolicy import BasePolicy
from ..job import Job
from ..port import FilesCommit, FileStatus, PortError, Reason, RefUpdate
from ..report import markdown as md
from .pull_request import base_settings


class RestoreOutcome(StrEnum):
    RESTORED = "restored"
    NOTHING = "nothing-to-restore"
    OPTED_OUT = "opted-out"
    MOVED = "branch-moved"  # the branch moved while the bot worked: not restored, never forced
    REFUSED = "refused"  # the token may not write the branch (protected, a ruleset, read-only)


@dataclass(frozen=True, slots=True)
class Restoration:
    """How the restore ended; `head` is the branch's head to check from here on."""

    outcome: RestoreOutcome
    head: str
    paths: tuple[str, ...] = ()
    why: str = ""

    def action(self, branch: str, base: str) -> str | None:
        """The line the summary and sticky comment carry, or None when nothing happened."""
        if self.outcome is RestoreOutcome.RESTORED:
            return (f"Restored {len(self.paths)} derived file(s) this branch regenerated to {md.code(base)}'s "
                    f"version (commit {md.code(self.head[:12])} on {md.code(branch)}; the bot renders them on "
                    f"{md.code(base)} after the merge).")
        if self.outcome in (RestoreOutcome.MOVED, RestoreOutcome.REFUSED):
            return f"Derived files on {md.code(branch)} were not restored: {self.why}."
        return None


def message(branch: str, base: str, paths: tuple[str, ...]) -> str:
    listed = "\n".join(f"- {p}" for p in paths)
    return (f"Restore derived files of {branch} to {base}'s version\n\nBy memshelf-bot (restore_derived): the "
            f"derived files are rendered on {base} after the merge, so the branch keeps only its episodes.\n\n"
            f"{listed}\n")


def derived_changes(job: Job, head: str, base: str, settings: Settings) -> tuple[str, tuple[str, ...]]:
    """(merge base, the repository paths of derived files `head` changes since it left `base`),
    the shelf read with the base's `settings`."""
    comparison = job.port.compare(base, head)
    policy = BasePolicy.read(job.port, comparison.base_sha, job.prefix)  # the reporter masks with the base's
    with job.workspace.local.checkout_of(head) as (tree, _):
        shelf, _problems = job.load(tree, settings=settings, policy_text=policy.patterns)
        if shelf is None:
            return comparison.merge_base_sha, ()
        touched = [p for f in comparison.files
                   for p in (f.path, f.previous_path if f.status is FileStatus.RENAMED else None) if p]
        derived = tuple(dict.fromkeys(p for p in touched if not shelf_relative(p, job.prefix).startswith("../")
                                      and is_derived(shelf_relative(p, job.prefix), shelf)))
    return comparison.merge_base_sha, derived


def restore(job: Job, branch: str, head: str, base: str) -> Restoration:
    """Put the derived files `branch` (at `head`) changed back to `base`'s version, fast-forward only."""
    port = job.port
    base_sha = port.branch_sha(base)
    settings = base_settings(job, base_sha, base)
    if not job.workspace.apply(settings).restore_derived:
        return Restoration(RestoreOutcome.OPTED_OUT, head)
    merge_base, paths = derived_changes(job, head, base, settings)
    if not paths:
        return Restoration(RestoreOutcome.NOTHING, head)
    files = {path: port.file_at(merge_base, path) for path in paths}
    try:
        commit = port.create_commit(FilesCommit(head, message(branch, base, paths), files))
        moved = port.move_branch(branch, commit)
    except PortError as exc:
        if exc.reason not in (Reason.READ_ONLY, Reason.FORBIDDEN):
            raise
        return Restoration(RestoreOutcome.REFUSED, head, paths, "the token may not write to the branch")
    if moved is RefUpdate.NON_FAST_FORWARD:
        return Restoration(RestoreOutcome.MOVED, head, paths, "the branch moved while the bot worked (never forced)")
    if moved is not RefUpdate.MOVED:
        return Restoration(RestoreOutcome.REFUSED, head, paths, f"GitHub refused the update ({moved})")
    job.reporter.log(f"memshelf-bot: restored {len(paths)} derived file(s) to {base}'s version: "
                     + terminal(job.reporter.clean(", ".join(paths))))
    return Restoration(RestoreOutcome.RESTORED, commit, paths)
