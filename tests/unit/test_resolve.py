"""`memshelf-bot resolve` on real git repositories in the middle of real merges (docs/format.md §9).

Each scenario: a rendered shelf committed on `main`, two branches that each add episodes, render
and commit their derived files and append recall-log rows, then `git merge` with its conflicts.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from memshelf_render.derived import derived_paths
from memshelf_render.render import render_shelf
from memshelf_render.resolve import RECALL_LOG, resolve
from memshelf_render.shelf import load_shelf
from tests.shelfgen import generate_shelf
from tests.shelfkit import SESSION, TOPIC, make_shelf, run_cli, run_cli_in_process

MARKER = re.compile(rb"^(<<<<<<<|=======|>>>>>>>|\|\|\|\|\|\|\|)", re.MULTILINE)


def git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True, text=True).stdout


def init_repo(top: Path) -> None:
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.name", "t")
    git(top, "config", "user.email", "t@example.com")
    commit_all(top, "base")


def commit_all(top: Path, message: str) -> None:
    git(top, "add", "-A")
    git(top, "commit", "-qm", message)


def render(root: Path):
    shelf, problems = load_shelf(root)
    assert shelf is not None, problems
    return render_shelf(shelf)


def topic(eid: str, title: str, words: str = "") -> str:
    """A valid topic episode with the given id (which starts with its date) and title."""
    day = eid[:10]
    text = TOPIC.replace("2026-01-05-cache-policy", eid).replace("2026-01-05", day)
    return text.replace("Cache policy", title).replace("TTL 300 s for every route.", f"TTL 300 s. {words}")


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def append_recalls(root: Path, rows: Sequence[str]) -> None:
    with open(root / RECALL_LOG, "a", encoding="utf-8") as fh:
        fh.write("".join(r + "\n" for r in rows))


def branch(top: Path, root: Path, name: str, files: dict[str, str], recalls: Sequence[str] = ()) -> None:
    """A branch off main that adds `files`, appends recalls, renders and commits it all."""
    git(top, "checkout", "-q", "-b", name, "main")
    write(root, files)
    append_recalls(root, recalls)
    render(root)
    commit_all(top, name)


def merge(top: Path, ours: str, theirs: str) -> list[str]:
    """Check out `ours`, merge `theirs`; the unmerged paths (work-tree relative)."""
    git(top, "checkout", "-q", ours)
    git(top, "merge", "-q", "--no-edit", theirs, check=False)
    return sorted(set(git(top, "diff", "--name-only", "--diff-filter=U").split()))


def derived_files(root: Path) -> dict[str, bytes | None]:
    shelf, _ = load_shelf(root)
    return {p: (root / p).read_bytes() if (root / p).is_file() else None for p in derived_paths(shelf)}


def fresh_render(root: Path, scratch: Path) -> dict[str, bytes | None]:
    """Every derived file rendered from scratch from a copy of the shelf's sources."""
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".git"))
    shelf, _ = load_shelf(scratch)
    for rel in derived_paths(shelf):
        (scratch / rel).unlink(missing_ok=True)
    render(scratch)
    return derived_files(scratch)


def derived_files_raw(root: Path, paths: list[str]) -> dict[str, bytes]:
    return {p: (root / p).read_bytes() for p in paths if (root / p).is_file()}


def assert_no_markers(files: dict[str, bytes | None]) -> None:
    for rel, data in files.items():
        assert data is None or not MARKER.search(data), f"conflict marker in {rel}"


def unmerged(top: Path) -> list[str]:
    return sorted(set(git(top, "diff", "--name-only", "--diff-filter=U").split()))


@pytest.fixture
def shelf_repo(tmp_path: Path) -> Path:
    """A generated, rendered shelf with an archive, committed on main."""
    root = tmp_path / "shelf"
    generate_shelf(root, seed=11, episodes=10, archive=3)
    render(root)
    init_repo(root)
    return root


A_TOPIC = "docs/topics/2026-02-01-cache-warmup.md"
B_TOPIC = "docs/topics/2026-02-02-queue-retries.md"
A_ARCHIVED = "archive/docs/topics/2026-02-03-old-proxy.md"
B_ARCHIVED = "archive/docs/topics/2026-02-04-old-cdn.md"
A_RECALLS = ["2026-02-01-cache-warmup\tDigest\t120", "both-sides\tDigest\t7", "a-only\t\t5\t"]
B_RECALLS = ["2026-02-02-queue-retries\tDecisions\t80", "both-sides\tDigest\t7"]


