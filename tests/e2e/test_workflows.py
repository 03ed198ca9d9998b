"""The workflow templates shelf repositories copy (workflows/): GITHUB_TOKEN's gaps closed.

shelf-bot.yml: a scheduled render catches merges that started no workflow (and is a no-op on a
fresh main — run here against the sandbox), a merge queue's group gets the pull request's check,
the PR job is per-PR `concurrency` with
cancel-in-progress while renders are never cancelled, and a fork PR's job keeps its comment as an
artifact. shelf-bot-fork-comment.yml: the `workflow_run` half that posts that comment without ever
checking out or running fork code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import action_harness
from tests.action_harness import Harness, episode

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ARTIFACT = "memshelf-bot-comment"
UPS = "docs/topics/2026-09-22-ups-runtime.md"


def _load(name: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "workflows" / name).read_text(encoding="utf-8"))


def _on(workflow: dict[str, Any]) -> dict[str, Any]:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true


@pytest.fixture(scope="module")
def main_workflow() -> dict[str, Any]:
    return _load("shelf-bot.yml")


@pytest.fixture(scope="module")
def fork_workflow() -> dict[str, Any]:
    return _load("shelf-bot-fork-comment.yml")


def test_every_template_passes_actionlint() -> None:
    import subprocess

    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "workflows").glob("*.yml"))
    assert files == ["workflows/shelf-bot-fork-comment.yml", "workflows/shelf-bot.yml"]
    proc = subprocess.run([str(BIN / "actionlint"), "-no-color", *files], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_schedule_renders_main(main_workflow: dict[str, Any]) -> None:
    [cron] = _on(main_workflow)["schedule"]
    assert len(cron["cron"].split()) == 5
    render = main_workflow["jobs"]["render"]
    assert "github.event_name == 'schedule'" in render["if"]
    [step] = [s for s in render["steps"] if s.get("uses", "").startswith("memshelf/memshelf-bot@")]
    # the scheduled run asks for a render by name (`mode: auto` renders on a schedule too)
    assert step["with"]["mode"] == "${{ inputs.mode || (github.event_name == 'schedule' && 'render') || 'auto' }}"


def test_a_merge_queue_runs_the_same_check_on_its_group(main_workflow: dict[str, Any]) -> None:
    assert _on(main_workflow)["merge_group"] == {"types": ["checks_requested"]}
    jobs = main_workflow["jobs"]
    queue = jobs["merge-queue"]
    assert queue["if"] == "github.event_name == 'merge_group'"
    assert queue["name"] == jobs["pull-request"]["name"] == "memshelf-bot/validate"  # one required check
    assert queue["permissions"] == {"contents": "read", "statuses": "write", "checks": "write"}
    [step] = [s for s in queue["steps"] if s.get("uses", "").startswith("memshelf/memshelf-bot@")]
    assert "with" not in step  # mode: auto routes merge_group to the check of the group's head
    assert all("merge_group" not in job.get("if", "") for name, job in jobs.items() if name != "merge-queue")


def test_the_pr_job_is_per_pr_and_cancels_the_older_run(main_workflow: dict[str, Any]) -> None:
    jobs = main_workflow["jobs"]
    assert jobs["pull-request"]["concurrency"] == {
        "group": "shelf-bot-pr-${{ github.repository }}-${{ github.event.pull_request.number }}",
        "cancel-in-progress": True}
    assert jobs["render"]["concurrency"]["cancel-in-progress"] is False  # a render is never dropped


def test_a_fork_prs_job_keeps_the_comment_as_an_artifact(main_workflow: dict[str, Any]) -> None:
    steps = main_workflow["jobs"]["pull-request"]["steps"]
    upload = steps[-1]
    assert upload["uses"] == "actions/upload-artifact@v4"
    assert upload["if"] == "always() && github.event.pull_request.head.repo.full_name != github.repository"
    assert upload["with"] == {"name": ARTIFACT, "path": ".memshelf-bot/comment.json",
                              "if-no-files-found": "ignore", "retention-days": 1}
    assert steps.index(upload) > _bot_step(steps)


def _bot_step(steps: list[dict[str, Any]]) -> int:
    return next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("memshelf/"))


def test_the_pr_job_clears_what_the_checkout_holds_at_the_bots_directory(main_workflow: dict[str, Any]) -> None:
    """A PR (a fork's above all) could plant `.memshelf-bot/comment.json` or a symlink there: it
    is removed before the bot's step, whose files are then the only ones uploaded."""
    steps = main_workflow["jobs"]["pull-request"]["steps"]
    bot = _bot_step(steps)
    [clear] = [i for i, s in enumerate(steps) if s.get("run") == "rm -rf -- .memshelf-bot"]
    assert steps[0]["uses"] == "actions/checkout@v4" and 0 < clear < bot and "if" not in steps[clear]


def test_the_pr_job_uploads_the_sarif_file_the_bot_names(main_workflow: dict[str, Any]) -> None:
    job = main_workflow["jobs"]["pull-request"]
    assert job["permissions"] == {"contents": "read", "pull-requests": "write", "checks": "write",
                                  "security-events": "write"}
    steps = job["steps"]
    bot = _bot_step(steps)
    [upload] = [s for s in steps if s.get("uses") == "github/codeql-action/upload-sarif@v3"]
    assert steps.index(upload) > bot and steps[bot]["id"] == "memshelf-bot"
    assert upload["with"] == {"sarif_file": "${{ steps.memshelf-bot.outputs.sarif_file }}", "category": "memshelf-bot"}
    condition = " ".join(upload["if"].split())
    assert condition.startswith("always() && steps.memshelf-bot.outputs.sarif_file != ''")
    assert "github.event.pull_request.head.repo.full_name == github.repository" in condition  # a fork may not upload


def test_the_fork_comment_workflow_follows_the_pr_runs(main_workflow: dict[str, Any],
                                                       fork_workflow: dict[str, Any]) -> None:
    assert _on(fork_workflow) == {"workflow_run": {"workflows": [main_workflow["name"]], "types": ["completed"]}}
    assert fork_workflow["permissions"] == {}
    job = fork_workflow["jobs"]["comment"]
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert " ".join(job["if"].split()) == ("github.event.workflow_run.event == 'pull_request' "
                                           "&& github.event.workflow_run.head_repository.full_name != github.repository")


def test_the_fork_comment_workflow_never_runs_fork_code(fork_workflow: dict[str, Any]) -> None:
    """No checkout, no shell step, no action from the fork: the artifact is read as JSON data."""
    steps = fork_workflow["jobs"]["comment"]["steps"]
    assert all("run" not in s for s in steps)
    assert [s["uses"] for s in steps] == ["actions/github-script@v7", "actions/download-artifact@v4",
                                          "actions/github-script@v7"]
    download = steps[1]["with"]
    assert download["name"] == ARTIFACT and download["run-id"] == "${{ github.event.workflow_run.id }}"
    post = steps[2]["with"]["script"]
    assert "JSON.parse(fs.readFileSync(process.env.COMMENT_FILE" in post
    assert steps[2]["env"]["COMMENT_FILE"] == "${{ runner.temp }}/memshelf-bot-comment/comment.json"
    assert "${{" not in post  # nothing interpolated into the script


def test_the_fork_comment_workflow_checks_the_artifacts_claims(fork_workflow: dict[str, Any]) -> None:
    """The number must name an open PR whose head is still the run's; the body must be ours."""
    post = fork_workflow["jobs"]["comment"]["steps"][2]["with"]["script"]
    assert "given.head_sha !== run.head_sha" in post
    assert "pull.state !== 'open' || pull.head.sha !== run.head_sha" in post
    assert "const MARKER = /^<!-- memshelf-bot:sticky[^\\n]*-->/;" in post and "body.length > 65536" in post
    assert "c.user?.login === 'github-actions[bot]'" in post


def test_the_scheduled_render_catches_up_and_is_then_a_no_op(harness: Harness) -> None:
    """A push that started no workflow (a deferred auto-merge) leaves main unrendered; the schedule
    renders it; the next scheduled run finds main fresh and commits nothing."""
    harness.branch("main", {UPS: episode("2026-09-22-ups-runtime")})
    event = {"schedule": "23 */6 * * *"}
    main = harness.sb.store.ref("refs/heads/main")
    first = harness.step("schedule", event, harness.workspace(main), mode="render")
    rendered = harness.sb.store.ref("refs/heads/main")
    assert first.exit_code == 0 and first.outputs["commit_sha"] == rendered != main, first.stdout
    again = harness.step("schedule", event, harness.workspace(rendered), mode="render")
    assert again.exit_code == 0 and again.outputs["changed"] == "0" and again.outputs["commit_sha"] == ""
    assert "nothing to render" in again.summary
    assert harness.sb.store.ref("refs/heads/main") == rendered


def test_the_render_job_restores_and_saves_the_episode_cache(main_workflow: dict[str, Any]) -> None:
    """actions/cache holds the directory the bot's container is told to use (relative: the
    container sees the workspace elsewhere), restored after the checkout's copy is emptied, keyed
    by the action's major version."""
    from bot.context import episode_cache

    steps = main_workflow["jobs"]["render"]["steps"]
    uses = [s.get("uses", s.get("run", "")) for s in steps]
    cache_at = next(i for i, u in enumerate(uses) if u.startswith("actions/cache@"))
    bot_at = next(i for i, u in enumerate(uses) if u.startswith("memshelf/memshelf-bot@"))
    assert uses.index("rm -rf -- .memshelf-bot") < cache_at < bot_at
    directory = steps[bot_at]["env"]["MEMSHELF_BOT_CACHE_DIR"]
    assert steps[cache_at]["with"]["path"] == directory and directory.startswith(".memshelf-bot/")
    version = uses[bot_at].split("@", 1)[1]
    assert steps[cache_at]["with"]["key"].startswith(f"memshelf-bot-{version}-")
    assert steps[cache_at]["with"]["restore-keys"].startswith(f"memshelf-bot-{version}-")
    container = Path("/github/workspace")
    assert episode_cache({"MEMSHELF_BOT_CACHE_DIR": directory}, container).directory == container / directory
    assert episode_cache({"MEMSHELF_BOT_CACHE_DIR": "/abs"}, container).directory == Path("/abs")
