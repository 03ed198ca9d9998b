"""Shelf repositories for the App's process tests: the example shelf, rendered, in bare
repositories served by one in-process sandbox that plays GitHub for the App; episodes land on
main straight in git (as a merge would), and what main holds is checked with the core."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.app.store import State, Store
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.demo import GOOD_TEXT
from memshelf_sandbox.demo_stage import EXAMPLE
from memshelf_sandbox.gitstore import Person

RENDER_MESSAGE = "memshelf-bot: render derived files"
HANDLED_TIMEOUT = 150.0
WHO = Person("Merger", "merger@example.com", "2026-10-01T10:00:00Z")


def seed_repos(tmp: Path, names: list[str]) -> list[tuple[Path, str]]:
    seed = tmp / "seed"
    shutil.copytree(EXAMPLE, seed)
    shelf, problems = load_shelf(seed)
    assert shelf is not None, problems
    render_shelf(shelf)
    repos = []
    for name in names:
        bare = tmp / f"{name.replace('/', '-')}.git"
        seed_bare_repo(seed, bare)
        repos.append((bare, name))
    return repos


def episode(stem: str) -> str:
    return GOOD_TEXT.replace("2026-09-23-ups-runtime-test", stem)


def land(sb: Sandbox, name: str, stem: str) -> str:
    """Commit one episode on main of `name` (retrying when the bot moved main meanwhile)."""
    store = sb.core(name).repo.store
    while True:
        parent = store.ref("refs/heads/main")
        assert parent
        tree = store.commit(parent).tree
        blob = store.write_blob(episode(stem).encode())
        sha = store.write_commit(store.write_tree(tree, [(f"docs/sessions/{stem}.md", "100644", blob)]), [parent],
                                 f"Merge {stem}\n", WHO, WHO)
        if store.update_ref("refs/heads/main", sha, parent):
            return sha


def push_payload(sb: Sandbox, name: str, after: str, installation: int, sender: str = "merger") -> bytes:
    """A push to main as GitHub sends it, cut to what the App reads."""
    return json.dumps({
        "ref": "refs/heads/main", "before": "0" * 40, "after": after, "created": False, "deleted": False,
        "forced": False, "commits": [], "pusher": {"name": sender},
        "repository": {"full_name": name, "name": name.split("/")[1], "default_branch": "main",
                       "clone_url": f"{sb.api_url}/{name}.git"},
        "installation": {"id": installation}, "sender": {"login": sender, "type": "User"},
    }).encode()


def main_is_rendered(bare: Path, stems: list[str]) -> list[str]:
    """What is wrong with main: a missing episode, an episode missing from INDEX.md, drift."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        tar = subprocess.run(["git", "--git-dir", str(bare), "archive", "main"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=tar.stdout, check=True)
        root = Path(tmp)
        index = (root / "INDEX.md").read_text(encoding="utf-8")
        for stem in stems:
            if not (root / "docs" / "sessions" / f"{stem}.md").exists():
                problems.append(f"{stem}: not on main")
            elif stem not in index:
                problems.append(f"{stem}: not in INDEX.md")
        check = subprocess.run([sys.executable, "-m", "bot.cli", "render", "--check", str(root)],
                               capture_output=True, text=True, check=False)
        if check.returncode != 0:
            problems.append("render --check: " + check.stdout[-500:])
    return problems


def render_commits(bare: Path) -> list[tuple[str, str, str]]:
    """(commit, its tree, its parent's tree) of each render commit on main's first-parent line."""
    log = subprocess.run(["git", "--git-dir", str(bare), "log", "--first-parent", "--format=%H %T %P%x00%s", "main"],
                         capture_output=True, text=True, check=True).stdout
    found = []
    for line in log.splitlines():
        head, _, subject = line.partition("\0")
        sha, tree, *parents = head.split()
        if subject.startswith(RENDER_MESSAGE) and parents:
            parent_tree = subprocess.run(["git", "--git-dir", str(bare), "rev-parse", f"{parents[0]}^{{tree}}"],
                                         capture_output=True, text=True, check=True).stdout.strip()
            found.append((sha, tree, parent_tree))
    return found


def wait_handled(store: Store, keys: set[str], timeout: float = HANDLED_TIMEOUT) -> None:
    """Until every delivery in `keys` succeeded or failed (else an AssertionError)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = [k for k in keys if (d := store.get(k)) is None or d.state not in (
            State.SUCCEEDED, State.FAILED)]
        if not pending:
            return
        time.sleep(0.25)
    raise AssertionError(f"{len(pending)} deliveries not handled in {timeout} s, e.g. {pending[:3]}")