def two_branches(root: Path, top: Path | None = None) -> list[str]:
    """Branches a and b each add a topic and an archived topic, render, log recalls; merge b into a."""
    top = top or root
    branch(top, root, "a", {A_TOPIC: topic("2026-02-01-cache-warmup", "Cache warmup"),
                            A_ARCHIVED: topic("2026-02-03-old-proxy", "Old proxy")}, A_RECALLS)
    branch(top, root, "b", {B_TOPIC: topic("2026-02-02-queue-retries", "Queue retries"),
                            B_ARCHIVED: topic("2026-02-04-old-cdn", "Old CDN")}, B_RECALLS)
    return merge(top, "a", "b")


def test_derived_conflicts_are_regenerated_and_the_recall_log_unioned(shelf_repo: Path, tmp_path: Path):
    root = shelf_repo
    base_log = (root / RECALL_LOG).read_text(encoding="utf-8")
    conflicted = two_branches(root)
    assert {"archive/INDEX.md", "archive/docs/topics/.meta.json", "docs/topics/.meta.json", "ledger.tsv",
            RECALL_LOG, "stats.svg"} <= set(conflicted)

    result = resolve(root)

    assert result.ok and result.status == "resolved" and result.exit_code == 0
    assert result.in_merge and not result.committed and result.commit is None
    assert result.resolved == [RECALL_LOG]
    assert result.unresolved == []
    assert set(conflicted) - {RECALL_LOG} <= set(result.regenerated)
    assert result.validation["verdict"] == "valid"
    assert any("git commit" in n for n in result.notes)
    # byte for byte what a render from scratch of the merged episodes gives
    on_disk = derived_files(root)
    assert on_disk == fresh_render(root, tmp_path / "fresh")
    assert_no_markers(on_disk)
    # both sides' rows, ours first; the row both sides appended is kept twice
    assert (root / RECALL_LOG).read_text(encoding="utf-8") == base_log + "".join(
        r + "\n" for r in A_RECALLS + B_RECALLS)
    # everything is staged: nothing unmerged, nothing left unstaged
    assert unmerged(root) == []
    assert git(root, "diff", "--name-only") == ""
    assert set(conflicted) <= set(result.staged)


def test_commit_completes_the_merge(shelf_repo: Path, tmp_path: Path):
    root = shelf_repo
    two_branches(root)
    heads = [git(root, "rev-parse", "a").strip(), git(root, "rev-parse", "b").strip()]

    result = resolve(root, commit=True)

    assert result.ok and result.committed
    assert result.commit == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "log", "-1", "--format=%P").split() == heads
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False) == ""
    fresh = fresh_render(root, tmp_path / "fresh")
    for rel, data in fresh.items():
        committed = subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=root, capture_output=True)
        assert (committed.stdout if committed.returncode == 0 else None) == data, rel


def test_an_episode_add_add_collision_needs_a_human_and_nothing_derived_is_written(tmp_path: Path):
    root = tmp_path / "shelf"
    generate_shelf(root, seed=5, episodes=8, archive=2)
    render(root)
    init_repo(root)
    same = "docs/topics/2026-03-01-same-slug.md"
    branch(root, root, "a", {same: topic("2026-03-01-same-slug", "Same slug", "Side a."),
                             A_TOPIC: topic("2026-02-01-cache-warmup", "Cache warmup")}, ["x\tDigest\t1"])
    branch(root, root, "b", {same: topic("2026-03-01-same-slug", "Same slug", "Side b."),
                             B_TOPIC: topic("2026-02-02-queue-retries", "Queue retries")}, ["y\tDigest\t2"])
    conflicted = merge(root, "a", "b")
    assert same in conflicted and "ledger.tsv" in conflicted and "INDEX.md" in conflicted
    before = derived_files(root)
    assert any(data and MARKER.search(data) for data in before.values())  # the conflict state

    proc = run_cli_in_process("resolve", str(root), "--format", "json")
    out = json.loads(proc.stdout)

    assert proc.returncode == 1
    assert out["status"] == "needs-human" and out["ok"] is False
    assert out["unresolved"] == [{"path": same, "reason": "episode, added on both sides with different content"}]
    assert out["regenerated"] == []
    assert derived_files(root) == before  # untouched, markers and all
    # derived paths stay unmerged in the index; only the recall log was settled and staged
    assert out["resolved"] == [RECALL_LOG] and out["staged"] == [RECALL_LOG]
    assert set(unmerged(root)) == set(conflicted) - {RECALL_LOG}
    assert (root / RECALL_LOG).read_text(encoding="utf-8").endswith("x\tDigest\t1\ny\tDigest\t2\n")
    assert any("not regenerated" in n for n in out["notes"])
    assert out["committed"] is False


