"""The pre-commit hooks (.pre-commit-hooks.yaml), run by the real `pre-commit` on a temporary
shelf repository: memshelf-validate passes a clean shelf and fails a bad staged episode;
memshelf-render passes a rendered shelf and fails (having rewritten them) when the derived files
were stale.

Both hooks run once through `pre-commit try-repo <repo> --ref <rev>` itself, as a shelf user
tries them, on a clean rendered shelf. `try-repo` builds the hooks' virtualenv afresh in a store of
its own on every call (the package and every dependency from pip's cache: the suite's costliest
setup), so the other runs use what `try-repo` does underneath instead — a config naming this
repository (a snapshot commit of the work tree) at that rev, run with `pre-commit run` — over one
store for the module, where both hooks share one environment. So the module builds two
environments, not one per run. Both builds prefer wheels (`PIP_PREFER_BINARY`), skip
byte-compiling what they install (`PIP_NO_COMPILE`: a hook compiles only what it imports, and that
is not what is tested) and go through the environment's own pip configuration and cache.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.shelfkit import TOPIC, TOPIC_PATH, make_shelf, run_cli

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
NEW = "docs/topics/2026-02-01-new-idea.md"
FIXED_DATE = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", **FIXED_DATE}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """This work tree as one commit (what `try-repo` installs) and a pre-commit home for the module."""
    where = tmp_path_factory.mktemp("hooks-repo")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file() and not source.is_symlink():
            (where / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, where / rel)
    git(where, "init", "-q", "-b", "main")
    git(where, "add", "-A")
    git(where, "commit", "-qm", "snapshot")
    return where, git(where, "rev-parse", "HEAD").strip(), tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def shelf_repo(tmp_path: Path) -> Path:
    root = make_shelf(tmp_path / "shelf")
    assert run_cli("render", str(root)).returncode == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "shelf")
    return root


def _pre_commit(args: list[str], shelf: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "PIP_NO_INPUT": "1",
           "PIP_PREFER_BINARY": "1", "PIP_NO_COMPILE": "1"}
    return subprocess.run([str(PRE_COMMIT), *args], cwd=shelf, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def try_repo(hooks: tuple[Path, str, Path], shelf: Path) -> subprocess.CompletedProcess:
    """`pre-commit try-repo <repo> --ref <rev> --all-files` (every hook of the repository), as a user runs it."""
    repo, rev, home = hooks
    return _pre_commit(["try-repo", str(repo), "--ref", rev, "--all-files"], shelf, home)


def run_from_store(hooks: tuple[Path, str, Path], shelf: Path, hook: str) -> subprocess.CompletedProcess:
    """What `try-repo` runs (a config naming the repository at the rev), over the module's one store."""
    repo, rev, home = hooks
    config = home / f"try-{hook}.yaml"
    config.write_text(yaml.safe_dump({"repos": [{"repo": str(repo), "rev": rev, "hooks": [{"id": hook}]}]}),
                      encoding="utf-8")
    return _pre_commit(["run", hook, "--config", str(config), "--all-files"], shelf, home)


def test_the_hooks_are_python_hooks_named_as_documented() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [(h["id"], h["language"]) for h in hooks] == [("memshelf-validate", "python"),
                                                         ("memshelf-render", "python")]
    validate, render = hooks
    assert (validate["entry"], validate["args"]) == ("memshelf-bot validate", ["--changed"])  # PR mode
    assert render["pass_filenames"] is False and render["always_run"] is True


def test_try_repo_runs_both_hooks_green_on_a_clean_rendered_shelf(hooks_repo, shelf_repo: Path) -> None:
    clean = try_repo(hooks_repo, shelf_repo)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    passed = re.findall(r"^memshelf-bot (validate|render) .*Passed$", clean.stdout, re.MULTILINE)
    assert sorted(passed) == ["render", "validate"], clean.stdout


def test_validate_is_red_with_a_bad_episode(hooks_repo, shelf_repo: Path) -> None:
    (shelf_repo / NEW).write_text(TOPIC, encoding="utf-8")  # the id is the other file's
    git(shelf_repo, "add", NEW)
    bad = run_from_store(hooks_repo, shelf_repo, "memshelf-validate")
    assert bad.returncode == 1 and "Failed" in bad.stdout and "[id-mismatch]" in bad.stdout, bad.stdout


def test_render_is_green_when_fresh_and_rewrites_then_fails_when_stale(hooks_repo, shelf_repo: Path) -> None:
    fresh = run_from_store(hooks_repo, shelf_repo, "memshelf-render")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    (shelf_repo / NEW).write_text(TOPIC.replace("2026-01-05-cache-policy", "2026-02-01-new-idea"), encoding="utf-8")
    git(shelf_repo, "add", NEW)
    stale = run_from_store(hooks_repo, shelf_repo, "memshelf-render")
    assert stale.returncode == 1 and "INDEX.md" in stale.stdout, stale.stdout
    assert "2026-02-01-new-idea" in (shelf_repo / "ledger.tsv").read_text(encoding="utf-8")
    git(shelf_repo, "add", "-A")
    assert run_from_store(hooks_repo, shelf_repo, "memshelf-render").returncode == 0


def test_a_topic_path_is_what_the_validate_hook_selects() -> None:
    [validate, _] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    pattern = re.compile(validate["files"])
    assert pattern.search(TOPIC_PATH) and pattern.search("archive/docs/sessions/2026-01-01-x.md")
    assert not pattern.search("INDEX.md") and not pattern.search("docs/topics/sub/x.md")
