"""The pull-request flow's decisions, in-process against the recording fake of the port: the
verdict, the sticky comment (the bot's own only), fork and read-only tokens, the file cap, the
policy and settings of the base branch, and hostile names in every channel."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.flows import pull_request
from bot.port import Reason
from bot.report.comment import marker
from memshelf_sandbox.actionrun import parse_commands
from tests.action_harness import episode
from tests.fakegh import World, ran

GOOD = "docs/topics/2026-09-22-ups-runtime.md"
BAD = "docs/topics/2026-09-23-nas.md"
SECRET = "ghp_" + "Zz9" * 12
BAD_TEXT = (episode("2026-09-23-nas", title="NAS").replace("tags: [homelab]\n", "")
            .replace("- NUT client on the backup host.\n", f"- NUT client on the backup host.\n- key {SECRET}\n"))
TOKEN = "ghs_" + "T0ken" * 7 + "x"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def run_pr(world: World, files: dict[str, str | None], branch: str = "night-shift/one", **kw: object):
    world.commit(branch, files, base="main")
    pull = world.gh.add_pull(branch)
    job = world.job(world.pr_event(pull, fork=bool(kw.pop("fork", False))), secrets=[TOKEN], **kw)
    return ran(pull_request.run, job), job, pull


def printed(world: World) -> str:
    """Everything the step printed but its `::add-mask::` lines (which must name the secret)."""
    return "\n".join(line for line in world.out.getvalue().split("\n") if not line.startswith("::add-mask::"))


def sticky(world: World, number: int) -> list:
    return [c for c in world.gh.comments_on.get(number, []) if c.body.startswith(marker("."))]


def test_a_bad_episode_fails_with_annotations_a_sticky_comment_outputs_and_no_secret(world: World) -> None:
    code, job, pull = run_pr(world, {GOOD: episode("2026-09-22-ups-runtime"), BAD: BAD_TEXT})
    assert code == 1
    outputs = job.reporter.outputs
    assert outputs["verdict"] == "violations" and outputs["pr_number"] == str(pull.number)
    assert int(outputs["errors"]) >= 2 and outputs["changed"] == "2" and outputs["episodes"] == "2"
    annotations, _ = parse_commands(world.out.getvalue())
    codes = {a.title for a in annotations if a.file == BAD}
    assert {"memshelf-bot: field-missing", "memshelf-bot: secret"} <= codes
    [comment] = sticky(world, pull.number)
    assert comment.author == "github-actions[bot]" and "❌ violations" in comment.body
    assert "```suggestion" in comment.body  # the missing key's placeholder, from the finding's replacement
    everything = printed(world) + job.reporter.summary_text() + comment.body + str(outputs)
    assert SECRET not in everything and TOKEN not in everything


def test_same_head_edits_nothing_and_a_fix_turns_the_same_comment_green(world: World) -> None:
    code, _job, pull = run_pr(world, {BAD: BAD_TEXT})
    [first] = sticky(world, pull.number)
    assert code == 1
    world.gh.calls.clear()
    job = world.job(world.pr_event(pull, "synchronize"))
    assert ran(pull_request.run, job) == 1
    assert world.gh.ops("edit_comment", "create_comment", "delete_comment") == []  # same text: not edited
    assert "left the sticky comment as it was" in job.reporter.summary_text()
    fixed = world.commit("night-shift/one", {BAD: episode("2026-09-23-nas")})
    world.gh.pulls[pull.number] = pull = replace(pull, head_sha=fixed)
    world.gh.calls.clear()
    job = world.job(world.pr_event(pull, "synchronize"))
    assert ran(pull_request.run, job) == 0 and job.reporter.outputs["verdict"] == "valid"
    assert parse_commands(world.out.getvalue().split("memshelf-bot: violations")[-1])[0] == []  # no annotation
    assert [op for op, _ in world.gh.ops("edit_comment", "create_comment", "delete_comment")] == ["edit_comment"]
    [again] = sticky(world, pull.number)
    assert again.id == first.id and "### memshelf-bot: ✅ valid" in again.body and "suggestion" not in again.body


def test_a_readers_comment_with_the_marker_is_never_edited_and_the_bot_posts_its_own(world: World) -> None:
    world.commit("night-shift/one", {BAD: BAD_TEXT}, base="main")
    pull = world.gh.add_pull("night-shift/one")
    forged = world.gh.add_comment(pull.number, marker(".") + "\nI wrote this", "mallory")
    assert ran(pull_request.run, world.job(world.pr_event(pull))) == 1
    comments = world.gh.comments_on[pull.number]
    assert comments[0] == forged  # untouched
    assert [c.author for c in sticky(world, pull.number)] == ["mallory", "github-actions[bot]"]
    assert ("edit_comment", (forged.id,)) not in [(op, args[:1]) for op, args in world.gh.calls]
    assert not world.gh.ops("delete_comment")


def test_duplicates_a_race_left_are_removed_and_a_deleted_comment_is_recreated(world: World) -> None:
    _code, job, pull = run_pr(world, {BAD: BAD_TEXT})
    [keep] = sticky(world, pull.number)
    world.gh.add_comment(pull.number, keep.body + "\nolder run", "github-actions[bot]")
    job = world.job(world.pr_event(pull))
    ran(pull_request.run, job)
    assert [c.id for c in sticky(world, pull.number)] == [keep.id]
    assert "removed 1 duplicate a concurrent run left" in job.reporter.summary_text()
    world.gh.comments_on[pull.number].clear()
    job = world.job(world.pr_event(pull))
    ran(pull_request.run, job)
    assert len(sticky(world, pull.number)) == 1 and "posted the sticky comment" in job.reporter.summary_text()
    # deleted between the bot's read and its edit: the edit answers 404 and the bot posts anew
    stale = world.gh.comments_on[pull.number][0]
    world.gh.comments_on[pull.number][0] = replace(stale, body=stale.body + " (stale)")
    world.gh.refuse("edit_comment", Reason.NOT_FOUND)
    job = world.job(world.pr_event(pull))
    ran(pull_request.run, job)
    assert "re-posted the sticky comment (the previous one was deleted)" in job.reporter.summary_text()


def test_a_clean_pr_gets_no_comment_under_auto_one_under_always_and_none_under_never(world: World) -> None:
    code, job, pull = run_pr(world, {GOOD: episode("2026-09-22-ups-runtime")})
    assert code == 0 and sticky(world, pull.number) == []
    assert "posted no comment (nothing to report, and comment: auto)" in job.reporter.summary_text()
    job = world.job(world.pr_event(pull), comment="always")
    ran(pull_request.run, job)
    assert len(sticky(world, pull.number)) == 1
    job = world.job(world.pr_event(pull), comment="never")
    ran(pull_request.run, job)
    assert "posted no comment (comment: never)" in job.reporter.summary_text()


def test_a_fork_pull_request_is_read_only_and_the_check_still_reports(world: World) -> None:
    code, job, _pull = run_pr(world, {BAD: BAD_TEXT}, fork=True)
    assert code == 1 and world.gh.read_only
    assert not world.gh.ops("create_comment", "comments")
    summary = job.reporter.summary_text()
    assert "could not comment: the token may not write here" in summary and "### Suggested changes" in summary
    annotations, _ = parse_commands(world.out.getvalue())
    assert any(a.title == "memshelf-bot: no PR comment" for a in annotations)


def test_a_token_github_refuses_mid_flow_does_not_change_the_verdict(world: World) -> None:
    world.gh.refuse("create_comment", Reason.READ_ONLY, "Resource not accessible by integration")
    code, job, _pull = run_pr(world, {BAD: BAD_TEXT})
    assert code == 1 and job.reporter.outputs["verdict"] == "violations"
    assert "could not comment" in job.reporter.summary_text()


def test_a_comment_github_refuses_for_another_reason_does_not_change_the_verdict(world: World) -> None:
    world.gh.refuse("create_comment", Reason.INVALID, "Validation Failed", times=5)
    code, job, _ = run_pr(world, {BAD: BAD_TEXT})
    assert code == 1 and job.reporter.outputs["verdict"] == "violations"
    assert "could not update the sticky comment (GitHub answered 422)" in job.reporter.summary_text()
    notices = [a for a in parse_commands(world.out.getvalue())[0] if a.level == "notice"]
    assert notices[0].title == "memshelf-bot: no PR comment"


def test_past_githubs_file_cap_the_pr_is_unchecked_not_passed(world: World) -> None:
    world.commit("night-shift/big", {GOOD: episode("2026-09-22-ups-runtime")}, base="main")
    pull = world.gh.add_pull("night-shift/big")
    world.gh.pull_file_total[pull.number] = 3500
    job = world.job(world.pr_event(pull))
    assert ran(pull_request.run, job) == 1
    assert "this one changes 3,500, so 3,499 were not checked" in job.reporter.summary_text()


def test_settings_and_policy_come_from_the_base_so_a_pr_cannot_weaken_its_own_check(world: World) -> None:
    secretish = "night-shift-" + "q" * 20
    world.commit("main", {"POLICY.patterns": "codename night-shift-q+\n"})
    text = episode("2026-09-25-codename").replace("## Digest\n", f"## Digest\nThe codename is {secretish}. ")
    world.commit("night-shift/weaken", {"docs/topics/2026-09-25-codename.md": text, "POLICY.patterns": "",
                                        ".memshelf-bot.yml": "allow_paths: [\"notes/**\"]\n",
                                        "notes/x.md": "x\n"}, base="main")
    pull = world.gh.add_pull("night-shift/weaken")
    job = world.job(world.pr_event(pull))
    assert ran(pull_request.run, job) == 1
    everything = world.out.getvalue() + job.reporter.summary_text() + "".join(
        c.body for c in world.gh.comments_on.get(pull.number, []))
    assert secretish not in everything  # the base's pattern masks it, although the PR emptied the file
    assert "policy-pattern-match" in everything
    assert "notes/x.md" in job.reporter.summary_text() and "❌ blocked" in job.reporter.summary_text()


def test_a_catastrophic_pattern_in_the_pr_is_validated_not_run(world: World) -> None:
    world.commit("night-shift/regex", {"POLICY.patterns": "evil (a+)+$\nbroken ([\n",
                                       GOOD: episode("2026-09-22-ups-runtime")}, base="main")
    pull = world.gh.add_pull("night-shift/regex")
    job = world.job(world.pr_event(pull))
    assert ran(pull_request.run, job) == 1
    assert "policy-pattern-invalid" in job.reporter.summary_text()


@pytest.mark.parametrize("name", ["::warning title=pwned::x", "x\n::stop-commands::tok", "AKIAABCDEFGHIJKLMNOP",
                                  "\x1b]0;title\x07\x1b[2J"])
def test_hostile_file_names_forge_no_command_and_leak_no_secret(world: World, name: str) -> None:
    path = f"docs/topics/{name}.md"
    code, job, pull = run_pr(world, {path: "not an episode\n"}, branch="night-shift/hostile")
    assert code == 1
    lines = world.out.getvalue().split("\n")
    commands = [line for line in lines if line.lstrip().startswith("::")]
    assert all(line.split(" ", 1)[0].split("::")[1] in ("error", "warning", "notice", "group", "endgroup", "add-mask")
               for line in commands), commands
    assert not any(line.startswith(("::warning title=pwned", "::stop-commands")) for line in lines)
    assert "\x1b" not in world.out.getvalue()
    everything = world.out.getvalue() + job.reporter.summary_text() + "".join(
        c.body for c in world.gh.comments_on.get(pull.number, []))
    assert "AKIAABCDEFGHIJKLMNOP" not in everything