def test_commit_is_refused_while_a_human_conflict_stands(tmp_path: Path):
    root = make_shelf(tmp_path / "shelf")
    render(root)
    init_repo(root)
    path = "docs/sessions/2026-01-06-night-run.md"
    branch(root, root, "a", {path: SESSION.replace("Alerting.", "Alerting via pager.")})
    branch(root, root, "b", {path: SESSION.replace("Alerting.", "Alerting via mail.")})
    merge(root, "a", "b")

    result = resolve(root, commit=True)

    assert not result.ok and not result.committed
    assert [(u.path, u.reason) for u in result.unresolved] == [(path, "episode, changed on both sides")]
    assert git(root, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False) != ""


def test_archive_index_conflict_is_regenerated_and_only_derived_paths_are_staged(shelf_repo: Path, tmp_path: Path):
    """The reference leaves archive/INDEX.md conflicts to a human and stages all of archive/
    (docs/reference.md §14.6); here they are derived, and nothing else under archive/ is staged."""
    root = shelf_repo
    branch(root, root, "a", {A_ARCHIVED: topic("2026-02-03-old-proxy", "Old proxy")})
    branch(root, root, "b", {B_ARCHIVED: topic("2026-02-04-old-cdn", "Old CDN")})
    conflicted = merge(root, "a", "b")
    assert "archive/INDEX.md" in conflicted and "archive/docs/topics/.meta.json" in conflicted
    (root / "archive" / "scratch.txt").write_text("a human's notes\n", encoding="utf-8")

    result = resolve(root)

    assert result.ok and result.unresolved == []
    assert {"archive/INDEX.md", "archive/docs/topics/.meta.json"} <= set(result.regenerated)
    on_disk = derived_files(root)
    assert on_disk == fresh_render(root, tmp_path / "fresh")
    assert_no_markers(on_disk)
    assert unmerged(root) == []
    assert git(root, "status", "--porcelain", "--", "archive/scratch.txt") == "?? archive/scratch.txt\n"
    assert "archive/scratch.txt" not in result.staged


def test_a_delete_modify_conflict_on_a_derived_file_is_regenerated_and_a_stale_one_removed(tmp_path: Path):
    root = make_shelf(tmp_path / "shelf")
    render(root)
    init_repo(root)
    meta = "docs/topics/.meta.json"
    cache = "docs/topics/2026-01-05-cache-policy.md"
    # a: the only titled topic loses its title and description, so the render deletes the meta
    untitled = TOPIC.replace('display_title: "Cache policy"\n', "").replace(
        'description: "Edge cache eviction settled on TTL"\n', "")
    branch(root, root, "a", {cache: untitled})
    assert not (root / meta).exists()
    # b: an older tool rewrote the meta by hand (and a new session came in)
    git(root, "checkout", "-q", "-b", "b", "main")
    (root / meta).write_text('{"stale": true}\n', encoding="utf-8")
    write(root, {"docs/sessions/2026-01-09-backup-check.md": SESSION.replace("2026-01-06-night-run",
                                                                             "2026-01-09-backup-check")})
    commit_all(root, "b")
    assert merge(root, "a", "b") == [meta]

    result = resolve(root)

    assert result.ok
    assert meta in result.regenerated
    assert not (root / meta).exists()
    assert git(root, "ls-files", "--", meta) == ""  # the removal is staged
    assert unmerged(root) == []
    assert derived_files(root) == fresh_render(root, tmp_path / "fresh")


def test_shelf_in_a_subdirectory_and_a_conflict_outside_it(tmp_path: Path):
    top = tmp_path / "repo"
    root = make_shelf(top / "memory")
    (top / "README.md").write_text("shelf\n", encoding="utf-8")
    render(root)
    init_repo(top)
    branch(top, root, "a", {"docs/topics/2026-02-01-cache-warmup.md": topic("2026-02-01-cache-warmup", "Warmup")})
    (top / "README.md").write_text("side a\n", encoding="utf-8")
    commit_all(top, "a readme")
    branch(top, root, "b", {"docs/topics/2026-02-02-queue-retries.md": topic("2026-02-02-queue-retries", "Retry")})
    (top / "README.md").write_text("side b\n", encoding="utf-8")
    commit_all(top, "b readme")
    assert "README.md" in merge(top, "a", "b")

    first = resolve(root)
    assert [(u.path, u.reason) for u in first.unresolved] == [("../README.md", "outside the shelf, changed on both sides")]
    assert first.regenerated == []

    (top / "README.md").write_text("both sides\n", encoding="utf-8")
    git(top, "add", "README.md")
    second = resolve(root, commit=True)
    assert second.ok and second.committed and second.unresolved == []
    assert {"INDEX.md", "ledger.tsv"} <= set(second.regenerated)
    assert git(top, "status", "--porcelain") == ""
    assert derived_files(root) == fresh_render(root, tmp_path / "fresh")


