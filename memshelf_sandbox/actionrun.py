"""Run `memshelf-bot action` the way the Actions runner does, and read back what it left.

The runner gives a step an event file, `GITHUB_*` variables, `INPUT_*` variables, an outputs file
and a summary file, and reads workflow commands from its stdout. `run_step` does the same in a
subprocess; `StepResult` holds the exit status, the outputs, the summary and the annotations
parsed as GitHub would (commands inside `::stop-commands::` blocks are ignored, as there).
The demo and the end-to-end tests use it; a test suite may pass its own `runner` (one with
`run_subprocess`'s signature that runs the same command) to start steps more cheaply.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_COMMAND = re.compile(r"^::(?P<name>[a-z-]+)(?: (?P<props>[^:]*))?::(?P<data>.*)$")
_PROPERTY_ESCAPES = (("%2C", ","), ("%3A", ":"), ("%0A", "\n"), ("%0D", "\r"), ("%25", "%"))
_DATA_ESCAPES = (("%0A", "\n"), ("%0D", "\r"), ("%25", "%"))
ACTION_COMMAND = (sys.executable, "-m", "bot.cli", "action")


def run_subprocess(command: Sequence[str], *, cwd: Path, env: Mapping[str, str],
                   timeout: float) -> subprocess.CompletedProcess[str]:
    """The step's process, as the runner starts it."""
    return subprocess.run(list(command), cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout,
                          check=False)


Runner = Callable[..., subprocess.CompletedProcess[str]]


def _unescape(text: str, escapes: tuple[tuple[str, str], ...]) -> str:
    for code, char in escapes:
        text = text.replace(code, char)
    return text


@dataclass(frozen=True, slots=True)
class Annotation:
    level: str  # error | warning | notice
    file: str | None
    line: int | None
    title: str | None
    message: str
    raw: str  # the command line as printed


@dataclass
class StepResult:
    exit_code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    annotations: list[Annotation] = field(default_factory=list)
    masks: list[str] = field(default_factory=list)

    def by_level(self, level: str) -> list[Annotation]:
        return [a for a in self.annotations if a.level == level]


def parse_outputs(text: str) -> dict[str, str]:
    """$GITHUB_OUTPUT as the runner reads it: `name=value` lines and `name<<DELIM` heredocs."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"output {name!r}: delimiter {delimiter!r} never closes")
            i += 1
            outputs[name] = "\n".join(value)
        else:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


def parse_commands(stdout: str) -> tuple[list[Annotation], list[str]]:
    """Annotations and `::add-mask::` values, honouring `::stop-commands::`."""
    annotations: list[Annotation] = []
    masks: list[str] = []
    stopped: str | None = None
    for line in stdout.split("\n"):
        line = line.rstrip("\r")
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        m = _COMMAND.match(line)
        if m is None:
            continue
        name, data = m.group("name"), m.group("data")
        if name == "stop-commands":
            stopped = data
        elif name == "add-mask":
            masks.append(data)
        elif name in ("error", "warning", "notice"):
            props = {}
            for prop in (m.group("props") or "").split(","):
                key, sep, value = prop.partition("=")
                if sep:
                    props[key.strip()] = _unescape(value, _PROPERTY_ESCAPES)
            annotations.append(Annotation(name, props.get("file"), int(props["line"]) if "line" in props else None,
                                          props.get("title"), _unescape(data, _DATA_ESCAPES), line))
    return annotations, masks


def run_step(*, workspace: Path, event_name: str, payload: dict[str, Any], repository: str, api_url: str,
             server_url: str | None = None, inputs: dict[str, str] | None = None, home: Path | None = None,
             extra_env: dict[str, str] | None = None, timeout: float = 300,
             runner: Runner = run_subprocess) -> StepResult:
    """One `memshelf-bot action` step in a subprocess, with a runner-like environment."""
    with tempfile.TemporaryDirectory(prefix="memshelf-bot-step-") as tmp:
        scratch = Path(tmp)
        event_path = scratch / "event.json"
        event_path.write_text(json.dumps(payload), encoding="utf-8")
        output_path, summary_path = scratch / "output", scratch / "summary"
        output_path.touch()
        summary_path.touch()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_", "GIT_"))}
        env.update({
            "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_WORKSPACE": str(workspace), "GITHUB_REPOSITORY": repository, "GITHUB_API_URL": api_url,
            "GITHUB_SERVER_URL": server_url or api_url, "GITHUB_OUTPUT": str(output_path),
            "GITHUB_STEP_SUMMARY": str(summary_path), "HOME": str(home or scratch),
            "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1",
        })
        env.update({f"INPUT_{name.upper()}": value for name, value in (inputs or {}).items()})
        env.update(extra_env or {})
        proc = runner(ACTION_COMMAND, cwd=workspace, env=env, timeout=timeout)
        annotations, masks = parse_commands(proc.stdout)
        return StepResult(proc.returncode, proc.stdout, proc.stderr,
                          parse_outputs(output_path.read_text(encoding="utf-8")),
                          summary_path.read_text(encoding="utf-8"), annotations, masks)
