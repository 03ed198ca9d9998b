"""`/shelf purge` decided in-process against the recording fake: a writer's command opens one pull
request from the bot's branch that deletes exactly the expired episode files (docs and archive),
titled and described with what memory goes, never merged, updated on a re-run; a reader is
refused; it works on the bot's shelf dashboard issue and nowhere else outside pull requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.events import Event, EventKind, SenderType
from bot.flows import commands
from bot.flows.commands import help_text
from bot.flows.purge import PURGE_BRANCH
from bot.port import Issue, Permission, Reaction
from bot.report.dashboard import LABEL, TITLE
from tests.action_harness import episode
from tests.fakegh import World, git, ran

OLD = "docs/topics/2026-01-10-old-ups.md"
ARCHIVED = "archive/docs/sessions/2025-05-01-old-night.md"
KEPT = "docs/topics/2026-02-01-kept.md"
TODAY_KEPT = "docs/topics/2026-03-01-forever.md"


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World.make(tmp_path)
    w.commit("main", {
        OLD: episode("2026-01-10-old-ups", title="Old <b>UPS</b> @octocat #12",
                     extra="retain_until: 2026-06-30\n"),
        ARCHIVED: episode("2025-05-01-old-night", kind="session", title="Night", extra="retain_until: 2025-12-31\n"),
        KEPT: episode("2026-02-01-kept", title="Kept", extra="retain_until: 2999-01-01\n"),
        TODAY_KEPT: episode("2026-03-01-forever", title="Forever"),
    })
    return w


def on_pull(world: World, body: str, author: str = "octo-maintainer", permission: Permission = Permission.WRITE):
    world.commit("night-shift/x", {"docs/topics/2026-09-22-x.md": episode("2026-09-22-x")}, base="main")
    pull = world.gh.add_pull("night-shift/x")
    world.gh.permissions[author] = permission
    event = world.comment_event(pull, body, author)
    job = world.job(event)
    return ran(commands.run, job), job, event, pull.number


def on_issue(world: World, issue: Issue, body: str, author: str = "octo-maintainer",
             permission: Permission = Permission.WRITE):
    world.gh.permissions[author] = permission
    comment = world.gh.add_comment(issue.number, body, author)
    event = Event(EventKind.ISSUE_COMMENT, "issue_comment", action="created", repository=world.gh.full_name,
                  default_branch="main", pr_number=issue.number, comment_id=comment.id, comment_body=body,
                  comment_author=author, comment_author_type=SenderType.USER, on_pull_request=False, sender=author,
                  sender_type=SenderType.USER, issue_labels=issue.labels)
    job = world.job(event)
    return ran(commands.run, job), job, event


def replies(world: World, number: int) -> list[str]:
    return [c.body for c in world.gh.comments_on.get(number, []) if c.author == world.gh.login]


def purge_pull(world: World):
    [pull] = [p for p in world.gh.pulls.values() if p.head_ref == PURGE_BRANCH]
    return pull


def test_a_writer_gets_one_pull_request_removing_exactly_the_expired_episodes(world: World) -> None:
    main = world.gh.branch_sha("main")
    code, job, event, number = on_pull(world, "/shelf purge")
    assert code == 0
    pull = purge_pull(world)
    removed = git(world.repo, "diff", "--name-status", main, pull.head_sha).split("\n")
    assert sorted(line for line in removed if line) == [f"D\t{ARCHIVED}", f"D\t{OLD}"]
    assert git(world.repo, "rev-parse", f"{pull.head_sha}^").strip() == main
    assert pull.title == "memshelf-bot: purge 2 episodes past retain_until"
    assert "| `2026-01-10-old-ups` | Old \\<b\\>UPS\\</b\\> @\u200doctocat #\u200d12 | `2026-06-30` |" in pull.body
    assert f"`{ARCHIVED}` (archived)" in pull.body and "2026-02-01-kept" not in pull.body
    assert "never merges" in pull.body
    assert not world.gh.ops("merge", "enable_auto_merge")
    [reply] = replies(world, number)
    assert reply.startswith(f"🚀 Opened pull request #{pull.number}: it removes 2 episodes past `retain_until`")
    assert world.gh.reactions == [(event.comment_id, Reaction.SEEN), (event.comment_id, Reaction.DONE)]
    assert job.reporter.outputs["pr_number"] == str(pull.number)
    assert any(sha == pull.head_sha for sha, _ in world.gh.statuses)  # its head checked in the same run

    # again, after main moved: the same pull request, its branch moved to a fresh purge of the new main
    world.commit("main", {"docs/topics/2026-01-11-older.md": episode("2026-01-11-older",
                                                                     extra="retain_until: 2026-01-31\n")})
    on_pull(world, "/shelf purge")
    again = purge_pull(world)
    assert again.number == pull.number and len(world.gh.ops("open_pull")) == 1
    assert again.title == "memshelf-bot: purge 3 episodes past retain_until"
    assert git(world.repo, "rev-parse", f"{again.head_sha}^").strip() == world.gh.branch_sha("main")


def test_a_reader_is_refused_and_nothing_changes(world: World) -> None:
    code, _, event, number = on_pull(world, "/shelf purge", author="curious-reader", permission=Permission.READ)
    assert code == 0
    assert replies(world, number) == ["😕 `/shelf purge` changes branches, so it needs write access to the "
                                      "repository; curious-reader has `read`. Nothing was changed."]
    assert not world.gh.ops("create_commit", "create_branch", "open_pull")
    assert world.gh.reactions[-1] == (event.comment_id, Reaction.FAILED)


def test_on_the_dashboard_issue_purge_and_help_work_and_the_rest_is_for_pull_requests(world: World) -> None:
    dashboard = world.gh.add_issue(TITLE, "the dashboard", world.gh.login, [LABEL.name])
    code, _, _ = on_issue(world, dashboard, "/shelf purge")
    assert code == 0 and purge_pull(world)
    assert replies(world, dashboard.number)[0].startswith("🚀 Opened pull request #")
    on_issue(world, dashboard, "/shelf help", permission=Permission.READ)
    assert "`/shelf purge`" in replies(world, dashboard.number)[1] and replies(world, dashboard.number)[1].endswith(
        help_text())
    on_issue(world, dashboard, "/shelf resolve")
    assert replies(world, dashboard.number)[2].startswith(
        "😕 I don't know `/shelf resolve` on the Shelf dashboard issue (it works in pull requests).")


def test_a_labeled_issue_that_is_not_the_bots_dashboard_is_ignored(world: World) -> None:
    theirs = world.gh.add_issue(TITLE, "looks like it", "mallory", [LABEL.name])
    code, job, _ = on_issue(world, theirs, "/shelf purge")
    assert code == 0 and not replies(world, theirs.number) and not world.gh.reactions
    assert not world.gh.ops("create_commit", "open_pull")
    assert "not the shelf dashboard" in job.reporter.summary_text()


def test_nothing_expired_means_no_pull_request(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    code, _, _, number = on_pull(world, "/shelf purge")
    assert code == 0 and not world.gh.ops("create_commit", "open_pull")
    assert replies(world, number)[0].startswith("🚀 Nothing to purge: no episode on `main`")


def test_purge_is_in_the_help_from_the_registry() -> None:
    assert "| `/shelf purge` | opens a pull request that removes the episodes past their `retain_until`" in help_text()


def test_a_command_on_the_dashboard_issue_is_routed_and_travels_as_json(world: World) -> None:
    from bot.router import FlowName, Route, route

    dashboard = world.gh.add_issue(TITLE, "the dashboard", world.gh.login, [LABEL.name])
    event = Event(EventKind.ISSUE_COMMENT, "issue_comment", action="created", repository=world.gh.full_name,
                  pr_number=dashboard.number, comment_id=7, comment_body="/shelf purge", comment_author="octo",
                  issue_labels=dashboard.labels)
    found = route(event)
    assert found is not None and found.flow is FlowName.COMMAND
    assert Route.from_json(found.to_json()) == found and found.event.issue_labels == (LABEL.name,)
    assert route(Event(EventKind.ISSUE_COMMENT, "issue_comment", action="created", pr_number=3, comment_id=8,
                       comment_body="/shelf purge", issue_labels=("bug",))) is None
    assert Event.from_payload("issue_comment", {
        "action": "created", "issue": {"number": 4, "labels": [{"name": LABEL.name}, "junk", {"name": 5}]},
        "comment": {"id": 9, "body": "/shelf purge"}}).issue_labels == (LABEL.name,)


def test_purge_through_the_apps_door_on_the_dashboard_issue(world: World) -> None:
    from bot.app.door import run_with
    from bot.app.reporter import AppReporter
    from bot.router import Route, route

    dashboard = world.gh.add_issue(TITLE, "the dashboard", world.gh.login, [LABEL.name])

    def comment(author: str, permission: Permission, key: str) -> object:
        world.gh.permissions[author] = permission
        made = world.gh.add_comment(dashboard.number, "/shelf purge", author)
        event = Event(EventKind.ISSUE_COMMENT, "issue_comment", action="created", repository=world.gh.full_name,
                      default_branch="main", pr_number=dashboard.number, comment_id=made.id,
                      comment_body="/shelf purge", comment_author=author, comment_author_type=SenderType.USER,
                      sender=author, sender_type=SenderType.USER, issue_labels=dashboard.labels, installation_id=9)
        routed = route(event)
        assert routed is not None
        return run_with(Route.from_json(routed.to_json()), key=key, port=world.gh, reporter=AppReporter(key),
                        remote=str(world.repo))

    comment("curious-reader", Permission.READ, "d-1:1")
    assert "needs write access" in replies(world, dashboard.number)[0]
    assert not world.gh.ops("create_commit", "open_pull")
    result = comment("octo-maintainer", Permission.WRITE, "d-2:1")
    pull = purge_pull(world)
    assert result.pr_number == pull.number and pull.title == "memshelf-bot: purge 2 episodes past retain_until"
    assert replies(world, dashboard.number)[1].startswith(f"🚀 Opened pull request #{pull.number}")
    assert not world.gh.ops("merge", "enable_auto_merge")


def test_the_description_lists_every_episode_masked_and_escaped_within_the_limit() -> None:
    import datetime as dt

    from bot.report import purge as described
    from memshelf_render.redact import mask
    from memshelf_render.retention import Expired

    secret = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    gone = [Expired(f"docs/topics/2020-01-{n % 28 + 1:02d}-e{n}.md", f"2020-01-01-e{n}",
                    f"Title {n} | <b>@octocat</b> {secret}", "2021-01-01", n % 2 == 0) for n in range(3000)]
    text = described.body(gone, branch="main", main_sha="a" * 40, day=dt.date(2026, 12, 3), asked_by="octo",
                          asked_on=4, prefix="", clean=mask)
    assert len(text) <= 65536 and secret not in text
    rows = [line for line in text.split("\n") if line.startswith("| `2020")]
    assert rows[0] == ("| `2020-01-01-e0` | Title 0 \\| \\<b\\>@\u200doctocat\\</b\\> «redacted:github-token» | "
                       "`2021-01-01` | `docs/topics/2020-01-01-e0.md` (archived) |")
    assert text.endswith(f"… and {3000 - len(rows):,} more episodes: this pull request's files list every one.")
    assert described.title(gone) == "memshelf-bot: purge 3,000 episodes past retain_until"
