"""The render as a whole: totality, idempotence, --check on every derived file, the CLI, symlinks,
skipped episodes, the derived-path list, and the ledger's deliberate differences."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memshelf_render import chartjob
from memshelf_render import render as render_pkg
from memshelf_render.derived import derived_paths, is_derived
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from tests import refs
from tests.shelfgen import generate_shelf
from tests.shelfkit import MANIFEST, make_shelf, run_cli, run_cli_in_process


def load(root: Path):
    shelf, problems = load_shelf(root)
    assert shelf is not None, problems
    return shelf


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def episode(eid: str, kind: str = "topic", extra: str = "", digest: str = "Decided: x. Open: y.",
            body: str = "## Decisions\nNone yet.\n") -> str:
    return (f"# {eid}\n\n---\nid: {eid}\nkind: {kind}\nspan: 2026-01-01\n{extra}tags: []\napprox_tokens: 10\n"
            f"---\n\n## Digest\n{digest}\n\n{body}")


@pytest.fixture
def rich(tmp_path) -> Path:
    """A generated shelf with an archive, a legacy split document and the badge switched on."""
    root = tmp_path / "rich"
    generate_shelf(root, seed=5, episodes=14, archive=3, quirks=True, link_mode="provider-none")
    topic = sorted((root / "docs/topics").glob("*.md"))[0]
    split = topic.with_suffix("")
    split.mkdir()
    (split / "001-intro.md").write_text("# Intro\n", encoding="utf-8")
    (split / "002-details.md").write_text("# Details\n", encoding="utf-8")
    (root / ".memshelf-bot.yml").write_text("badge: true\n", encoding="utf-8")
    return root


def test_files_are_exactly_the_derived_paths(rich):
    shelf = load(rich)
    result = render_shelf(shelf)
    assert list(result.files) == derived_paths(shelf)
    kinds = {p.rsplit("/", 1)[-1] for p in result.files}
    assert kinds == {"ledger.tsv", ".meta.json", "INDEX.md", "SUBINDEX.md", "stats.svg", "badge.svg", "badge.json"}
    assert any(p.startswith("archive/docs/") for p in result.files)
    assert result.written == [p for p, data in result.files.items() if data is not None]


def test_second_render_writes_nothing(rich):
    first = render_shelf(load(rich))
    before = tree(rich)
    second = render_shelf(load(rich))
    assert second.written == second.deleted == second.drifted == []
    assert second.unchanged == list(first.files)
    assert tree(rich) == before
    assert render_shelf(load(rich), check=True).drifted == []


def test_same_bytes_from_two_working_directories(rich, tmp_path):
    other = tmp_path / "copy"
    shutil.copytree(rich, other)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_cli("render", ".", cwd=rich).returncode == 0
    assert run_cli("render", str(other), cwd=elsewhere).returncode == 0
    assert tree(rich) == tree(other)


def _tamper(root: Path, rel: str, want: bytes | None) -> None:
    path = root / rel
    if want is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n", encoding="utf-8")
    elif rel.endswith(".svg"):
        path.write_bytes(want.replace(b"</svg>", b"<!-- hand edit --></svg>"))
    else:
        path.write_bytes(want + b"\n")


def test_check_reports_every_derived_file_that_drifts(rich):
    files = render_shelf(load(rich)).files
    pristine = tree(rich)
    for rel, want in files.items():
        _tamper(rich, rel, want)
        result = render_shelf(load(rich), check=True)
        assert result.drifted == [rel], rel
        assert result.written == result.deleted == []
        (rich / rel).unlink()
        if want is None:
            continue
        result = render_shelf(load(rich), check=True)
        assert result.drifted == [rel], f"{rel} missing"
        (rich / rel).write_bytes(pristine[rel])
    assert tree(rich) == pristine


def test_check_does_not_write(rich):
    before = tree(rich)
    result = render_shelf(load(rich), check=True)
    assert tree(rich) == before
    assert "ledger.tsv" in result.drifted and "INDEX.md" in result.drifted and "stats.svg" in result.drifted


def test_cli_exit_codes_and_json(rich, tmp_path):
    drift = run_cli("render", str(rich), "--check", "--format", "json")
    assert drift.returncode == 1
    report = json.loads(drift.stdout)
    assert report["ok"] is False and report["check"] is True and "INDEX.md" in report["drifted"]
    assert "run `memshelf-bot render`" in drift.stderr

    wrote = run_cli("render", str(rich), "--format", "json")
    assert wrote.returncode == 0
    report = json.loads(wrote.stdout)
    assert set(report) == {"tool", "version", "command", "check", "ok", "episodes", "written", "deleted",
                           "unchanged", "drifted", "skipped", "warnings", "neutralised"}
    assert "ledger.tsv" in report["written"]

    clean = run_cli("render", str(rich), "--check")
    assert clean.returncode == 0
    assert clean.stdout.rstrip().endswith("no drift")

    missing = run_cli("render", str(tmp_path / "nowhere"))
    assert missing.returncode == 2
    assert "shelf.yml" in missing.stderr


def test_badge_flag_overrides_the_setting(tmp_path):
    root = make_shelf(tmp_path / "s")
    assert "badge.svg" not in render_shelf(load(root)).files
    assert run_cli_in_process("render", str(root), "--badge").returncode == 0
    assert (root / "badge.svg").exists() and (root / "badge.json").exists()
    # switched off again: not derived, left alone (it may be a hand-made file now)
    assert run_cli_in_process("render", str(root), "--check", "--no-badge").returncode == 0
    assert (root / "badge.svg").exists()


def test_symlink_at_a_derived_path_is_replaced_not_followed(tmp_path):
    root = make_shelf(tmp_path / "s")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n", encoding="utf-8")
    (root / "ledger.tsv").symlink_to(outside)
    (root / "INDEX.md").symlink_to(root / "docs/topics/2026-01-05-cache-policy.md")
    episode_bytes = (root / "docs/topics/2026-01-05-cache-policy.md").read_bytes()

    assert set(render_shelf(load(root), check=True).drifted) >= {"ledger.tsv", "INDEX.md"}
    result = render_shelf(load(root))
    assert {"ledger.tsv", "INDEX.md"} <= set(result.written)
    assert not (root / "ledger.tsv").is_symlink() and not (root / "INDEX.md").is_symlink()
    assert (root / "ledger.tsv").read_bytes().startswith(b"date\tepisode_id")
    assert outside.read_text(encoding="utf-8") == "keep me\n"
    assert (root / "docs/topics/2026-01-05-cache-policy.md").read_bytes() == episode_bytes


def test_symlink_that_must_be_absent_is_removed_itself(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t")})
    target = tmp_path / "target.json"
    target.write_text("{}\n", encoding="utf-8")
    (root / "docs/topics/.meta.json").symlink_to(target)
    result = render_shelf(load(root))
    assert "docs/topics/.meta.json" in result.deleted
    assert not os.path.lexists(root / "docs/topics/.meta.json")
    assert target.read_text(encoding="utf-8") == "{}\n"


def test_derived_path_below_a_symlinked_directory_is_skipped(tmp_path):
    root = make_shelf(tmp_path / "s", manifest=MANIFEST.replace("path: INDEX.md", "path: out/INDEX.md"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "out").symlink_to(elsewhere, target_is_directory=True)
    result = render_shelf(load(root))
    assert ("out/INDEX.md", "out is a symbolic link (not followed)") in result.skipped
    assert list(elsewhere.iterdir()) == []
    assert "ledger.tsv" in result.written


def test_writes_are_atomic_and_keep_the_file_mode(tmp_path):
    root = make_shelf(tmp_path / "s")
    render_shelf(load(root))
    os.chmod(root / "ledger.tsv", 0o640)
    (root / "docs/topics/2026-01-05-cache-policy.md").write_text(
        (root / "docs/topics/2026-01-05-cache-policy.md").read_text(encoding="utf-8").replace("reviewed", "changed"),
        encoding="utf-8")
    assert render_shelf(load(root)).written == ["ledger.tsv"]
    assert (root / "ledger.tsv").stat().st_mode & 0o777 == 0o640
    assert (root / "INDEX.md").stat().st_mode & 0o777 == 0o644
    assert not [p for p in root.rglob("*.tmp")]


def test_invalid_episodes_are_skipped_reported_and_rendered_around(tmp_path):
    root = make_shelf(tmp_path / "s", {
        "docs/topics/2026-02-01-good.md": episode("2026-02-01-good", extra="date: 2026-02-01\n"),
        "docs/topics/2026-02-02-no-fm.md": "# just a note\n\nNo frontmatter here.\n",
        "docs/topics/2026-02-03-bad-yaml.md": "---\nid: [unclosed\n---\n\n## Digest\nText.\n",
        "docs/sessions/2026-02-04-no-id.md": "---\nkind: session\nspan: x\n---\n\n## Digest\nText.\n",
        "docs/topics/2026-02-05-latin1.md": episode("2026-02-05-latin1", extra="date: 2026-02-05\n")
        .encode("utf-8").replace(b"Decided: x.", b"Decided: caf\xe9."),
    })
    result = render_shelf(load(root))
    assert dict(result.skipped) == {
        "docs/topics/2026-02-02-no-fm.md": "no readable frontmatter",
        "docs/topics/2026-02-03-bad-yaml.md": "no readable frontmatter",
        "docs/sessions/2026-02-04-no-id.md": "no id in the frontmatter",
    }
    rows = (root / "ledger.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert [r.split("\t")[1] for r in rows] == ["2026-02-01-good", "2026-02-05-latin1"]
    text = (root / "INDEX.md").read_text(encoding="utf-8")
    for line in ("- **2026 02 02 No Fm** — `2026-02-02-no-fm.md`", "- **2026 02 04 No Id** — `2026-02-04-no-id.md`"):
        assert line in text
    cli = run_cli_in_process("render", str(root), "--check")
    assert cli.returncode == 0
    assert "skipped  docs/topics/2026-02-02-no-fm.md: no readable frontmatter" in cli.stdout


def test_stale_archive_index_goes_when_the_archive_is_gone(tmp_path):
    root = make_shelf(tmp_path / "s")
    (root / "archive").mkdir()
    (root / "archive/INDEX.md").write_text("old\n", encoding="utf-8")
    result = render_shelf(load(root))
    assert result.files["archive/INDEX.md"] is None
    assert "archive/INDEX.md" in result.deleted


def test_deliberate_difference_archive_preamble_without_its_config(tmp_path, ref_venv):
    """Without archive/.docshelf.json the reference archive index carries docshelf's generic
    preamble; ours says what the archive is. Entries and footer are the same."""
    root = make_shelf(tmp_path / "s", {
        "docs/topics/t.md": episode("t"),
        "archive/docs/topics/2025-01-01-old.md": episode("2025-01-01-old", extra='display_title: "Old"\n'),
    })
    theirs = tmp_path / "theirs"
    shutil.copytree(root, theirs)
    refs.archive_render(theirs)
    render_shelf(load(root))
    ours_lines = (root / "archive/INDEX.md").read_text(encoding="utf-8").split("\n")
    their_lines = (theirs / "archive/INDEX.md").read_text(encoding="utf-8").split("\n")
    assert ours_lines[2] == render_pkg.archive.ARCHIVE_PREAMBLE != their_lines[2]
    assert ours_lines[:2] + ours_lines[3:] == their_lines[:2] + their_lines[3:]
    assert (root / "archive/docs/topics/.meta.json").read_bytes() == \
        (theirs / "archive/docs/topics/.meta.json").read_bytes()


def test_deliberate_difference_ledger_cells_are_flattened(tmp_path, ref_venv):
    """docs/reference.md §14.3: a JSON-escaped tab or newline in notes reaches the reference's
    ledger raw (7 cells, or a forged row); ours writes one space per control character."""
    root = make_shelf(tmp_path / "s", {"docs/topics/2026-01-01-t.md": episode(
        "2026-01-01-t", extra='notes: "a\\tb\\nc\\r\\nd"\n')})
    theirs = tmp_path / "theirs"
    shutil.copytree(root, theirs)
    refs.memshelf_rebuild(theirs)
    render_shelf(load(root))
    assert (theirs / "ledger.tsv").read_text(encoding="utf-8").split("\n")[1].count("\t") == 6
    assert (root / "ledger.tsv").read_text(encoding="utf-8").split("\n")[1:] == \
        ["2026-01-01\t2026-01-01-t\tlive\t10\t5\ta b c  d", ""]


DIGEST_VARIANTS = {
    "lowercase": ("## digest", "Decided: lowercase heading counts."),
    "two-spaces": ("##  Digest", "Decided: spacing counts."),
    "fenced": ("## Digest", "Decided: fence.\n```\n## not a heading\n```\nStill the digest."),
}


def test_deliberate_difference_digest_is_the_parsers_section(tmp_path, ref_venv):
    """docs/format.md §2 / docs/reference.md §14.2: the reference's digest needs exactly `## Digest` and ends
    at any `## ` line, fenced or not; ours is the one parser's case-insensitive, fence-aware first
    Digest section. digest_tokens differ exactly there."""
    files = {}
    for name, (heading, digest) in DIGEST_VARIANTS.items():
        eid = f"2026-01-01-{name}"
        files[f"docs/topics/{eid}.md"] = episode(eid).replace("## Digest\nDecided: x. Open: y.", f"{heading}\n{digest}")
    root = make_shelf(tmp_path / "s", files)
    theirs = tmp_path / "theirs"
    shutil.copytree(root, theirs)
    refs.memshelf_rebuild(theirs)
    render_shelf(load(root))

    def tokens(shelf_root: Path) -> dict[str, int]:
        rows = (shelf_root / "ledger.tsv").read_text(encoding="utf-8").splitlines()[1:]
        return {r.split("\t")[1][11:]: int(r.split("\t")[4]) for r in rows}

    assert tokens(theirs) == {"lowercase": 0, "two-spaces": 0, "fenced": len("Decided: fence.\n```") // 4}
    assert tokens(root) == {name: len(digest) // 4 for name, (_, digest) in DIGEST_VARIANTS.items()}


def test_chart_and_badge_renderers_missing_do_not_block_the_rest(tmp_path, monkeypatch):
    root = make_shelf(tmp_path / "s")

    def unavailable(*args, **kwargs):
        raise ImportError("No module named 'matplotlib'")

    monkeypatch.setattr(chartjob, "_draw", unavailable)
    monkeypatch.setattr(render_pkg, "_badge", unavailable)
    result = render_shelf(load(root), badge=True)
    assert "stats.svg" not in result.files and "badge.svg" not in result.files
    assert result.warnings[-2:] == [
        "stats.svg not drawn: the chart renderer is unavailable (No module named 'matplotlib')",
        "badge not drawn: the badge renderer is unavailable (No module named 'matplotlib')",
    ]
    assert {"ledger.tsv", "INDEX.md"} <= set(result.written)


@pytest.mark.parametrize(("path", "derived"), [
    ("ledger.tsv", True), ("INDEX.md", True), ("stats.svg", True), ("./INDEX.md", True),
    ("docs/topics/.meta.json", True), ("docs/research/.meta.json", True),
    ("archive/docs/sessions/.meta.json", True), ("archive/INDEX.md", True),
    ("docs/topics/big/SUBINDEX.md", True), ("archive/docs/topics/big/SUBINDEX.md", True),
    ("docs/misc/.meta.json", False), ("docs/topics/x.md", False), ("docs/.meta.json", False),
    ("docs/topics/SUBINDEX.md", False), ("docs/topics/a/b/SUBINDEX.md", False),
    ("recall-log.tsv", False), ("POLICY.md", False), ("badge.svg", False), ("README.md", False),
])
def test_is_derived_by_pattern(tmp_path, path, derived):
    shelf = load(make_shelf(tmp_path / "s"))
    assert is_derived(path, shelf) is derived


def test_is_derived_follows_the_settings(tmp_path):
    manifest = MANIFEST.replace("path: INDEX.md", "path: meta/INDEX.md").replace("path: ledger.tsv",
                                                                                "path: meta/ledger.tsv")
    root = make_shelf(tmp_path / "s", manifest=manifest)
    (root / ".memshelf-bot.yml").write_text("badge: true\n", encoding="utf-8")
    shelf = load(root)
    assert [is_derived(p, shelf) for p in ("meta/INDEX.md", "meta/ledger.tsv", "INDEX.md", "ledger.tsv",
                                           "badge.svg", "badge.json")] == [True, True, False, False, True, True]
    assert derived_paths(shelf)[:1] == ["meta/ledger.tsv"] and "meta/INDEX.md" in derived_paths(shelf)

    manual = load(make_shelf(tmp_path / "m", manifest=MANIFEST.replace("docshelf-mcp", "manual")))
    assert not is_derived("INDEX.md", manual) and not is_derived("docs/topics/big/SUBINDEX.md", manual)
    assert is_derived("archive/docs/topics/big/SUBINDEX.md", manual)
    assert "INDEX.md" not in derived_paths(manual)


def test_duplicate_ids_get_a_row_each_and_a_warning(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/2026-01-01-x.md": episode("2026-01-01-x"),
                                       "docs/sessions/2026-01-01-x.md": episode("2026-01-01-x", "session")})
    result = render_shelf(load(root))
    rows = (root / "ledger.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert [r.split("\t")[1] for r in rows] == ["2026-01-01-x", "2026-01-01-x"]
    assert result.warnings[-1:] == ["episode id '2026-01-01-x' is used by 2 files (docs/sessions/2026-01-01-x.md, "
                               "docs/topics/2026-01-01-x.md); each gets a ledger row"]


@pytest.mark.parametrize(("chart_helper", "paused"), [(True, False), (True, True), (False, False)])
def test_parallel_parse_and_forked_chart_give_the_same_bytes(tmp_path, monkeypatch, chart_helper, paused):
    """Big shelves parse in forked workers (leaving a core to the chart helper when it runs, or,
    from SHARE_CORES_FROM on, taking every core while the helper is paused); forced on here for
    a small shelf (with broken episodes), the files and reports are those of the serial run."""
    from memshelf_render import parallel

    root = tmp_path / "serial"
    generate_shelf(root, seed=9, episodes=30, archive=4, quirks=True, link_mode="github")
    (root / "docs/topics/2026-02-02-no-fm.md").write_text("no frontmatter\n", encoding="utf-8")
    (root / "docs/misc").mkdir()
    (root / "docs/misc/m.md").write_text(episode("m"), encoding="utf-8")
    forked = tmp_path / "forked"
    shutil.copytree(root, forked)
    monkeypatch.setenv("MEMSHELF_BOT_JOBS", "1")
    serial = render_shelf(load(root))
    monkeypatch.setenv("MEMSHELF_BOT_JOBS", "3" if chart_helper else "2")
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 1)
    monkeypatch.setattr(chartjob, "FORK_FROM_EPISODES", 1 if chart_helper else 10**9)
    monkeypatch.setattr(render_pkg, "SHARE_CORES_FROM", 1 if paused else 10**9)
    shelf = load(forked)
    assert parallel.jobs_for(len(shelf.layout.episodes)) == 3 if chart_helper else 2
    forked_run = render_shelf(shelf)
    assert "episodes" not in vars(shelf)  # parsed in the workers only
    assert tree(forked) == tree(root)
    assert (forked_run.skipped, forked_run.warnings, forked_run.written) == (
        serial.skipped, serial.warnings, serial.written)


def test_forked_chart_errors_reach_the_caller(tmp_path, monkeypatch):

    def broken(*args):
        raise ImportError("No module named 'matplotlib'")

    monkeypatch.setenv("MEMSHELF_BOT_JOBS", "2")
    monkeypatch.setattr(chartjob, "_draw", broken)
    with chartjob.ChartJob(fork=True) as job:
        drawing = job.submit([], "", 200_000, None)
        with pytest.raises(ImportError, match="matplotlib"):
            drawing()


def _dies() -> None:
    os._exit(3)


def test_a_helper_that_dies_is_replaced_by_the_caller_and_reaped():
    from memshelf_render.parallel import Helper

    helper = Helper(_dies, lambda a, b: a + b)
    assert helper.call(2, 3)() == 5  # computed here: the helper is gone
    helper.close()
    unused = Helper(lambda: None, lambda: 1)
    pid = unused._pid
    unused.close()  # never called: stopped at once, and waited for
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads the process state from /proc")
def test_a_paused_helper_goes_on_when_called_and_is_reaped_when_not():
    """`pause` stops the helper while the episode workers take every core; `call` lets it go on
    (else its result would never come), and a paused helper that is never called is killed."""
    from memshelf_render.parallel import Helper

    helper = Helper(lambda: None, lambda a, b: a * b)
    helper.pause()
    deadline = time.monotonic() + 5
    while _state(helper._pid) != "T" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _state(helper._pid) == "T"
    assert helper.call(6, 7)() == 42
    helper.close()
    paused = Helper(lambda: None, lambda: 1)
    paused.pause()
    pid = paused._pid
    paused.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


_KILLED_PARENT = """
import os, signal, sys, time
from memshelf_render.parallel import Helper
helper = Helper(lambda: None, lambda: 1)
deadline = time.monotonic() + 10
while open(f"/proc/{helper._pid}/stat").read().rsplit(")", 1)[1].split()[0] != "S" and time.monotonic() < deadline:
    time.sleep(0.01)  # waiting for its arguments, as when render pauses it
