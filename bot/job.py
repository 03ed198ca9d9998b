"""One job of the bot, whichever front door started it: the event, the GitHub port, the reporter,
the sinks and the workspace. Flows take a `Job` and nothing else (they never read env vars or
payloads, nor which door built the job) and return a `FlowResult`.

The Action builds a job from `GITHUB_*` and `INPUT_*` (bot/context.py, bot/action.py); the App
builds one from a routed event and an installation token (bot/app/door.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from memshelf_render.cache import EpisodeCache
from memshelf_render.findings import Finding
from memshelf_render.redact import PolicyPack
from memshelf_render.shelf import SETTINGS, Settings, Shelf, load_settings, load_shelf

from .events import Event
from .gitlocal import LocalRepo
from .port import GitHubPort
from .report import Reporter, Sink


@dataclass
class Workspace:
    """Where the job's files are: the checkout (`root`; the Action's workspace, or a scratch
    directory), the shelf inside it, the settings the front door lays over the shelf's own, and
    how to reach the repository with git."""

    root: Path
    remote_url: str  # e.g. https://github.com/octo/shelf.git
    token: str = ""
    shelf_path: str = "."
    overrides: Mapping[str, Any] = field(default_factory=dict)
    run_url: str | None = None  # the page that shows this run's report

    @property
    def prefix(self) -> str:
        """The shelf's directory inside the repository ('' for the root)."""
        return "" if self.shelf_path == "." else self.shelf_path

    @cached_property
    def local(self) -> LocalRepo:
        return LocalRepo.open(self.root, self.remote_url, self.token)

    def apply(self, settings: Settings) -> Settings:
        """`settings` with every override laid over them (in place, returned)."""
        for key, value in self.overrides.items():
            setattr(settings, key, value)
        return settings

    def close(self) -> None:
        if "local" in self.__dict__:
            self.local.close()


@dataclass
class Job:
    """`sinks`: where each check's publication goes besides the reporter, as the front door
    picked them (the sticky comment, the check run, review suggestions, a SARIF file).
    `cache`: the episode cache the door chose (None: every episode is parsed and checked)."""

    event: Event
    port: GitHubPort
    reporter: Reporter
    workspace: Workspace
    sinks: list[Sink] = field(default_factory=list)
    cache: EpisodeCache | None = None

    @property
    def prefix(self) -> str:
        return self.workspace.prefix

    @property
    def full_name(self) -> str:
        return self.port.full_name

    def default_branch(self) -> str:
        return self.event.default_branch or self.port.default_branch()

    def load(self, repo_root: Path, settings: Settings | None = None,
             policy_text: str | None = None) -> tuple[Shelf | None, list[Finding]]:
        """The shelf under `repo_root` with `settings` (else its own file's) under the overrides;
        the reporter masks with `policy_text` (else the shelf's own POLICY.patterns) from here on."""
        shelf, problems = load_shelf(repo_root / self.workspace.shelf_path)
        if shelf is None:
            return None, problems
        if settings is not None:
            shelf.settings = settings
        self.workspace.apply(shelf.settings)
        self.reporter.use_policy(PolicyPack.parse(
            policy_text if policy_text is not None else shelf.read_text(shelf.patterns_path)))
        return shelf, []


def settings_from_bytes(data: bytes | None) -> tuple[Settings | None, list[Finding]]:
    """`.memshelf-bot.yml` content (e.g. the base branch's, read through the API) as Settings,
    checked exactly as a file on disk would be; None bytes are the defaults."""
    if data is None:
        return Settings(), []
    with tempfile.TemporaryDirectory(prefix="memshelf-bot-settings-") as tmp:
        (Path(tmp) / SETTINGS).write_bytes(data)
        return load_settings(Path(tmp))
