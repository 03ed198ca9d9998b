"""The `mode` input, inputs that are wrong, events the bot leaves alone, and a shelf that lives
in a sub-directory of its repository."""

from __future__ import annotations

import io
import json
from pathlib import Path

from bot import action
from bot.report.workflow import WorkflowReporter
from memshelf_sandbox.actionrun import parse_commands, parse_outputs
from tests import action_harness
from tests.action_harness import Harness, episode, git, seed_shelf, serve
from tests.sandbox_fixtures import (
    pull_request_event,
)

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
UNREACHABLE = "http://127.0.0.1:9"  # nothing listens: these modes must not need the API
BAD = "docs/topics/2026-09-23-nas.md"
BAD_TEXT = episode("2026-09-23-nas").replace("id: 2026-09-23-nas", "id: nas")
EMPTY = {k: "" for k in ("verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number",
                         "standing_tokens", "sarif_file")}


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


def test_a_shelf_in_a_sub_directory_reports_repository_paths(tmp_path: Path) -> None:
    bare = tmp_path / "repo.git"
    seed_shelf(tmp_path / "seed", bare, subdir="memory", extra={"README.md": "# a repo with a shelf inside\n"})
    with serve(bare) as sb:
        h = Harness(sb, tmp_path)
        number = h.open_pr("shelve/sub", {f"memory/{BAD}": BAD_TEXT, "README.md": "# changed\n", "tool.sh": "true\n",
                                          "memory/docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")})
        result = h.pr_step(number, shelf_path="memory/")
        assert result.exit_code == 1
        assert {(a.file, a.title) for a in result.annotations} == {
            (f"memory/{BAD}", "memshelf-bot: id-mismatch"), ("tool.sh", "memshelf-bot: path-not-allowed")}
        [sticky] = h.sticky(number)
        assert sticky.body.startswith("<!-- memshelf-bot:sticky shelf=memory -->")
        assert "| `memory/docs/topics/2026-09-22-ups.md` (added) | ✅ valid |" in sticky.body
        # the Action's other sinks: the check run, the suggestion as a review comment, the SARIF file
        [run] = sb.state.check_runs_for(sb.store.ref("refs/heads/shelve/sub"))
        assert (run.name, run.conclusion) == ("memshelf-bot", "failure")
        assert (f"memory/{BAD}", "memshelf-bot: id-mismatch") in {(a["path"], a.get("title")) for a in run.annotations}
        pull = sb.github(action_harness.BOT_TOKEN).get_repo(action_harness.REPO).get_pull(number)
        [review] = pull.get_reviews()
        [comment] = pull.get_review_comments()
        assert (comment.path, comment.pull_request_review_id, comment.user.login) == (
            f"memory/{BAD}", review.id, "github-actions[bot]")
        assert "```suggestion\nid: 2026-09-23-nas\n```" in comment.body
        assert BAD_TEXT.split("\n")[comment.line - 1] == "id: nas"
        assert result.outputs["sarif_file"] == ".memshelf-bot/memshelf-bot.sarif"
        [workspace] = h.tmp.glob("workspace-*")
        log = json.loads((workspace / result.outputs["sarif_file"]).read_text(encoding="utf-8"))
        assert f"memory/{BAD}" in {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                                   for r in log["runs"][0]["results"]}

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