helper.pause()
print(helper._pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_paused_helper_dies_with_a_parent_killed_by_sigkill():
    """No `close` runs when the parent is killed outright: the kernel ends the helper, paused or not."""
    done = subprocess.run([sys.executable, "-c", _KILLED_PARENT], capture_output=True, text=True, timeout=60,
                          check=False, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == -signal.SIGKILL, done.stderr
    pid = int(done.stdout.split()[0])
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and _state(pid) not in ("Z", "X") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not os.path.exists(f"/proc/{pid}") or _state(pid) in ("Z", "X"), "the paused helper outlived its parent"


def test_deliberate_difference_check_compares_exact_bytes(tmp_path, ref_venv):
    """docs/reference.md §8.7: the reference reads derived files with universal newlines, so a CRLF
    copy is not drift there. Derived files are LF by contract; ours reports the CRLF copy."""
    root = make_shelf(tmp_path / "s")
    render_shelf(load(root))
    ledger = root / "ledger.tsv"
    ledger.write_bytes(ledger.read_bytes().replace(b"\n", b"\r\n"))
    assert refs.memshelf_rebuild(root, check=True)["drifted"] == []
    assert render_shelf(load(root), check=True).drifted == ["ledger.tsv"]


@pytest.mark.parametrize("head", [64, 300, 1000])
def test_rows_read_from_the_head_equal_rows_read_from_the_whole_file(tmp_path, monkeypatch, head):
    """The renderers parse only a file's first HEAD_BYTES when the Digest and the section after
    it start there: the rows are those of the whole file, for every shape the generator writes."""
    from memshelf_render import records
    from memshelf_render import shelf as shelf_module

    root = tmp_path / "s"
    generate_shelf(root, seed=5, episodes=120, archive=10)
    loaded, _ = shelf_module.load_shelf(root)
    whole = [records.row_of(loaded.parse_episode(ref)) for ref in loaded.layout.episodes]
    monkeypatch.setattr(shelf_module, "HEAD_BYTES", head)
    heads = [loaded.parse_episode(ref, upto_digest=True) for ref in loaded.layout.episodes]
    assert [records.row_of(ep) for ep in heads] == whole
    assert any(ep.digest_ended and len(ep.text.encode()) < ep.size for ep in heads)  # some were read in part
