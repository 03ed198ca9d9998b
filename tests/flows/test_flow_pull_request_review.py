"""Suggestions as review comments (the review sink) where the token may write, in-process: one
review on the checked head with a ```suggestion block per fix; none with a fork's read-only token,
and none from a run whose head was superseded."""

from __future__ import annotations

from pathlib import Path

from bot.flows import pull_request
from bot.port import PostedReviewComment
from bot.report.review import ReviewSink
from tests.action_harness import episode
from tests.fakegh import World, ran

NAS = "docs/topics/2026-09-23-nas.md"
FIXABLE = episode("2026-09-23-nas", title="NAS").replace("id: 2026-09-23-nas\n", "id: nas-move\n")


def run(tmp_path: Path, *, fork: bool = False, superseded: bool = False):
    world = World.make(tmp_path)
    world.commit("night-shift/nas", {NAS: FIXABLE}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    if superseded:
        world.commit("night-shift/nas", {"docs/topics/2026-09-24-dns.md": episode("2026-09-24-dns")})
    job = world.job(world.pr_event(pull, fork=fork))
    job.sinks.append(ReviewSink(world.gh, job.reporter.clean))
    return ran(pull_request.run, job), job, world, pull


def test_a_writer_token_posts_one_review_with_the_suggestion_on_the_checked_head(tmp_path: Path) -> None:
    code, job, world, pull = run(tmp_path)
    assert code == 1
    [(number, sha, comments)] = world.gh.reviews
    assert (number, sha) == (pull.number, pull.head_sha)
    [suggestion] = [c for c in comments if "id-mismatch" in c.body]
    assert suggestion.path == NAS and FIXABLE.split("\n")[suggestion.line - 1] == "id: nas-move"
    assert "```suggestion\nid: 2026-09-23-nas\n```" in suggestion.body
    assert "suggested change(s) as review comments" in job.reporter.summary_text()


def test_a_fork_token_posts_no_review_and_the_summary_keeps_the_suggestions(tmp_path: Path) -> None:
    code, job, world, _ = run(tmp_path, fork=True)
    assert code == 1 and world.gh.reviews == [] and not world.gh.ops("review")
    assert "Suggested changes: in this summary (the token may not review)." in job.reporter.summary_text()


def test_a_superseded_run_posts_no_review(tmp_path: Path) -> None:
    code, _, world, _ = run(tmp_path, superseded=True)
    assert code == 1 and world.gh.reviews == []


def test_a_suggestion_on_a_line_outside_the_diff_stays_in_the_summary(tmp_path: Path) -> None:
    """A pure rename has no hunk: GitHub would refuse the whole review over its id line."""
    world = World.make(tmp_path)
    old = "docs/topics/2026-09-16-tower-rack-case.md"
    world.commit("night-shift/move", {old: None, "docs/topics/2026-09-17-tower-rack-case.md": world.show("main", old),
                                      NAS: FIXABLE}, base="main")
    pull = world.gh.add_pull("night-shift/move")
    job = world.job(world.pr_event(pull))
    job.sinks.append(ReviewSink(world.gh, job.reporter.clean))
    assert ran(pull_request.run, job) == 1
    [(_, _, comments)] = world.gh.reviews
    assert [c.path for c in comments] == [NAS]
    summary = job.reporter.summary_text()
    assert "Posted 1 suggested change(s) as review comments; 1 on lines outside the diff are in this summary." in summary
    assert "```suggestion\nid: 2026-09-17-tower-rack-case\n```" in summary


def test_a_second_run_on_the_same_head_posts_no_second_copy_of_a_suggestion(tmp_path: Path) -> None:
    """A re-run, or a second event for the same head: the suggestion is on its line already."""
    code, _, world, pull = run(tmp_path)
    assert code == 1 and len(world.gh.reviews) == 1
    again = world.job(world.pr_event(pull, action="synchronize"))
    again.sinks.append(ReviewSink(world.gh, again.reporter.clean))
    assert ran(pull_request.run, again) == 1
    assert len(world.gh.reviews) == 1 and world.gh.ops("review_comments")
    assert "Suggested changes: already posted as review comments." in again.reporter.summary_text()


def test_a_new_suggestion_after_a_push_is_posted_alone(tmp_path: Path) -> None:
    """A push that adds a second fixable episode: only its suggestion is new."""
    _, _, world, pull = run(tmp_path)
    dns = "docs/topics/2026-09-24-dns.md"
    world.commit("night-shift/nas", {dns: episode("2026-09-24-dns").replace("id: 2026-09-24-dns\n", "id: dns\n")})
    pull = world.gh.pull(pull.number)
    again = world.job(world.pr_event(pull, action="synchronize"))
    again.sinks.append(ReviewSink(world.gh, again.reporter.clean))
    assert ran(pull_request.run, again) == 1
    [_, (_, sha, comments)] = world.gh.reviews
    assert sha == pull.head_sha and [c.path for c in comments if "suggestion" in c.body] == [dns]
    assert "already there" in again.reporter.summary_text()


def test_someone_elses_copy_of_a_suggestion_does_not_silence_the_bots(tmp_path: Path) -> None:
    """Anyone may comment on a diff line; only the bot's own comments count as already posted."""
    world = World.make(tmp_path)
    world.commit("night-shift/nas", {NAS: FIXABLE}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    first = world.job(world.pr_event(pull))
    first.sinks.append(ReviewSink(world.gh, first.reporter.clean))
    ran(pull_request.run, first)
    [(_, _, comments)] = world.gh.reviews
    world.gh.reviews.clear()  # as if the bot had never reviewed, but someone copied its comments
    world.gh.others_review_comments[pull.number] = [PostedReviewComment(c, "mallory") for c in comments]
    again = world.job(world.pr_event(pull, action="synchronize"))
    again.sinks.append(ReviewSink(world.gh, again.reporter.clean))
    ran(pull_request.run, again)
    [(_, _, posted)] = world.gh.reviews
    assert posted == comments
