"""The render-on-main flow's decisions, in-process against the recording fake of the port: one
commit through the Git Data API moved fast-forward only, a lost race re-rendered on the latest
main, a protected branch or a ruleset answered with a render pull request, a read-only token
named, nothing to do said so, and the bot's own render push never rendered again."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.flows import render_main
from bot.port import Reason, RefUpdate
from memshelf_render.derived import is_derived
from memshelf_render.shelf import load_shelf
from memshelf_sandbox.actionrun import parse_commands
from tests.action_harness import episode
from tests.fakegh import World, git, ran

UPS = "docs/topics/2026-09-22-ups-runtime.md"
NAS = "docs/topics/2026-09-23-nas-move.md"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def render(world: World, **kw: object) -> tuple[int, object]:
    job = world.job(world.push_event("main", "", world.gh.branch_sha("main")))
    return ran(render_main.run, job, sleep=lambda s: None, rng=random.Random(1), **kw), job


def test_a_merged_episode_is_rendered_in_one_fast_forward_commit_with_no_explicit_author(world: World) -> None:
    before = world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    code, job = render(world)
    after = world.gh.branch_sha("main")
    assert code == 0 and after != before and job.reporter.outputs["commit_sha"] == after
    [(_, (parent, message, files))] = world.gh.ops("create_commit")
    assert parent == before and message.endswith("[skip ci]") and "INDEX.md" in files
    assert world.gh.ops("move_branch") == [("move_branch", ("main", after))]
    assert git(world.repo, "rev-parse", f"{after}^").strip() == before
    shelf, _ = load_shelf(world.repo)
    assert shelf is not None and all(is_derived(p, shelf) for p in files)
    assert "**✅ committed**" in job.reporter.summary_text()


def test_nothing_changed_means_no_commit_and_the_summary_says_so(world: World) -> None:
    log = world.show("main", "recall-log.tsv") + "2026-09-20-zfs-recordsize\tDigest\t12\n"
    after = world.commit("main", {"recall-log.tsv": log})
    code, job = render(world)
    assert code == 0 and not world.gh.ops("create_commit", "move_branch") and world.gh.branch_sha("main") == after
    assert "**✅ nothing to render**: the derived files on `main`" in job.reporter.summary_text()
    assert (job.reporter.outputs["commit_sha"], job.reporter.outputs["changed"]) == ("", "0")


def test_a_lost_race_is_re_rendered_on_a_fresh_read_of_main(world: World) -> None:
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    world.gh.ref_answers = [RefUpdate.NON_FAST_FORWARD, RefUpdate.NON_FAST_FORWARD]
    code, job = render(world)
    assert code == 0 and len(world.gh.ops("create_commit")) == 3 and len(world.gh.ops("move_branch")) == 3
    summary = job.reporter.summary_text()
    assert "Lost the race for `main` 2 times" in summary and "3 attempts in all" in summary
    assert world.out.getvalue().count("moved while rendering (lost race") == 2
    assert job.reporter.outputs["commit_sha"] == world.gh.branch_sha("main")


@pytest.mark.parametrize("refusal, words", [(RefUpdate.PROTECTED, "it is protected"),
                                            (RefUpdate.RULESET, "a repository ruleset protects it (GH013)")])
def test_a_protected_main_gets_a_render_pull_request(world: World, refusal: RefUpdate, words: str) -> None:
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    world.gh.ref_answers = [refusal]
    main = world.gh.branch_sha("main")
    code, job = render(world)
    assert code == 0 and world.gh.branch_sha("main") == main  # main untouched
    [pull] = world.gh.pulls.values()
    assert (pull.title, pull.head_ref, pull.base_ref) == (render_main.RENDER_PR_TITLE, render_main.RENDER_BRANCH,
                                                          "main")
    assert "`main` is protected" in pull.body and "- `ledger.tsv` (written)" in pull.body
    outputs = job.reporter.outputs
    assert outputs["pr_number"] == str(pull.number) and outputs["commit_sha"] == world.gh.branch_sha(
        render_main.RENDER_BRANCH)
    assert words in job.reporter.summary_text() and f"and opened pull request #{pull.number}" in \
        job.reporter.summary_text()
    [warning] = [a for a in parse_commands(world.out.getvalue())[0] if a.level == "warning"]
    assert warning.title == "memshelf-bot: main is protected"
    # the next render keeps the same pull request up to date, never a second one
    world.commit("main", {NAS: episode("2026-09-23-nas-move", title="NAS move")})
    world.gh.ref_answers = [refusal]
    code, job = render(world)
    assert len(world.gh.pulls) == 1 and world.gh.ops("reset_bot_branch")
    assert f"updated pull request #{pull.number}" in job.reporter.summary_text()
    assert job.reporter.outputs["commit_sha"] == world.gh.branch_sha(render_main.RENDER_BRANCH)
    assert "2026-09-23-nas-move" in world.show(render_main.RENDER_BRANCH, "ledger.tsv")


def test_a_render_branch_someone_else_committed_to_is_never_moved(world: World) -> None:
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    world.commit(render_main.RENDER_BRANCH, {"INDEX.md": "# mine\n"}, base="main", author="human@example.com")
    world.gh.ref_answers = [RefUpdate.PROTECTED]
    human = world.gh.branch_sha(render_main.RENDER_BRANCH)
    code, _job = render(world)
    assert code == 1 and not world.gh.ops("reset_bot_branch")
    assert world.gh.branch_sha(render_main.RENDER_BRANCH) == human
    [error] = [a for a in parse_commands(world.out.getvalue())[0] if a.level == "error"]
    assert error.message.startswith("memshelf-bot/render holds commits by someone other than the bot, so it was "
                                    "left as it is (never force-pushed)")


def test_a_token_that_may_not_push_fails_with_a_clear_message(world: World) -> None:
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    main = world.gh.branch_sha("main")
    world.gh.refuse("create_commit", Reason.READ_ONLY, "Resource not accessible by integration")
    code, _job = render(world)
    assert code == 1 and world.gh.branch_sha("main") == main
    [error] = [a for a in parse_commands(world.out.getvalue())[0] if a.level == "error"]
    assert "the token may not push to main: give the job `contents: write`" in error.message
    # a refusal of the ref update itself is the same answer
    world.gh.ref_answers = [RefUpdate.READ_ONLY]
    assert render(world)[0] == 1


def test_the_bots_own_render_push_is_not_rendered_again(world: World) -> None:
    before = world.gh.branch_sha("main")
    after = world.commit("main", {"INDEX.md": "# rendered\n"})
    event = world.push_event("main", before, after, pusher="github-actions[bot]",
                             commits=[(after, ("INDEX.md",))])
    job = world.job(event)
    assert ran(render_main.render, job) == 0 and not world.gh.ops("create_commit")
    assert "the bot's own render" in job.reporter.summary_text()
    shelf = load_shelf(world.repo)[0]
    assert shelf is not None
    human = world.push_event("main", before, after, pusher="octo", commits=[(after, ("INDEX.md",))])
    assert render_main.own_render_push(human, shelf, "") is False
    # the same bot pushing an episode is not a render: it is rendered
    episode_push = world.push_event("main", before, after, pusher="github-actions[bot]",
                                    commits=[(after, (NAS,))])
    assert render_main.own_render_push(episode_push, shelf, "") is False
