"""No stale writes, in-process: of two runs for one pull request that finish out of order, the
older (its head already superseded) writes nothing — no comment, status, label, check run — and
the newer verdict stands."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot.flows import open_pr, pull_request
from bot.port import StatusState
from tests.action_harness import episode
from tests.fakegh import World, ran

NAS = "docs/topics/2026-09-23-nas.md"
WRITES = ("create_comment", "edit_comment", "delete_comment", "set_status", "add_labels", "remove_label",
          "ensure_label", "create_check_run", "update_check_run", "review", "update_pull")


def test_the_older_pull_request_run_finishing_last_writes_nothing(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    broken = episode("2026-09-23-nas").replace("tags: [homelab]\n", "")
    world.commit("night-shift/nas", {NAS: broken}, base="main")
    older = world.gh.add_pull("night-shift/nas")
    older_event = world.pr_event(older)
    world.commit("night-shift/nas", {NAS: episode("2026-09-23-nas")})
    newer = world.gh.pull(older.number)
    assert newer.head_sha != older.head_sha
    assert ran(pull_request.run, world.job(world.pr_event(newer, action="synchronize"), comment="always")) == 0
    [comment] = world.gh.comments_on[older.number]
    world.gh.calls.clear()
    job = world.job(older_event, comment="always")
    assert ran(pull_request.run, job) == 1  # its own verdict, as its exit status
    assert not world.gh.ops(*WRITES) and world.gh.comments_on[older.number] == [comment]
    assert "its head moved from" in job.reporter.summary_text()
    assert "no stale writes" in world.out.getvalue()


def test_an_agent_push_superseded_before_it_publishes_leaves_status_and_labels_alone(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    first = world.commit("night-shift/nas", {NAS: episode("2026-09-23-nas")}, base="main")
    assert ran(open_pr.run, world.job(world.push_event("night-shift/nas", "0" * 40, first)), "night-shift/nas") == 0
    second = world.commit("night-shift/nas", {NAS: episode("2026-09-23-nas", title="NAS")})
    third = world.commit("night-shift/nas", {NAS: episode("2026-09-23-nas", title="NAS again")})
    assert ran(open_pr.run, world.job(world.push_event("night-shift/nas", second, third)), "night-shift/nas") == 0
    statuses = list(world.gh.statuses)
    world.gh.calls.clear()
    late = world.job(world.push_event("night-shift/nas", first, second))
    assert ran(open_pr.run, late, "night-shift/nas") == 0
    assert world.gh.statuses == statuses and statuses[-1][0] == third
    assert statuses[-1][1].state is StatusState.SUCCESS
    assert not world.gh.ops("set_status", "add_labels", "remove_label", "create_comment", "edit_comment")


def test_a_head_github_has_not_yet_moved_to_this_runs_own_commit_is_not_stale(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    first = world.commit("night-shift/nas", {NAS: episode("2026-09-23-nas")}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    own = world.commit("night-shift/nas", {NAS: episode("2026-09-23-nas", title="NAS")})  # e.g. the bot's fix
    world.gh.pull = lambda number: replace(pull, head_sha=first)  # type: ignore[method-assign]
    job = world.job(world.pr_event(replace(pull, head_sha=own), action="synchronize"), comment="always")
    assert ran(pull_request.run, job) == 0
    [(_, (number, body))] = world.gh.ops("create_comment")
    assert number == pull.number and own[:12] in body
    assert "its head moved from" not in job.reporter.summary_text()