def test_a_conflicted_manifest_is_left_to_a_human(tmp_path: Path):
    root = make_shelf(tmp_path / "shelf")
    render(root)
    init_repo(root)
    git(root, "checkout", "-q", "-b", "a")
    write(root, {"shelf.yml": (root / "shelf.yml").read_text().replace("Test shelf", "Shelf A"),
                 "docs/topics/2026-02-01-cache-warmup.md": topic("2026-02-01-cache-warmup", "Warmup")})
    render(root)
    commit_all(root, "a")
    git(root, "checkout", "-q", "-b", "b", "main")
    write(root, {"shelf.yml": (root / "shelf.yml").read_text().replace("Test shelf", "Shelf B"),
                 "docs/topics/2026-02-02-queue-retries.md": topic("2026-02-02-queue-retries", "Retry")})
    render(root)
    commit_all(root, "b")
    conflicted = merge(root, "a", "b")
    assert "shelf.yml" in conflicted and "INDEX.md" in conflicted
    before = derived_files_raw(root, conflicted)

    proc = run_cli_in_process("resolve", str(root), "--format", "json")
    out = json.loads(proc.stdout)

    assert proc.returncode == 1
    reasons = {u["path"]: u["reason"] for u in out["unresolved"]}
    assert reasons["shelf.yml"] == "shelf configuration, changed on both sides"
    assert reasons["INDEX.md"] == "changed on both sides; whether it is derived is decided once shelf.yml is settled"
    assert out["validate"]["verdict"] == "config-error"
    assert derived_files_raw(root, conflicted) == before


def test_outside_a_merge_it_regenerates_without_touching_the_index(tmp_path: Path):
    root = make_shelf(tmp_path / "shelf")
    render(root)
    init_repo(root)
    write(root, {"docs/topics/2026-02-01-cache-warmup.md": topic("2026-02-01-cache-warmup", "Warmup")})

    result = resolve(root)

    assert result.ok and not result.in_merge and not result.committed
    assert result.staged == [] and git(root, "diff", "--cached", "--name-only") == ""
    assert {"ledger.tsv", "INDEX.md", "docs/topics/.meta.json", "stats.svg"} <= set(result.regenerated)
    assert derived_files(root) == fresh_render(root, tmp_path / "fresh")


def test_outside_a_merge_commit_takes_only_the_derived_files(tmp_path: Path):
    root = make_shelf(tmp_path / "shelf")
    render(root)
    init_repo(root)
    new = "docs/topics/2026-02-01-cache-warmup.md"
    write(root, {new: topic("2026-02-01-cache-warmup", "Warmup"), "notes.txt": "mine\n"})
    git(root, "add", new, "notes.txt")
    parent = git(root, "rev-parse", "HEAD").strip()

    result = resolve(root, commit=True)

    assert result.ok and result.committed
    assert git(root, "log", "-1", "--format=%P%n%s").split("\n")[:2] == [
        parent, "memshelf-bot: render derived files [skip ci]"]
    changed = set(git(root, "show", "--name-only", "--format=", "HEAD").split())
    assert changed == {"ledger.tsv", "INDEX.md", "docs/topics/.meta.json", "stats.svg"}
    # the user's own staged files stay staged, uncommitted
    assert set(git(root, "diff", "--cached", "--name-only").split()) == {new, "notes.txt"}

    again = resolve(root, commit=True)
    assert again.ok and not again.committed
    assert "nothing to commit: the derived files were already current" in again.notes


def test_markers_left_in_the_recall_log_are_unioned(tmp_path: Path):
    root = make_shelf(tmp_path / "shelf")
    (root / RECALL_LOG).write_text(
        "episode_id\tsection\tfetched_tokens\na\t\t1\n<<<<<<< HEAD\nb\t\t2\n=======\nc\t\t3\n>>>>>>> other\n",
        encoding="utf-8")
    render(root)
    init_repo(root)

    result = resolve(root)

    assert result.ok and result.resolved == [RECALL_LOG]
    assert (root / RECALL_LOG).read_text() == "episode_id\tsection\tfetched_tokens\na\t\t1\nb\t\t2\nc\t\t3\n"
    assert any("conflict markers" in n for n in result.notes)


