"""The tests' fork server (tests/stepserver.py) against the real `python -m bot.cli action`: the
same step gives the same status, streams, outputs and summary either way, and a dead server
hands its steps to real subprocesses."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from memshelf_sandbox.actionrun import StepResult, run_subprocess
from tests import action_harness
from tests.action_harness import Harness, episode
from tests.sandbox_fixtures import pull_request_event
from tests.stepserver import StepServer

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

BAD = "docs/topics/2026-09-23-nas.md"
BAD_TEXT = episode("2026-09-23-nas").replace("id: 2026-09-23-nas", "id: nas")


def _check_step(h: Harness, number: int, workspace: Path) -> StepResult:
    return h.step("pull_request", pull_request_event(h.sb, number), workspace, mode="validate")


def test_a_forked_step_is_the_real_step(harness: Harness) -> None:
    number = harness.open_pr("shelve/nas", {BAD: BAD_TEXT})
    sha = pull_request_event(harness.sb, number)["pull_request"]["head"]["sha"]
    server = StepServer()
    try:
        harness.runner = server
        forked = _check_step(harness, number, harness.workspace(sha))
        harness.runner = run_subprocess
        real = _check_step(harness, number, harness.workspace(sha))
    finally:
        server.close()
    assert server.forked == 1
    assert real.exit_code == 1
    assert (forked.exit_code, forked.stdout, forked.stderr, forked.outputs, forked.summary) == (
        real.exit_code, real.stdout, real.stderr, real.outputs, real.summary)


def test_a_dead_server_hands_its_steps_to_real_subprocesses(harness: Harness) -> None:
    number = harness.open_pr("shelve/nas", {BAD: BAD_TEXT})
    sha = pull_request_event(harness.sb, number)["pull_request"]["head"]["sha"]
    server = StepServer()
    harness.runner = server
    first = _check_step(harness, number, harness.workspace(sha))
    assert server.pid is not None
    os.kill(server.pid, signal.SIGKILL)
    second = _check_step(harness, number, harness.workspace(sha))
    server.close()
    assert server.forked == 1
    assert first.exit_code == second.exit_code == 1
    assert first.outputs == second.outputs
