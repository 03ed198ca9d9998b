"""The `mode` input, inputs that are wrong, events the bot leaves alone, and a shelf that lives
in a sub-directory of its repository."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot import action
from bot.report.workflow import WorkflowReporter
from memshelf_sandbox.actionrun import parse_commands, parse_outputs
from tests import action_harness
from tests.action_harness import Harness, episode, git, seed_shelf, serve
from tests.sandbox_fixtures import (
    issue_comment_event,
    pull_request_event,
    push_event,
    workflow_dispatch_event,
)

pytestmark = pytest.mark.e2e  # `memshelf-bot action` in a subprocess against the sandbox

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
UNREACHABLE = "http://127.0.0.1:9"  # nothing listens: these modes must not need the API
BAD = "docs/topics/2026-09-23-nas.md"
BAD_TEXT = episode("2026-09-23-nas").replace("id: 2026-09-23-nas", "id: nas")
EMPTY = {k: "" for k in ("verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number",
                         "standing_tokens")}


def test_explicit_open_pr_and_resolve_modes_need_their_events(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main") or ""
    workspace = harness.workspace(main)
    on_main = harness.step("push", push_event(harness.sb, "refs/heads/main", main, main), workspace, mode="open-pr")
    assert on_main.exit_code == 2
    assert on_main.annotations[0].message == ("mode open-pr opens pull requests for agent branches; main is the "
                                              "default branch")
    number = harness.open_pr("shelve/x", {"docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")})
    resolve = harness.pr_step(number, mode="resolve")
    assert resolve.exit_code == 2
    assert resolve.annotations[0].message == ("mode resolve answers `/shelf` comments: it needs an issue_comment "
                                              "event, not pull_request")

    # open-pr on any branch, patterns or not: a manual run on it
    after = harness.branch("chore/notes", {"docs/topics/2026-09-23-nas.md": episode("2026-09-23-nas")})
    dispatched = harness.step("workflow_dispatch", workflow_dispatch_event(harness.sb, "refs/heads/chore/notes"),
                              harness.workspace(after), mode="open-pr")
    assert dispatched.exit_code == 0, dispatched.stdout
    pull = harness.sb.state.pull(int(dispatched.outputs["pr_number"]))
    assert pull is not None and (pull.head_ref, pull.base_ref) == ("chore/notes", "main")


def test_a_comment_that_is_no_command_is_ignored_without_a_word(harness: Harness) -> None:
    number = harness.open_pr("shelve/x", {"docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")})
    mark = len(harness.sb.calls)
    payload = issue_comment_event(harness.sb, number, "Looks good; merging after lunch. /shelf resolve later?")
    result = harness.step("issue_comment", payload, harness.workspace(harness.sb.store.ref("refs/heads/main")))
    assert result.exit_code == 0 and result.outputs == EMPTY and result.annotations == []
    assert "ignoring a comment that is not a /shelf command" in result.stdout
    assert harness.api_calls(mark) == []


def test_a_closed_pull_request_is_left_alone(harness: Harness) -> None:
    number = harness.open_pr("shelve/closed", {BAD: BAD_TEXT})
    harness.repo.get_pull(number).edit(state="closed")
    mark = len(harness.sb.calls)
    result = harness.pr_step(number, "reopened", payload={**pull_request_event(harness.sb, number, "reopened"),
                                                          "action": "closed"})
    assert result.exit_code == 0 and harness.api_calls(mark) == []
    assert "does not act on a closed pull request" in result.summary


def test_unknown_and_malformed_inputs_are_configuration_errors(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main")
    workspace = harness.workspace(main)
    payload = push_event(harness.sb, "refs/heads/main", main, main)
    cases = {
        ("shelf-path", "."): "unknown input(s): shelf-path; this action accepts: mode, token, shelf_path,",
        ("mode", "merge"): "input 'mode' must be one of auto, validate, render, guard, open-pr, resolve, badge, "
                           "got 'merge'",
        ("strict", "yes"): "input 'strict' must be true or false, got 'yes'",
        ("comment", "sometimes"): "input 'comment' must be one of auto, always, never, got 'sometimes'",
        ("shelf_path", "../elsewhere"): "input 'shelf_path' must be a path inside the workspace",
    }
    for (name, value), message in cases.items():
        result = harness.step("push", payload, workspace, **{name: value})
        assert result.exit_code == 2, (name, result.stdout)
        [error] = result.annotations
        assert error.title == "memshelf-bot: invalid input" and error.message.startswith(message)
        assert result.outputs == {**EMPTY, "verdict": "config-error"}


def test_validate_mode_needs_no_api_and_runs_the_guard_from_git_history(harness: Harness) -> None:
    number = harness.open_pr("shelve/v", {BAD: BAD_TEXT, "README.md": "x\n"})
    payload = pull_request_event(harness.sb, number)
    workspace = harness.workspace(payload["pull_request"]["head"]["sha"])
    result = action_harness.run_step(workspace=workspace, event_name="pull_request", payload=payload,
                                     repository=action_harness.REPO, api_url=UNREACHABLE,
                                     inputs={"mode": "validate"}, home=harness.home)
    assert result.exit_code == 1, result.stdout
    assert {(a.file, a.title) for a in result.annotations} == {
        (BAD, "memshelf-bot: id-mismatch"), ("README.md", "memshelf-bot: path-not-allowed")}
    assert result.outputs["pr_number"] == "" and result.outputs["episodes"] == "1"


def test_validate_mode_in_a_shallow_checkout_checks_every_episode_and_says_why(harness: Harness) -> None:
    number = harness.open_pr("shelve/shallow", {BAD: BAD_TEXT})
    payload = pull_request_event(harness.sb, number)
    workspace = harness.tmp / "shallow"
    git("clone", "--quiet", "--depth=1", "--branch", "shelve/shallow", harness.sb.git_url(action_harness.BOT_TOKEN),
        str(workspace), cwd=harness.tmp, home=harness.home)
    result = action_harness.run_step(workspace=workspace, event_name="pull_request", payload=payload,
                                     repository=action_harness.REPO, api_url=UNREACHABLE,
                                     inputs={"mode": "validate"}, home=harness.home)
    assert result.exit_code == 1
    assert [a.title for a in result.annotations] == ["memshelf-bot: id-mismatch"]
    assert result.outputs["episodes"] == "4"
    assert "The base commit is not in the checkout, so every episode was checked" in result.summary


def test_validate_mode_on_main_checks_the_whole_rendered_shelf(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main")
    payload = push_event(harness.sb, "refs/heads/main", main, main)
    result = action_harness.run_step(workspace=harness.workspace(main), event_name="push", payload=payload,
                                     repository=action_harness.REPO, api_url=UNREACHABLE,
                                     inputs={"mode": "validate"}, home=harness.home)
    assert result.exit_code == 0 and result.outputs["verdict"] == "valid" and result.outputs["episodes"] == "3"


def test_guard_mode_reports_the_guard_alone_and_needs_a_pull_request(harness: Harness) -> None:
    number = harness.open_pr("shelve/g", {BAD: BAD_TEXT, "INDEX.md": "# mine\n"})
    result = harness.pr_step(number, mode="guard")
    assert result.exit_code == 1
    assert [(a.file, a.title) for a in result.annotations] == [("INDEX.md", "memshelf-bot: derived-path-touched")]
    assert "## memshelf-bot · pull request #1 (guard)" in result.summary
    main = harness.sb.store.ref("refs/heads/main")
    pushed = harness.step("push", push_event(harness.sb, "refs/heads/main", main, main), harness.workspace(main),
                          mode="guard")
    assert pushed.exit_code == 2 and pushed.annotations[0].message == "mode guard needs a pull_request event, not push"


def test_badge_mode_writes_the_badge_into_the_workspace(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main")
    workspace = harness.workspace(main)
    result = action_harness.run_step(workspace=workspace, event_name="push",
                                     payload=push_event(harness.sb, "refs/heads/main", main, main),
                                     repository=action_harness.REPO, api_url=UNREACHABLE, inputs={"mode": "badge"},
                                     home=harness.home)
    assert result.exit_code == 0
    assert (workspace / "badge.svg").read_text().startswith("<svg")
    assert '"message": "3 episodes · ' in (workspace / "badge.json").read_text()
    assert (result.outputs["episodes"], result.outputs["changed"]) == ("3", "2")


def test_a_pr_that_breaks_shelf_yml_is_a_configuration_error(harness: Harness) -> None:
    number = harness.open_pr("shelve/cfg", {"shelf.yml": "spec_version: 0.1\nprofile: memory\n"})
    result = harness.pr_step(number)
    assert result.exit_code == 2 and result.outputs["verdict"] == "config-error"
    assert any(a.file == "shelf.yml" and a.title == "memshelf-bot: manifest-invalid" for a in result.annotations)
    [sticky] = harness.sticky(number)
    assert "### memshelf-bot: ⚠️ config error" in sticky.body


def test_a_shelf_in_a_sub_directory_reports_repository_paths(tmp_path: Path) -> None:
    bare = tmp_path / "repo.git"
    seed_shelf(tmp_path / "seed", bare, subdir="memory", extra={"README.md": "# a repo with a shelf inside\n"})
    with serve(bare) as sb:
        h = Harness(sb, tmp_path)
        number = h.open_pr("shelve/sub", {f"memory/{BAD}": BAD_TEXT, "README.md": "# changed\n",
                                          "memory/docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")})
        result = h.pr_step(number, shelf_path="memory/")
        assert result.exit_code == 1
        assert {(a.file, a.title) for a in result.annotations} == {
            (f"memory/{BAD}", "memshelf-bot: id-mismatch"), ("README.md", "memshelf-bot: path-not-allowed")}
        [sticky] = h.sticky(number)
        assert sticky.body.startswith("<!-- memshelf-bot:sticky shelf=memory -->")
        assert "| `memory/docs/topics/2026-09-22-ups.md` (added) | ✅ valid |" in sticky.body

        before, after = h.merge(h.open_pr("shelve/sub-ok", {"memory/docs/topics/2026-09-22-ups.md":
                                                            episode("2026-09-22-ups")}))
        rendered = h.push_step(before, after, shelf_path="memory")
        assert rendered.exit_code == 0, rendered.stdout
        main = sb.store.ref("refs/heads/main")
        changed = sorted(c.filename for c in sb.store.diff(after, main))
        assert changed == ["memory/INDEX.md", "memory/docs/topics/.meta.json", "memory/ledger.tsv", "memory/stats.svg"]



def test_outside_an_actions_step_the_action_says_what_is_missing(tmp_path: Path) -> None:
    out, output = io.StringIO(), tmp_path / "output"
    env = {"GITHUB_OUTPUT": str(output)}
    assert action.run(env, WorkflowReporter.from_env(env, out)) == 2
    [error] = parse_commands(out.getvalue())[0]
    assert error.message == "GITHUB_EVENT_NAME is not set: run memshelf-bot action inside a GitHub Actions step"
    assert parse_outputs(output.read_text()) == EMPTY
