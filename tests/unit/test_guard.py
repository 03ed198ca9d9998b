"""`memshelf-bot guard`: what a PR may touch (docs/format.md §8), on real git repositories."""

from __future__ import annotations

import json
import os
import subprocess

from tests.shelfkit import SESSION, TOPIC, TOPIC_PATH, make_shelf, run_cli, run_cli_in_process

NEW = "docs/topics/2026-02-01-new-idea.md"
NEW_TEXT = TOPIC.replace("2026-01-05-cache-policy", "2026-02-01-new-idea")


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def repo(tmp_path, sub=""):
    top = tmp_path / "repo"
    root = make_shelf(top / sub if sub else top)
    (top / "README.md").write_text("shelf\n", encoding="utf-8")
    git(top, "init", "-q", "-b", "main")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base")
    git(top, "checkout", "-qb", "shelve/x")
    return top, root


def commit(top):
    git(top, "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "change")


def guard(root, *extra, run=run_cli_in_process):
    """`memshelf-bot guard ROOT --base main --format json` run in ROOT (in-process; the first test
    runs the real process)."""
    proc = run("guard", str(root), "--base", "main", "--format", "json", *extra, cwd=root)
    return proc.returncode, json.loads(proc.stdout)


def test_adding_and_modifying_episodes_is_fine(tmp_path):
    top, root = repo(tmp_path)
    (root / NEW).write_text(NEW_TEXT, encoding="utf-8")
    (root / TOPIC_PATH).write_text(TOPIC.replace("every route", "most routes"), encoding="utf-8")
    commit(top)
    code, out = guard(root, run=run_cli)
    assert code == 0 and out["ok"]
    assert out["episodes"] == {"added": [NEW], "modified": [TOPIC_PATH], "removed": []}
    assert out["findings"] == []


def test_derived_and_other_paths_are_blocked(tmp_path):
    top, root = repo(tmp_path)
    (root / "ledger.tsv").write_text("x\n", encoding="utf-8")
    (root / "docs/topics/.meta.json").write_text("{}\n", encoding="utf-8")
    (root / "archive/docs/topics").mkdir(parents=True)
    (root / "archive/docs/topics/.meta.json").write_text("{}\n", encoding="utf-8")
    (root / "README.md").write_text("changed\n", encoding="utf-8")  # upkeep: passes
    (root / "notes.txt").write_text("x\n", encoding="utf-8")
    commit(top)
    code, out = guard(root)
    assert code == 1 and not out["ok"]
    assert sorted(out["derived"]) == ["archive/docs/topics/.meta.json", "docs/topics/.meta.json", "ledger.tsv"]
    assert out["other"] == ["notes.txt"] and out["allowed"] == ["README.md"]
    codes = sorted((f["code"], f["path"]) for f in out["findings"])
    assert codes == [("derived-path-touched", "archive/docs/topics/.meta.json"),
                     ("derived-path-touched", "docs/topics/.meta.json"),
                     ("derived-path-touched", "ledger.tsv"), ("path-not-allowed", "notes.txt")]


def test_allow_paths_from_flag_and_settings(tmp_path):
    top, root = repo(tmp_path)
    (root / "TODO.md").write_text("changed\n", encoding="utf-8")
    (root / "notes").mkdir()
    (root / "notes/a.txt").write_text("a\n", encoding="utf-8")
    commit(top)
    assert guard(root)[0] == 1
    code, out = guard(root, "--allow", "TODO.md", "--allow", "notes/**")
    assert code == 0 and sorted(out["allowed"]) == ["TODO.md", "notes/a.txt"]


def test_deny_paths_from_settings_blocks_upkeep(tmp_path):
    top, root = repo(tmp_path)
    (root / ".memshelf-bot.yml").write_text("deny_paths: ['.github/**']\n", encoding="utf-8")
    commit(top)
    git(top, "branch", "-qf", "main")  # the settings are on the base too
    (root / ".github/workflows").mkdir(parents=True)
    (root / ".github/workflows/x.yml").write_text("on: push\n", encoding="utf-8")
    (root / "recall-log.tsv").write_text("x\n", encoding="utf-8")
    commit(top)
    code, out = guard(root)
    assert code == 1 and out["other"] == [".github/workflows/x.yml"] and out["allowed"] == ["recall-log.tsv"]


def test_removing_an_episode_warns(tmp_path):
    top, root = repo(tmp_path)
    (root / TOPIC_PATH).unlink()
    commit(top)
    code, out = guard(root)
    assert code == 0
    assert [(f["code"], f["severity"]) for f in out["findings"]] == [("episode-removed", "warning")]


def test_id_collision_with_base_including_archive(tmp_path):
    top, root = repo(tmp_path)
    git(top, "checkout", "-q", "main")
    (root / "archive/docs/sessions").mkdir(parents=True)
    (root / "archive/docs/sessions/2026-02-01-new-idea.md").write_text(SESSION, encoding="utf-8")
    commit(top)
    git(top, "checkout", "-q", "shelve/x")
    (root / NEW).write_text(NEW_TEXT, encoding="utf-8")
    commit(top)
    code, out = guard(root)
    assert code == 1
    assert [(f["code"], f["path"]) for f in out["findings"]] == [("id-collision", NEW)]


def test_symlink_in_the_diff(tmp_path):
    top, root = repo(tmp_path)
    os.symlink("/etc/passwd", root / "docs/topics/2026-02-02-link.md")
    commit(top)
    code, out = guard(root)
    assert code == 1
    assert [(f["code"], f["path"]) for f in out["findings"]] == [("symlink", "docs/topics/2026-02-02-link.md")]


def test_rename_is_a_removal_and_an_addition(tmp_path):
    top, root = repo(tmp_path)
    git(top, "mv", TOPIC_PATH, NEW)
    commit(top)
    code, out = guard(root)
    assert out["episodes"] == {"added": [NEW], "modified": [], "removed": [TOPIC_PATH]}
    assert code == 0


def test_shelf_in_a_subdirectory(tmp_path):
    top, root = repo(tmp_path, sub="memory")
    (root / NEW).write_text(NEW_TEXT, encoding="utf-8")
    (top / "README.md").write_text("changed\n", encoding="utf-8")
    (top / "tool.sh").write_text("true\n", encoding="utf-8")
    commit(top)
    code, out = guard(root)
    assert out["episodes"]["added"] == [NEW]
    assert out["allowed"] == ["../README.md"] and out["other"] == ["../tool.sh"] and code == 1
