"""One Action run's world: the `GITHUB_*` environment, the event, the inputs, the runner, and
(lazily) the GitHub client and the local repository. Flows take this and nothing else.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memshelf_render.findings import Finding
from memshelf_render.redact import PolicyPack
from memshelf_render.shelf import SETTINGS, Settings, Shelf, load_settings, load_shelf

from .github import WRITE_SPACING, GitHub, Wait
from .gitlocal import LocalRepo
from .inputs import Inputs
from .runner import Runner

WRITE_SPACING_VAR = "MEMSHELF_BOT_WRITE_SPACING"


class ContextError(ValueError):
    """The environment is not an Actions step the bot can run in (exit 2)."""


def _required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise ContextError(f"{name} is not set: run memshelf-bot action inside a GitHub Actions step")
    return value


@dataclass
class ActionContext:
    env: Mapping[str, str]
    inputs: Inputs
    runner: Runner
    event_name: str
    event: dict[str, Any]
    workspace: Path
    full_name: str
    api_url: str
    server_url: str
    _local: LocalRepo | None = field(default=None, repr=False)
    _github: GitHub | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str], inputs: Inputs, runner: Runner) -> ActionContext:
        event_path = env.get("GITHUB_EVENT_PATH", "")
        event: dict[str, Any] = {}
        if event_path:
            try:
                loaded = json.loads(Path(event_path).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ContextError(f"cannot read the event payload at GITHUB_EVENT_PATH: {exc}") from exc
            if not isinstance(loaded, dict):
                raise ContextError("the event payload at GITHUB_EVENT_PATH is not a JSON object")
            event = loaded
        return cls(
            env=env, inputs=inputs, runner=runner,
            event_name=_required(env, "GITHUB_EVENT_NAME"), event=event,
            workspace=Path(env.get("GITHUB_WORKSPACE") or os.getcwd()),
            full_name=_required(env, "GITHUB_REPOSITORY"),
            api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
        )

    @property
    def token(self) -> str:
        return self.inputs.token or self.env.get("GITHUB_TOKEN", "")

    @property
    def prefix(self) -> str:
        """The shelf's directory inside the repository ('' for the root)."""
        return "" if self.inputs.shelf_path == "." else self.inputs.shelf_path

    @property
    def github(self) -> GitHub:
        if self._github is None:
            self._github = GitHub(self.token, self.api_url, self.full_name, notify=self.runner.log,
                                  write_spacing=self.write_spacing)
        return self._github

    @property
    def write_spacing(self) -> float:
        """Seconds between the bot's writes: GitHub's secondary-limit advice, unless
        `MEMSHELF_BOT_WRITE_SPACING` says otherwise (an API without such limits, e.g. the sandbox)."""
        raw = self.env.get(WRITE_SPACING_VAR, "").strip()
        if not raw:
            return WRITE_SPACING
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0 <= value <= 60:
            raise ContextError(f"{WRITE_SPACING_VAR} must be a number of seconds from 0 to 60, got {raw!r}")
        return value

    @property
    def waits(self) -> list[Wait]:
        """Every pause GitHub asked for in this run (none when the API was never used)."""
        return self._github.waits if self._github is not None else []

    @property
    def local(self) -> LocalRepo:
        if self._local is None:
            self._local = LocalRepo.open(self.workspace, self.server_url, self.full_name, self.token)
        return self._local

    @property
    def default_branch(self) -> str:
        branch = (self.event.get("repository") or {}).get("default_branch")
        if branch:
            return str(branch)
        return self.github.call("read the repository", lambda: self.github.repo.default_branch)

    @property
    def run_id(self) -> str | None:
        return self.env.get("GITHUB_RUN_ID") or None

    def load(self, repo_root: Path, settings: Settings | None = None) -> tuple[Shelf | None, list[Finding]]:
        """The shelf under `repo_root`, with `settings` (else its own file's) under the inputs;
        the runner masks with the shelf's policy from here on."""
        shelf, problems = load_shelf(repo_root / self.inputs.shelf_path)
        if shelf is None:
            return None, problems
        if settings is not None:
            shelf.settings = settings
        self.inputs.apply(shelf.settings)
        self.runner.policy = PolicyPack.parse(shelf.read_text(shelf.patterns_path))
        return shelf, []

    def close(self) -> None:
        if self._local is not None:
            self._local.close()


def settings_from_bytes(data: bytes | None) -> tuple[Settings | None, list[Finding]]:
    """`.memshelf-bot.yml` content (e.g. the base branch's, read through the API) as Settings,
    checked exactly as a file on disk would be; None bytes are the defaults."""
    if data is None:
        return Settings(), []
    with tempfile.TemporaryDirectory(prefix="memshelf-bot-settings-") as tmp:
        (Path(tmp) / SETTINGS).write_bytes(data)
        return load_settings(Path(tmp))
