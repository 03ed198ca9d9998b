"""The App fetches what is new: a pull request's check on a big shelf, through the door with a
kept object store, downloads a small part of what a full shallow clone of the shelf does, and
gives exactly the result a fresh clone gives. Bytes are counted by the sandbox (what its git smart
HTTP served), never timed."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.app.auth import InstallationTokens
from bot.app.config import AppConfig, load_config
from bot.app.door import run_route
from bot.app.workspace import ObjectStores
from bot.events import Event
from bot.gitlocal import GitFailed, LocalRepo
from bot.router import FlowName, Route, route
from memshelf_render.cache import EpisodeCache
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from tests.action_harness import episode
from tests.app_helpers import rsa_pem
from tests.sandbox_fixtures import branch_with, pull_request_event, push_event
from tests.shelfgen import generate_shelf

APP_ID, SLUG, BOT = 4747, "shelf-app", "shelf-app[bot]"
EPISODES = 1000
NEW = "docs/topics/2026-09-23-new-ups.md"
pytestmark = pytest.mark.slow


def git_bytes(sb: Sandbox, since: int = 0) -> int:
    """Bytes the sandbox's git smart HTTP served in the calls after the first `since`."""
    return sum(c.sent or 0 for c in sb.calls[since:] if "/info/refs" in c.path or "/git-upload-pack" in c.path)


