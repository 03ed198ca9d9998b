"""Nothing outside the shelf, nothing through a link, nothing but derived paths written, and no
traceback for hostile configs or bad usage (issue 8, items 4, 5 and 10)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memshelf_render import paths
from memshelf_render.render.disk import sync
from memshelf_render.shelf import load_shelf
from tests.hostile import AWS_KEY
from tests.shelfkit import MANIFEST, SESSION_PATH, TOPIC, TOPIC_PATH, make_shelf
from tests.unit.test_hostile_core import run_main


def _outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    (out / "topics").mkdir(parents=True)
    (out / "topics" / "2026-01-01-outside.md").write_text(TOPIC.replace("cache-policy", "outside"), encoding="utf-8")
    (out / "POLICY.md").write_text(f"outside {AWS_KEY}\n", encoding="utf-8")
    return out


@pytest.mark.parametrize("link", ["docs", "archive", "docs/research"])
def test_a_linked_episode_root_is_a_finding_and_never_walked(tmp_path: Path, link: str) -> None:
    out = _outside(tmp_path)
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC} if link != "docs" else {})
    target = root / link
    if target.exists():
        os.rmdir(target) if link != "docs" else os.rename(target, root / "docs-real")
    os.symlink(out if link != "docs/research" else out / "topics", target)
    shelf, problems = load_shelf(root)
    assert shelf is not None and not problems
    assert all("outside" not in ref.path for ref in shelf.layout.episodes)
    assert link in shelf.layout.symlinks
    r = run_main(["validate", str(root), "--format", "json"])
    assert r.code == 1 and '"code": "symlink"' in r.out and "2026-01-01-outside" not in r.out


def test_config_paths_through_a_linked_directory_are_not_read(tmp_path: Path) -> None:
    out = _outside(tmp_path)
    root = make_shelf(tmp_path / "s", manifest=MANIFEST.replace("path: POLICY.md", "path: conf/POLICY.md"))
    os.symlink(out, root / "conf")
    shelf, _ = load_shelf(root)
    assert shelf is not None
    assert shelf.read_bytes("conf/POLICY.md") is None and shelf.is_link("conf/POLICY.md")
    assert paths.problem(root, "conf/POLICY.md") == "lies under conf, a symbolic link (not followed)"
    assert paths.read_regular(root, "../outside/POLICY.md") == (None, "is outside the shelf")
    r = run_main(["validate", str(root), "--format", "json"])
    assert r.code == 1 and '"path": "conf"' in r.out and '"code": "symlink"' in r.out and AWS_KEY not in r.out


@pytest.mark.parametrize("name", [".memshelf-bot.yml", "shelf.yml", ".docshelf.json", TOPIC_PATH])
def test_a_fifo_is_refused_with_a_finding_and_never_opened(tmp_path: Path, name: str) -> None:
    root = make_shelf(tmp_path / "s", {} if name == TOPIC_PATH else None)
    if (root / name).exists():
        (root / name).unlink()
    os.mkfifo(root / name)
    r = run_main(["validate", str(root)])  # opening the FIFO would block: the time bound catches it
    assert "FIFO" in r.out + r.err and r.code in (1, 2)
    if name in ("shelf.yml", ".memshelf-bot.yml"):
        assert r.code == 2


NOT_DERIVED = (".git/config", "shelf.yml", "POLICY.patterns", "recall-log.tsv", ".memshelf-bot.yml", TOPIC_PATH,
               "docs/INDEX.md", "archive/docs/topics/x.md", ".github/workflows/ci.yml", "stats.svg",
               "docs\\..\\..\\outside", "docs/topics/.meta.json", "archive/INDEX.md")


@pytest.mark.parametrize(("key", "target"), [("index", t) for t in (*NOT_DERIVED, "ledger.tsv")]
                         + [("ledger", t) for t in (*NOT_DERIVED, "INDEX.md")])
def test_an_index_or_ledger_path_that_is_not_derived_is_a_config_error(tmp_path: Path, key: str, target: str) -> None:
    old = "path: INDEX.md" if key == "index" else "path: ledger.tsv"
    root = make_shelf(tmp_path / "s", manifest=MANIFEST.replace(old, f"path: '{target}'"))
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    r = run_main(["render", str(root)])
    assert r.code == 2, r.err
    [line] = r.err.splitlines()
    assert line.startswith("shelf.yml:") and "manifest-invalid" in line and f"{key}.path" in line
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_sync_refuses_a_path_not_in_the_derived_list(tmp_path: Path) -> None:
    (tmp_path / "shelf.yml").write_text("keep\n", encoding="utf-8")
    out = sync(tmp_path, {"shelf.yml": b"overwritten\n", "INDEX.md": b"x\n", ".git/config": b"x"}, check=False,
               derived=["INDEX.md", ".git/config"])
    assert out.written == ["INDEX.md"]
    assert dict(out.skipped) == {"shelf.yml": "not a derived path (refused)", ".git/config": "under .git/ (never written)"}
    assert (tmp_path / "shelf.yml").read_text(encoding="utf-8") == "keep\n" and not (tmp_path / ".git").exists()


@pytest.mark.parametrize("name", [".docshelf.json", ".memshelf-bot.yml", "shelf.yml"])
def test_a_config_nested_100k_deep_is_a_finding(tmp_path: Path, name: str) -> None:
    root = make_shelf(tmp_path / "s")
    deep = "[" * 100_000 + "]" * 100_000
    if name == "shelf.yml":
        (root / name).write_text(MANIFEST + f"extra: {deep}\n", encoding="utf-8")
    else:
        (root / name).write_text(deep if name.endswith(".json") else f"badge: {deep}\n", encoding="utf-8")
    for argv in (["validate", str(root)], ["render", str(root), "--check"]):
        r = run_main(argv)
        assert name in r.out + r.err and "Traceback" not in r.out + r.err
    assert run_main(["stats", str(root)]).code == (0 if name == ".docshelf.json" else 2)


def test_config_values_are_masked_in_config_errors(tmp_path: Path) -> None:
    root = make_shelf(tmp_path / "s", manifest=MANIFEST.replace("profile: memory", f"profile: [{AWS_KEY}]"))
    r = run_main(["validate", str(root), "--format", "json"])
    assert r.code == 2 and AWS_KEY not in r.out and "«redacted:aws-access-key»" in r.out
    r = run_main(["render", str(root)])
    assert r.code == 2 and AWS_KEY not in r.err and "«redacted:aws-access-key»" in r.err


def test_a_file_named_like_a_key_is_masked_in_every_format(tmp_path: Path) -> None:
    rel = f"docs/topics/{AWS_KEY}.md"
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, rel: TOPIC})
    for fmt in ("text", "json", "github", "sarif"):
        r = run_main(["validate", str(root), "--format", fmt])
        assert r.code == 1 and AWS_KEY not in r.out and "«redacted:aws-access-key»" in r.out


def test_changed_takes_files_never_the_path_and_must_name_episodes(tmp_path: Path) -> None:
    root = make_shelf(tmp_path / "s")
    r = run_main(["validate", "--changed", str(root / TOPIC_PATH), str(root), "--format", "json"])
    assert r.code == 0 and '"verdict": "valid"' in r.out  # PATH after --changed FILE is the shelf, not a file
    both = [str(root / TOPIC_PATH), str(root / SESSION_PATH)]
    r = run_main(["validate", "--format", "json", "--changed", *both, str(root)])  # as pre-commit passes files
    assert r.code == 0 and '"verdict": "valid"' in r.out
    r = run_main(["validate", str(root), "--changed", *both, str(tmp_path)])
    assert r.code == 2 and "a directory, not an episode" in r.err
    for bad, why in ((str(root / "docs/topics/typo.md"), "no such episode"), (str(root / "shelf.yml"), "not an episode path")):
        r = run_main(["validate", str(root), "--changed", bad])
        assert r.code == 2 and r.out == ""
        [line] = r.err.splitlines()
        assert why in line


def test_render_and_resolve_name_a_missing_shelf_path(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    for command in ("render", "resolve", "validate", "stats"):
        r = run_main([command, str(missing)])
        assert r.code == 2 and str(missing) in r.out + r.err


def test_resolve_outside_a_merge_says_so(tmp_path: Path) -> None:
    root = make_shelf(tmp_path / "s")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    r = run_main(["resolve", str(root)])
    assert r.code == 0
    assert r.out.splitlines()[-1] == "resolve: not in a merge: derived files regenerated only"


def test_guard_revision_is_never_an_option(tmp_path: Path) -> None:
    root = make_shelf(tmp_path / "s")
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=root, check=True)
    victim = tmp_path / "git-wrote-this"
    for argv in (["guard", str(root), f"--base=--output={victim}"], ["guard", str(root), "--base", "HEAD",
                                                                     f"--head=--output={victim}"]):
        r = run_main(argv)
        assert r.code == 2 and not victim.exists()


def test_a_closed_stdout_ends_quietly_with_141(tmp_path: Path) -> None:
    root = make_shelf(tmp_path / "s")
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "validate", str(root), "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head` that has already exited: gone before the first write
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert err == ""


def test_resolve_in_a_merge_shows_hostile_conflicted_paths_inert(tmp_path: Path) -> None:
    from tests.hostile import Hostile
    from tests.unit.test_hostile_core import check_output

    stem = f"2026-01-09-::error::x\x1b[2J-{AWS_KEY}"
    rel = f"docs/topics/{stem}.md"
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, rel: TOPIC.replace("cache-policy", stem)})
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false"]

    def sh(*args: str) -> None:
        subprocess.run([*git, *args], cwd=root, check=True, capture_output=True)

    sh("init", "-q", "-b", "main")
    sh("add", "-A")
    sh("commit", "-qm", "base")
    for side in ("a", "b"):
        sh("checkout", "-q", "-b", side, "main")
        (root / rel).write_text(TOPIC.replace("cache-policy", stem).replace("TTL 300 s", f"TTL {side}"),
                                encoding="utf-8")
        sh("commit", "-qam", side)
    sh("checkout", "-q", "a")
    subprocess.run([*git, "merge", "-q", "b"], cwd=root, capture_output=True, check=False)
    h = Hostile(root, tmp_path, 0)
    for fmt in ("text", "json"):
        r = run_main(["resolve", str(root), "--format", fmt])
        assert r.code == 1, r.out
        check_output(h, r)
        assert "«redacted:aws-access-key»" in r.out
