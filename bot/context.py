"""The Action's front door: one step's `GITHUB_*` environment and inputs made into a `Job` (the
typed event, the GitHub port over the job's token, the workflow reporter, the workspace). Nothing
past this module reads the environment.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from memshelf_render.cache import EpisodeCache, cache_dir

from .events import Event
from .inputs import Inputs
from .job import Job, Workspace
from .port import WRITE_SPACING, GitHubPort, Wait
from .report import Reporter

WRITE_SPACING_VAR = "MEMSHELF_BOT_WRITE_SPACING"


class ContextError(ValueError):
    """The environment is not an Actions step the bot can run in (exit 2)."""


def _required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise ContextError(f"{name} is not set: run memshelf-bot action inside a GitHub Actions step")
    return value


def read_event(env: Mapping[str, str]) -> Event:
    """The event this step runs for: GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH."""
    name = _required(env, "GITHUB_EVENT_NAME")
    event_path = env.get("GITHUB_EVENT_PATH", "")
    payload: dict[str, Any] = {}
    if event_path:
        try:
            loaded = json.loads(Path(event_path).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise ContextError(f"cannot read the event payload at GITHUB_EVENT_PATH: {exc}") from exc
        if not isinstance(loaded, dict):
            raise ContextError("the event payload at GITHUB_EVENT_PATH is not a JSON object")
        payload = loaded
    return Event.from_payload(name, payload)


def write_spacing(env: Mapping[str, str]) -> float:
    """Seconds between the bot's writes: GitHub's secondary-limit advice, unless
    `MEMSHELF_BOT_WRITE_SPACING` says otherwise (an API without such limits, e.g. the sandbox)."""
    raw = env.get(WRITE_SPACING_VAR, "").strip()
    if not raw:  # the default lives in the port: importing the adapter here would cost every run PyGithub
        return WRITE_SPACING
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise ContextError(f"{WRITE_SPACING_VAR} must be a number of seconds from 0 to 60, got {raw!r}")
    return value


class LazyPort:
    """The adapter, made on the first call: `mode: validate` and the local flows never pay for
    importing PyGithub (most of the Action's start-up otherwise)."""

    def __init__(self, connect: Callable[[], GitHubPort]) -> None:
        self._connect = connect
        self._port: GitHubPort | None = None

    def __getattr__(self, name: str) -> Any:
        if self._port is None:
            self._port = self._connect()
        return getattr(self._port, name)

    @property
    def waits(self) -> Sequence[Wait]:
        """The rate-limit waits so far: none before a call has connected (every check's summary
        asks, and asking must not import PyGithub)."""
        return () if self._port is None else self._port.waits


def build(env: Mapping[str, str], inputs: Inputs, reporter: Reporter) -> Job:
    """The job of one Actions step."""
    event = read_event(env)
    full_name = _required(env, "GITHUB_REPOSITORY")
    api_url = env.get("GITHUB_API_URL") or "https://api.github.com"
    server_url = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    token = inputs.token or env.get("GITHUB_TOKEN", "")
    spacing = write_spacing(env)

    def connect() -> GitHubPort:
        from .adapters.pygithub import PyGithubPort

        return PyGithubPort(token, api_url, full_name, notify=reporter.log, write_spacing=spacing)

    port = cast(GitHubPort, LazyPort(connect))
    run_id = env.get("GITHUB_RUN_ID")
    workspace = Workspace(root=Path(env.get("GITHUB_WORKSPACE") or os.getcwd()),
                          remote_url=f"{server_url}/{full_name}.git", token=token, shelf_path=inputs.shelf_path,
                          overrides=inputs.overrides,
                          run_url=f"{server_url}/{full_name}/actions/runs/{run_id}" if run_id else None)
    return Job(event, port, reporter, workspace, cache=episode_cache(env, workspace.root))


def episode_cache(env: Mapping[str, str], workspace: Path) -> EpisodeCache:
    """The episode cache of an Action run: `MEMSHELF_BOT_CACHE_DIR` (a relative one is taken
    from the workspace, where the workflow's `actions/cache` step restores it: the container sees
    the workspace at another path than the runner), else the default under the container's home."""
    directory = cache_dir(env)
    if directory is not None and not directory.is_absolute():
        directory = workspace / directory
    return EpisodeCache(directory)


CONTAINER_WORKSPACE = "/github/workspace"  # where GitHub mounts the workspace into a container action


def trust_workspace(workspace: Path, reporter: Reporter) -> None:
    """Inside the Action's container, add the workspace to git's `safe.directory` (the
    container's user does not own the mounted checkout). Anywhere else (`memshelf-bot action` run
    on a runner or a laptop) the user's global git configuration is never touched."""
    where = str(workspace)
    if where != CONTAINER_WORKSPACE:
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        listed = subprocess.run(["git", "config", "--global", "--get-all", "safe.directory"], env=env,
                                capture_output=True, text=True, check=False).stdout.split("\n")
        if where not in listed and "*" not in listed:
            subprocess.run(["git", "config", "--global", "--add", "safe.directory", where], env=env,
                           capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        reporter.log(f"memshelf-bot: could not mark {where} as a safe git directory: {exc}")