@pytest.fixture(scope="module")
def big_shelf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rendered shelf of EPISODES episodes, made once for the module."""
    seed = generate_shelf(tmp_path_factory.mktemp("big") / "seed", seed=22, episodes=EPISODES, archive=20,
                          quirks=False).root
    shelf, problems = load_shelf(seed)
    assert shelf is not None, problems
    render_shelf(shelf)
    return seed


@pytest.fixture
def big_app(big_shelf: Path, tmp_path: Path) -> Iterator[tuple[Sandbox, AppConfig, InstallationTokens, int]]:
    seed_bare_repo(big_shelf, tmp_path / "shelf.git")
    pem = rsa_pem()
    with Sandbox.start(tmp_path / "shelf.git", "octo/shelf",
                       app=App.from_private_key(APP_ID, pem.encode(), slug=SLUG)) as sb:
        config = load_config({"MEMSHELF_BOT_APP_ID": str(APP_ID), "MEMSHELF_BOT_PRIVATE_KEY": pem,
                              "MEMSHELF_BOT_WEBHOOK_SECRET": "s"}, sb.api_url)
        tokens = InstallationTokens(config)
        yield sb, config, tokens, tokens.integration.get_repo_installation("octo", "shelf").id
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


def pull_route(sb: Sandbox, installation: int, branch: str, files: dict[str, str]) -> Route:
    sha = branch_with(sb, branch, files, message=f"shelve {branch}")
    pull = sb.github().get_repo(sb.full_name).create_pull(title=branch, body="", head=branch, base="main")
    payload = pull_request_event(sb, pull.number)
    payload["installation"] = {"id": installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
    routed = route(Event.from_payload("pull_request", payload))
    assert routed is not None and routed.flow is FlowName.CHECK_PR and routed.event.head_sha == sha
    return Route.from_json(routed.to_json())


def shallow_clone_bytes(sb: Sandbox, where: Path) -> int:
    before = len(sb.calls)
    subprocess.run(["git", "-c", "credential.helper=", "clone", "--quiet", "--depth=1", "--no-checkout",
                    sb.git_url("ghs_agent"), str(where)], check=True, capture_output=True)
    return git_bytes(sb, before)


def check_summary(sb: Sandbox, sha: str, external_id: str) -> tuple[Any, ...]:
    runs = [r for r in sb.github().get_repo(sb.full_name).get_commit(sha).get_check_runs(filter="all")
            if r.external_id == external_id]
    [run] = runs
    return run.conclusion, run.output.title, run.output.summary, run.output.text, run.output.annotations_count


def test_a_pull_request_check_fetches_what_it_reads(big_app: Any, tmp_path: Path) -> None:
    """The first check of a repository (an empty store, an empty cache) fetches the head's trees
    and the blobs it reads, not the episodes it leaves alone; the next fetches what is new; both
    give exactly what a full clone gives."""
    sb, config, tokens, installation = big_app
    full = shallow_clone_bytes(sb, tmp_path / "full")
    data = tmp_path / "data"

    first = pull_route(sb, installation, "shelve/first", {"docs/topics/2026-09-22-first.md":
                                                          episode("2026-09-22-first", title="First")})
    before = len(sb.calls)
    cold = run_route(first, key="first:1", config=config, tokens=tokens, login=BOT, data_dir=data)
    cold_bytes = git_bytes(sb, before)
    assert 0 < cold_bytes <= 0.25 * full, (cold_bytes, full)
    assert_same_as_a_full_clone(sb, config, tokens, first, cold, "first")

    routed = pull_route(sb, installation, "shelve/ups", {NEW: episode("2026-09-23-new-ups", title="New UPS")})
    before = len(sb.calls)
    kept = run_route(routed, key="ups:1", config=config, tokens=tokens, login=BOT, data_dir=data)
    fetched = git_bytes(sb, before)
    assert 0 < fetched <= 0.05 * full, (fetched, full)
    assert_same_as_a_full_clone(sb, config, tokens, routed, kept, "ups")
    assert not list((data / "git").glob("*/*.git/worktrees/*")), "a job's worktree was left in the store"


def assert_same_as_a_full_clone(sb: Sandbox, config: AppConfig, tokens: InstallationTokens, routed: Route,
                                result: Any, key: str) -> None:
    """The check `result` (check run `<key>:1`) is what the same check on a fresh clone gives."""
    fresh = run_route(routed, key=f"{key}:2", config=config, tokens=tokens, login=BOT)
    assert result.episodes == fresh.episodes and result.episodes is not None
    assert replace(result, posted=()) == replace(fresh, posted=())  # every field but the sinks' links
    head = routed.event.head_sha
    assert check_summary(sb, head, f"{key}:1") == check_summary(sb, head, f"{key}:2")


def test_a_check_of_a_branch_main_moved_past_reads_what_main_changed(big_app: Any, tmp_path: Path) -> None:
    """Episodes main changed after the branch was cut are the head's own, not the base's: read,
    not taken from the base's derived files. A stale derived file of the base leaves the rows
    of the episodes it lists to be parsed too. Same result as a full clone."""
    sb, config, tokens, installation = big_app
    data = tmp_path / "data"
    main = sb.store.ref("refs/heads/main")
    listing = sb.store.out("ls-tree", "-r", "--name-only", main, "docs/topics/").split()
    episodes = [path for path in listing if path.endswith(".md")]
    changed_on_main, renamed_title = episodes[3], episodes[5]
    sha = branch_with(sb, "shelve/late", {"docs/topics/2026-09-24-late.md": episode("2026-09-24-late",
                                                                                     title="Late")})
    branch_with(sb, "main", {changed_on_main: episode(changed_on_main.rsplit("/", 1)[1][:-3], title="Changed on main"),
                             renamed_title: episode(renamed_title.rsplit("/", 1)[1][:-3], title="Retitled")})
    pull = sb.github().get_repo(sb.full_name).create_pull(title="late", body="", head="shelve/late", base="main")
    payload = pull_request_event(sb, pull.number)
    payload["installation"] = {"id": installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
    routed = Route.from_json(route(Event.from_payload("pull_request", payload)).to_json())
    assert routed.event.head_sha == sha
    result = run_route(routed, key="late:1", config=config, tokens=tokens, login=BOT, data_dir=data)
    assert_same_as_a_full_clone(sb, config, tokens, routed, result, "late")


def test_stores_over_the_bound_lose_the_least_recently_used_not_one_in_use(tmp_path: Path) -> None:
    import fcntl
    import os

    stores = ObjectStores(tmp_path / "git", bound=3000)
    for i, name in enumerate(("octo/a", "octo/b", "octo/c")):
        store = stores.store_of(name)
        store.mkdir(parents=True)
        (store / "objects").write_bytes(b"x" * 1500)
        lock = store.with_suffix(".use.lock")
        lock.touch()
        os.utime(lock, (1000 + i, 1000 + i))
    fd = os.open(stores.store_of("octo/a").with_suffix(".use.lock"), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # octo/a is in use by a job
        evicted = stores.evict()
    finally:
        os.close(fd)
    assert evicted == [stores.store_of("octo/b")]
    assert stores.store_of("octo/a").is_dir() and stores.store_of("octo/c").is_dir()
    with pytest.raises(ValueError):
        stores.store_of("../etc")


def test_a_kept_store_is_repacked_once_fetches_left_many_packs(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    shas = []
    for i in range(4):
        (source / "a.md").write_text(f"version {i}\n", encoding="utf-8")
        for args in (("init", "-q") if i == 0 else ("status",), ("add", "a.md"),
                     ("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", str(i))):
            subprocess.run(["git", *args], cwd=source, check=True, capture_output=True)
        shas.append(subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, check=True, capture_output=True,
                                   text=True).stdout.strip())
    subprocess.run(["git", "config", "uploadpack.allowFilter", "true"], cwd=source, check=True)
    store = LocalRepo.kept(tmp_path / "store.git", f"file://{source}", "")
    for sha in shas:
        store.fetch_blobless(sha)
    packs = store.path / "objects" / "pack"
    assert len(list(packs.glob("*.pack"))) == 4
    with pytest.raises(GitFailed):
        store.fetch_blobless(f"{shas[0]}:refs/heads/main")
    store.tidy(packs=3)
    assert len(list(packs.glob("*.pack"))) == 1
    assert store.git("cat-file", "-p", f"{shas[-1]}:a.md") == "version 3\n"  # a lazy fetch still works


def push_route(sb: Sandbox, installation: int, files: dict[str, str]) -> Route:
    before = sb.store.ref("refs/heads/main")
    after = branch_with(sb, "main", files, message="merge an episode")
    payload = push_event(sb, "refs/heads/main", before, after, pusher="writer")
    payload["installation"] = {"id": installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
    routed = route(Event.from_payload("push", payload))
    assert routed is not None and routed.flow is FlowName.RENDER
    return Route.from_json(routed.to_json())


def test_a_render_after_a_merge_fetches_only_the_new_objects(big_app: Any, tmp_path: Path) -> None:
    sb, config, tokens, installation = big_app
    full = shallow_clone_bytes(sb, tmp_path / "full")
    data = tmp_path / "data"
    first = push_route(sb, installation, {"docs/topics/2026-09-22-first.md": episode("2026-09-22-first")})
    before = len(sb.calls)
    assert run_route(first, key="render:1", config=config, tokens=tokens, login=BOT, data_dir=data).commit_sha
    cold = git_bytes(sb, before)

    second = push_route(sb, installation, {NEW: episode("2026-09-23-new-ups", title="New UPS")})
    before = len(sb.calls)
    rendered = run_route(second, key="render:2", config=config, tokens=tokens, login=BOT, data_dir=data)
    assert rendered.commit_sha and rendered.changed
    warm = git_bytes(sb, before)
    new = new_blob_bytes(sb, first.event.after, second.event.after)  # the episode, the derived files render 1 made
    assert cold > full / 2 and 0 < warm <= new + 16_384 and warm < 0.2 * full, (cold, warm, new, full)


def new_blob_bytes(sb: Sandbox, old: str, new: str) -> int:
    """The size of the blobs in commit `new`'s tree that commit `old`'s lacks."""
    changed = sb.store.out("diff-tree", "-r", "--no-renames", "--no-abbrev", old, new).splitlines()
    blobs = {line.split()[3] for line in changed if line.startswith(":") and not line.split()[3].startswith("0000")}
    return sum(int(sb.store.out("cat-file", "-s", blob)) for blob in blobs)


def test_a_check_takes_the_rows_the_cache_holds_by_blob_id(big_app: Any, tmp_path: Path) -> None:
    """An episode main changed without a render since (its row in main's ledger is stale): a
    check on an empty store takes its row from the episode cache a render left, by the blob id
    the head's tree gives, not from the stale ledger; same result as a full clone."""
    sb, config, tokens, installation = big_app
    data = tmp_path / "data"
    main = sb.store.ref("refs/heads/main")
    edited = [p for p in sb.store.out("ls-tree", "-r", "--name-only", main, "docs/topics/").split()
              if p.endswith(".md")][7]
    stem = edited.rsplit("/", 1)[1][:-3]
    branch_with(sb, "main", {edited: episode(stem, title="Edited on main, not rendered yet")})
    checkout = tmp_path / "main"
    subprocess.run(["git", "-c", "credential.helper=", "clone", "--quiet", "--depth=1", sb.git_url("ghs_agent"),
                    str(checkout)], check=True, capture_output=True)
    shelf, problems = load_shelf(checkout)
    assert shelf is not None, problems
    render_shelf(shelf, check=True, cache=EpisodeCache(data / "cache"))  # what a render leaves beside the stores
    routed = pull_route(sb, installation, "shelve/cached", {"docs/topics/2026-09-25-cached.md":
                                                            episode("2026-09-25-cached", title="Cached")})
    result = run_route(routed, key="cached:1", config=config, tokens=tokens, login=BOT, data_dir=data)
    assert_same_as_a_full_clone(sb, config, tokens, routed, result, "cached")


def test_a_checkout_without_files_writes_the_paths_named_literally(tmp_path: Path) -> None:
    """The PR check's seam: a store's worktree made without files lists every entry from the
    trees alone, and writes exactly the paths it is given — a glob-shaped or odd name is a name."""
    source = tmp_path / "source"
    (source / "d").mkdir(parents=True)
    names = ["d/a*.md", "d/ab.md", "d/line\nbreak.md", "d/:(glob)x.md"]
    for name in names:
        (source / name).write_text(f"{name}\n", encoding="utf-8")
    for args in (("init", "-q"), ("add", "."), ("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x"),
                 ("config", "uploadpack.allowFilter", "true")):
        subprocess.run(["git", *args], cwd=source, check=True, capture_output=True)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, check=True, capture_output=True,
                         text=True).stdout.strip()
    store = LocalRepo.kept(tmp_path / "store.git", f"file://{source}", "")
    store.fetch_blobless(sha)
    tree = tmp_path / "tree"
    store.git("worktree", "add", "--quiet", "--detach", "--no-checkout", str(tree), sha)
    local = LocalRepo.open(tree, f"file://{source}", "")
    assert local.lazy and local.unfilled()
    assert sorted(local.files(sha)) == sorted(names)
    local.check_out(sha, ["d/a*.md", "d/line\nbreak.md", "d/:(glob)x.md"])
    assert sorted(p.name for p in (tree / "d").iterdir()) == sorted(["a*.md", "line\nbreak.md", ":(glob)x.md"])
    assert not local.unfilled()
