"""Jobs share a repository's kept object store: a pull request's check and a render after a
merge, run at once through the door, again and again, both finish as they would alone — the
render's fetch of the latest main from inside its worktree and the check's fetch of its head take
the store's lock, so neither finds the store's shallow file changed under it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.app.auth import InstallationTokens
from bot.app.config import AppConfig, load_config
from bot.app.door import run_route
from bot.flows.result import FlowOutcome, FlowResult
from bot.router import Route
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from tests.action_harness import episode
from tests.app_helpers import rsa_pem
from tests.e2e.test_app_fetch import APP_ID, BOT, SLUG, pull_route, push_route
from tests.shelfgen import generate_shelf

ROUNDS = 6
pytestmark = pytest.mark.slow


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Sandbox, AppConfig, int]]:
    seed = generate_shelf(tmp_path / "seed", seed=7, episodes=60, archive=4, quirks=False).root
    shelf, problems = load_shelf(seed)
    assert shelf is not None, problems
    render_shelf(shelf)
    seed_bare_repo(seed, tmp_path / "shelf.git")
    pem = rsa_pem()
    with Sandbox.start(tmp_path / "shelf.git", "octo/shelf",
                       app=App.from_private_key(APP_ID, pem.encode(), slug=SLUG)) as sb:
        config = load_config({"MEMSHELF_BOT_APP_ID": str(APP_ID), "MEMSHELF_BOT_PRIVATE_KEY": pem,
                              "MEMSHELF_BOT_WEBHOOK_SECRET": "s"}, sb.api_url)
        installation = InstallationTokens(config).integration.get_repo_installation("octo", "shelf").id
        yield sb, config, installation
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


def run_together(jobs: list[tuple[Route, str]], config: AppConfig, data: Path) -> dict[str, Any]:
    """Each (route, key) as a job of its own thread (its own tokens), all started at once; key ->
    the result or the exception."""
    results: dict[str, Any] = {}
    start = threading.Barrier(len(jobs))

    def work(routed: Route, key: str) -> None:
        tokens = InstallationTokens(config)
        start.wait()
        try:
            results[key] = run_route(routed, key=key, config=config, tokens=tokens, login=BOT, data_dir=data)
        except Exception as exc:  # reported by the test, with the job it failed
            results[key] = exc

    threads = [threading.Thread(target=work, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_a_check_and_a_render_share_a_store_without_a_race(app: Any, tmp_path: Path) -> None:
    sb, config, installation = app
    data = tmp_path / "data"
    for n in range(ROUNDS):
        merged = push_route(sb, installation, {f"docs/topics/2027-01-{n + 1:02d}-merged.md":
                                               episode(f"2027-01-{n + 1:02d}-merged", title=f"Merged {n}")})
        pulls = [pull_route(sb, installation, f"shelve/r{n}-{i}",
                            {f"docs/topics/2027-02-{n + 1:02d}-pr{i}.md":
                             episode(f"2027-02-{n + 1:02d}-pr{i}", title=f"Pull {n} {i}")}) for i in range(2)]
        results = run_together([(merged, f"render:{n}"), *((p, f"check:{n}:{i}") for i, p in enumerate(pulls))],
                               config, data)
        failed = {key: value for key, value in results.items() if not isinstance(value, FlowResult)}
        assert not failed, (n, failed)
        assert results[f"render:{n}"].outcome is FlowOutcome.DONE, (n, results[f"render:{n}"])
        for i in range(2):
            checked = results[f"check:{n}:{i}"]
            assert checked.outcome is FlowOutcome.DONE and checked.episodes == 1, (n, i, checked)
    assert not list((data / "git").glob("*/*.git/worktrees/*")), "a job's worktree was left in the store"
    assert list((data / "cache").glob("rows-*")), "the render kept its rows beside the stores"
