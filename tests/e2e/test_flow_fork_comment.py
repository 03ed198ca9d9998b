"""The fork path end to end on the sandbox: a fork's pull request run (read-only token) leaves its
sticky comment in `.memshelf-bot/comment.json`; the `workflow_run` side is simulated by
`post_as_the_template`, which does exactly what the script of shelf-bot-fork-comment.yml does
(same checks: a pull request of this run, still open, its head still the run's sha, a body with
the marker), with a token that may write."""

from __future__ import annotations

import json
import re
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest

from tests import action_harness
from tests.action_harness import BOT_TOKEN, REPO, Harness, episode
from tests.sandbox_fixtures import pull_request_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
NAS = "docs/topics/2026-09-23-nas.md"
SECRET = "ghp_" + "Zz9" * 12
BAD_TEXT = (episode("2026-09-23-nas", title="NAS").replace("tags: [homelab]\n", "")
            .replace("- NUT client on the backup host.\n", f"- NUT client on the backup host.\n- key {SECRET}\n"))
FORK_TOKEN = "ghs_fork" + "0" * 32
MARKER = re.compile(r"^<!-- memshelf-bot:sticky[^\n]*-->")


class Posted(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    NOT_THIS_RUN = "the artifact names no pull request of this run"  # core.setFailed
    NOT_OURS = "the artifact's body is not a memshelf-bot comment"  # core.setFailed
    MOVED_ON = "moved on since this run (or is closed)"  # core.info, return


def post_as_the_template(repo: Any, comment_file: Path, run_head_sha: str) -> Posted:
    """The fork-comment workflow's script, step for step, over PyGithub."""
    given = json.loads(comment_file.read_text(encoding="utf-8"))
    number = given.get("pr_number")
    body = str(given.get("body") or "")
    if not isinstance(number, int) or number < 1 or given.get("head_sha") != run_head_sha:
        return Posted.NOT_THIS_RUN
    marker = MARKER.match(body)
    if not marker or len(body) > 65536:
        return Posted.NOT_OURS
    pull = repo.get_pull(number)
    if pull.state != "open" or pull.head.sha != run_head_sha:
        return Posted.MOVED_ON
    issue = repo.get_issue(number)
    mine = [c for c in issue.get_comments() if c.user.login == "github-actions[bot]"
            and (c.body or "").startswith(marker.group(0))]
    outcome = Posted.UNCHANGED
    if not mine:
        issue.create_comment(body)
        outcome = Posted.CREATED
    elif mine[0].body != body:
        mine[0].edit(body)
        outcome = Posted.UPDATED
    for extra in mine[1:]:
        extra.delete()
    return outcome


@pytest.mark.real_step  # a fork's pull_request on the real `python -m bot.cli action`
def test_a_fork_runs_comment_is_kept_as_the_artifact_and_posted_by_the_workflow_run(harness: Harness) -> None:
    sha = harness.branch("scratch/fork-head", {NAS: BAD_TEXT})
    number = harness.sb.open_fork_pull("outsider/shelf", "patch-1", sha, "NAS from a fork", "outsider")
    harness.sb.add_token(FORK_TOKEN, "fork-actions[bot]", permission="read")
    event = pull_request_event(harness.sb, number)
    # the fixture names the base repository on both sides; the head of a fork's pull request is the fork's
    event["pull_request"]["head"]["repo"] = harness.sb.repo.pull_json(harness.sb.state.pull(number),
                                                                      full=True)["head"]["repo"]
    assert event["pull_request"]["head"]["repo"]["full_name"] == "outsider/shelf"
    workspace = harness.workspace(sha)
    result = harness.step("pull_request", event, workspace, token=FORK_TOKEN)
    assert result.exit_code == 1 and harness.sticky(number) == []  # the read-only token could not comment

    artifact = workspace / ".memshelf-bot" / "comment.json"
    given = json.loads(artifact.read_text(encoding="utf-8"))
    assert (given["pr_number"], given["head_sha"]) == (number, sha)
    assert SECRET not in given["body"] and "❌ violations" in given["body"]

    repo = harness.sb.github(BOT_TOKEN).get_repo(REPO)
    assert post_as_the_template(repo, artifact, run_head_sha="f" * 40) is Posted.NOT_THIS_RUN
    assert harness.sticky(number) == []
    assert post_as_the_template(repo, artifact, run_head_sha=sha) is Posted.CREATED
    [sticky] = harness.sticky(number)
    assert sticky.body == given["body"] and sticky.user.login == "github-actions[bot]"
    assert post_as_the_template(repo, artifact, run_head_sha=sha) is Posted.UNCHANGED
    assert len(harness.sticky(number)) == 1