def test_validate_errors_make_it_attention_but_the_merge_is_settled(tmp_path: Path):
    """Same slug in two categories: no git conflict on the episodes, a duplicate id after the
    merge. The reference exits 1 (doctor errors); resolve settles the merge and says `attention`."""
    root = make_shelf(tmp_path / "shelf")
    render(root)
    init_repo(root)
    eid = "2026-02-01-twin"
    branch(root, root, "a", {f"docs/topics/{eid}.md": topic(eid, "Twin")})
    branch(root, root, "b", {f"docs/sessions/{eid}.md": SESSION.replace("2026-01-06-night-run", eid)})
    merge(root, "a", "b")

    proc = run_cli_in_process("resolve", str(root), "--commit", "--format", "json")
    out = json.loads(proc.stdout)

    assert proc.returncode == 0
    assert out["status"] == "attention" and out["ok"] is True and out["committed"] is True
    assert out["validate"]["verdict"] == "violations"
    assert "duplicate-id" in {f["code"] for f in out["validate"]["findings"]}


def test_cli_text_output(shelf_repo: Path):
    two_branches(shelf_repo)
    proc = run_cli("resolve", str(shelf_repo))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0
    assert "unioned      recall-log.tsv" in lines
    assert "regenerated  archive/INDEX.md" in lines
    assert "validate: valid (0 errors, 0 warnings)" in lines
    assert lines[-1] == "resolve: resolved"


def test_cli_exit_codes_for_config_and_git_problems(tmp_path: Path):
    assert run_cli("resolve", str(tmp_path)).returncode == 2  # no shelf.yml
    root = make_shelf(tmp_path / "plain")  # not a git repository
    proc = run_cli("resolve", str(root), "--commit", "--format", "json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert out["git"] is False and out["committed"] is False
    assert out["commit_error"] == "not a git repository: nothing can be committed"
    assert (root / "INDEX.md").is_file()  # still regenerated
    assert run_cli("resolve", str(root)).returncode == 0


def test_conflicts_from_a_cherry_pick_are_settled_but_not_committed(shelf_repo: Path):
    root = shelf_repo
    branch(root, root, "a", {A_TOPIC: topic("2026-02-01-cache-warmup", "Cache warmup")}, A_RECALLS)
    branch(root, root, "b", {B_TOPIC: topic("2026-02-02-queue-retries", "Queue retries")}, B_RECALLS)
    git(root, "checkout", "-q", "a")
    git(root, "cherry-pick", "b", check=False)
    assert RECALL_LOG in unmerged(root)
    head = git(root, "rev-parse", "HEAD")

    result = resolve(root, commit=True)

    assert not result.in_merge and result.unresolved == [] and not result.committed
    assert result.commit_error.startswith("the conflicts come from a git operation other than a merge")
    assert result.exit_code == 1
    assert unmerged(root) == [] and git(root, "rev-parse", "HEAD") == head


def test_a_recall_log_that_is_a_symlink_on_one_side_needs_a_human(tmp_path: Path):
    root = make_shelf(tmp_path / "shelf")
    (root / RECALL_LOG).write_text("episode_id\tsection\tfetched_tokens\n", encoding="utf-8")
    render(root)
    init_repo(root)
    git(root, "checkout", "-q", "-b", "a")
    (root / RECALL_LOG).unlink()
    (root / RECALL_LOG).symlink_to("POLICY.md")
    commit_all(root, "a")
    branch(root, root, "b", {}, ["x\tDigest\t1"])
    assert RECALL_LOG in merge(root, "a", "b")

    result = resolve(root)

    reasons = {u.path: u.reason for u in result.unresolved}
    assert reasons[RECALL_LOG].startswith("not a regular file on one side")
    assert result.resolved == [] and result.regenerated == [] and result.exit_code == 1


def test_a_conflicted_derived_file_that_cannot_be_drawn_stays_conflicted(shelf_repo: Path, monkeypatch):
    """Without the chart renderer, stats.svg cannot be regenerated: it is reported, never staged
    with its markers, and the merge is not committed."""
    import memshelf_render.render as render_module

    def no_chart(*_args, **_kwargs):
        raise ImportError("no matplotlib")

    two_branches(shelf_repo)
    monkeypatch.setattr(render_module, "_chart", no_chart)

    result = resolve(shelf_repo, commit=True)

    assert [(u.path, u.reason) for u in result.unresolved] == [
        ("stats.svg", "derived, but could not be regenerated: the render produced no content for it")]
    assert not result.committed and result.exit_code == 1
    assert "stats.svg" not in result.staged and unmerged(shelf_repo) == ["stats.svg"]
    assert any("stats.svg not drawn" in n for n in result.notes)
