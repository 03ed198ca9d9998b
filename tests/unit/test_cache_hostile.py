"""Hostile and broken caches give the uncached answer, at most one warning, never a failure;
and a warm cache is really used (an unchanged episode is not parsed again)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memshelf_render import cache as cache_mod
from memshelf_render.cache import SUFFIX, EpisodeCache, blob_id
from memshelf_render.records import Collecting
from memshelf_render.render import render_shelf
from memshelf_render.report import emit
from memshelf_render.shelf import Shelf, load_shelf
from memshelf_render.validate import run as validate
from tests.shelfgen import generate_shelf
from tests.shelfkit import TOPIC, TOPIC_PATH, make_shelf

BOT = [str(Path(sys.executable).with_name("memshelf-bot"))]


@pytest.fixture
def shelf_root(tmp_path: Path) -> Path:
    root = tmp_path / "shelf"
    generate_shelf(root, seed=5, episodes=10, archive=2)
    return root


def _answer(root: Path, cache: EpisodeCache | None) -> tuple[str, dict]:
    out = io.StringIO()
    emit(validate(root, cache=cache), "json", out)
    shelf, _ = load_shelf(root)
    return out.getvalue(), render_shelf(shelf, check=True, cache=cache).files


def _cache_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.name.endswith(SUFFIX))


def test_blob_id_is_gits(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("no git")
    data = b"---\nid: x\n---\n\xd0\x9f\n"
    (tmp_path / "f.md").write_bytes(data)
    out = subprocess.run(["git", "hash-object", str(tmp_path / "f.md")], capture_output=True, text=True, check=True)
    assert blob_id(data).hex() == out.stdout.strip()


def test_warm_cache_parses_only_what_changed(shelf_root, tmp_path, monkeypatch):
    cache = EpisodeCache(tmp_path / "c")
    cold = _answer(shelf_root, cache)
    parsed: list[str] = []
    real = Shelf.parse_episode

    def counting(self, ref, **kw):
        parsed.append(ref.path)
        return real(self, ref, **kw)

    monkeypatch.setattr(Shelf, "parse_episode", counting)
    assert _answer(shelf_root, cache) == cold
    assert parsed == []
    one = sorted((shelf_root / "docs" / "topics").glob("*.md"))[0]
    one.write_text(one.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    warm = _answer(shelf_root, cache)
    rel = one.relative_to(shelf_root).as_posix()
    assert set(parsed) == {rel}  # once for validate, once for render
    monkeypatch.setattr(Shelf, "parse_episode", real)
    assert warm == _answer(shelf_root, None)
    assert cache.warning is None


def _warned_same(root: Path, cache: EpisodeCache, expected) -> None:
    assert _answer(root, cache) == expected
    assert cache.warning is not None and "\n" not in cache.warning


def test_garbage_and_truncated_files(shelf_root, tmp_path):
    expected = _answer(shelf_root, None)
    directory = tmp_path / "c"
    _answer(shelf_root, EpisodeCache(directory))
    files = _cache_files(directory)
    assert len(files) == 3  # rows, checks and the rendered pieces
    for f in files:
        f.write_bytes(f.read_bytes()[: len(f.read_bytes()) // 2])
    _warned_same(shelf_root, EpisodeCache(directory), expected)
    for f in _cache_files(directory):
        f.write_bytes(os.urandom(300))
    _warned_same(shelf_root, EpisodeCache(directory), expected)
    for f in _cache_files(directory):  # the right magic and checksum, a payload of another shape
        f.write_bytes(cache_mod._encode_file({"x": (b"1", 2)}, ("other",)))
    _warned_same(shelf_root, EpisodeCache(directory), expected)
    assert _answer(shelf_root, EpisodeCache(directory)) == expected  # rewritten whole: quiet again


def test_entries_that_do_not_check_out_are_misses(shelf_root, tmp_path):
    """Entries under the right header whose blob ids match but whose values are of the wrong
    shape, and entries of another shelf at the same root with other contents."""
    directory = tmp_path / "c"
    _answer(shelf_root, EpisodeCache(directory))
    twin = tmp_path / "twin"
    shutil.copytree(shelf_root, twin)
    for ep in twin.rglob("*.md"):
        ep.write_text(ep.read_text(encoding="utf-8").replace("## Digest\n", "## Digest\n\nOther words.\n", 1),
                      encoding="utf-8")
    other = tmp_path / "other-cache"
    _answer(twin, EpisodeCache(other))
    # the twin's entries, moved under this shelf's file names: same header layout, other contents
    for mine in _cache_files(directory):
        theirs = next(p for p in _cache_files(other) if p.name.split("-")[0] == mine.name.split("-")[0])
        header = cache_mod.marshal.loads(mine.read_bytes()[len(cache_mod.MAGIC) + 32:])[0]
        entries = cache_mod.marshal.loads(theirs.read_bytes()[len(cache_mod.MAGIC) + 32:])[1]
        mine.write_bytes(cache_mod._encode_file(entries, header))
    expected = _answer(shelf_root, None)
    cache = EpisodeCache(directory)
    assert _answer(shelf_root, cache) == expected
    # right blob ids (right piece keys), values of the wrong shape
    for mine in _cache_files(directory):
        header, entries = cache_mod.marshal.loads(mine.read_bytes()[len(cache_mod.MAGIC) + 32:])
        if mine.name.startswith("pieces-"):
            bogus = {k: ("bogus", 1) for k in entries}
        else:
            bogus = {p: (b, ("bogus", 1), None) for p, (b, _, _) in entries.items()}
        mine.write_bytes(cache_mod._encode_file(bogus, header))
    assert _answer(shelf_root, EpisodeCache(directory)) == expected


def test_a_file_where_the_directory_should_be(shelf_root, tmp_path):
    expected = _answer(shelf_root, None)
    blocker = tmp_path / "c"
    blocker.write_text("not a directory")
    _warned_same(shelf_root, EpisodeCache(blocker), expected)
    assert blocker.read_text() == "not a directory"


def test_a_read_only_directory(shelf_root, tmp_path, monkeypatch):
    expected = _answer(shelf_root, None)
    directory = tmp_path / "c"
    directory.mkdir()
    directory.chmod(0o500)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # permissions do not bind root: refuse as the kernel would

        def refused(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        import tempfile

        monkeypatch.setattr(tempfile, "mkstemp", refused)
    try:
        _warned_same(shelf_root, EpisodeCache(directory), expected)
        assert list(directory.iterdir()) == []
    finally:
        directory.chmod(0o700)


def test_no_cache_writes_nothing_and_warnings_go_to_stderr_once(shelf_root, tmp_path):
    env = dict(os.environ, MEMSHELF_BOT_CACHE_DIR=str(tmp_path / "c"), MEMSHELF_BOT_JOBS="1")
    for command in (["validate", "--no-cache"], ["render", "--no-cache", "--check"]):
        subprocess.run([*BOT, *command, str(shelf_root)], env=env, capture_output=True, check=False)
    assert not (tmp_path / "c").exists()
    (tmp_path / "c").write_text("in the way")
    for command in (["validate", "--format", "json"], ["render", "--check", "--format", "json"]):
        proc = subprocess.run([*BOT, *command, str(shelf_root)], env=env, capture_output=True, text=True,
                              check=False)
        assert proc.stderr.count("episode cache ignored") == 1, proc.stderr
        plain = subprocess.run([*BOT, *command, "--no-cache", str(shelf_root)], env=env, capture_output=True,
                               text=True, check=False)
        assert proc.stdout == plain.stdout and proc.returncode == plain.returncode


def test_two_processes_filling_one_cache(shelf_root, tmp_path):
    """Concurrent fills never leave half a file: every later run reads a whole one, quietly."""
    env = dict(os.environ, MEMSHELF_BOT_CACHE_DIR=str(tmp_path / "c"), MEMSHELF_BOT_JOBS="1")
    runs = [subprocess.Popen([*BOT, "validate", "--format", "json", str(shelf_root)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate() for p in runs]
    expected = _answer(shelf_root, None)[0]
    assert all(out == expected and err == "" for out, err in outs)
    cache = EpisodeCache(tmp_path / "c")
    assert _answer(shelf_root, cache)[0] == expected and cache.warning is None
    assert not [p for p in (tmp_path / "c").iterdir() if p.name.startswith(".tmp-")]


def test_size_bound_evicts_the_oldest(shelf_root, tmp_path, monkeypatch):
    directory = tmp_path / "c"
    directory.mkdir()
    old = directory / f"rows-{cache_mod._VERSION}-old{SUFFIX}"
    old.write_bytes(b"x" * 5000)
    os.utime(old, (1, 1))
    other_version = directory / f"checks-0.0.1-abc{SUFFIX}"
    other_version.write_bytes(b"y")
    monkeypatch.setattr(cache_mod, "MAX_BYTES", 5000)
    cache = EpisodeCache(directory)
    shelf, _ = load_shelf(shelf_root)
    Collecting(shelf, cache=cache).result()
    assert not old.exists() and not other_version.exists() and len(_cache_files(directory)) == 1
    monkeypatch.setattr(cache_mod, "MAX_BYTES", 10**9)
    old.write_bytes(b"x" * 5000)
    (shelf_root / "POLICY.patterns").write_text("# none\n", encoding="utf-8")  # another inputs digest
    Collecting(load_shelf(shelf_root)[0], cache=cache).result()
    assert old.exists() and len(_cache_files(directory)) == 3  # under the bound, nothing of this version goes


def test_a_settled_file_is_known_by_its_stat_and_a_change_still_shows(shelf_root, tmp_path, monkeypatch):
    """Files older than the settling time are taken by their stat signature (not read again);
    a change that keeps the size and sets the mtime back still shows, by ctime."""
    for ep in shelf_root.rglob("*.md"):
        os.utime(ep, (1_000_000_000, 1_000_000_000))
    cache = EpisodeCache(tmp_path / "c")
    cold = _answer(shelf_root, cache)
    reads: list[str] = []
    real = cache_mod._read

    def counting(shelf, ref):
        reads.append(ref.path)
        return real(shelf, ref)

    monkeypatch.setattr(cache_mod, "_read", counting)
    assert _answer(shelf_root, cache) == cold and reads == []
    one = sorted((shelf_root / "docs" / "topics").glob("*.md"))[1]
    text = one.read_text(encoding="utf-8")
    changed = text.replace(f"id: {one.stem}", f"id: {one.stem[:-1]}Z", 1)  # same length, another id
    assert changed != text
    assert len(changed.encode()) == len(text.encode())
    one.write_text(changed, encoding="utf-8")
    os.utime(one, (1_000_000_000, 1_000_000_000))
    monkeypatch.setattr(cache_mod, "_read", real)
    assert _answer(shelf_root, cache) == _answer(shelf_root, None) != cold


GHP = "ghp_" + "Q7w" * 12


def test_pieces_hold_no_secret_and_a_new_pattern_masks_again(tmp_path):
    """The rendered pieces hold only what the guard let through: a secret in a row's values is
    in no piece file. A POLICY pattern added later masks what a warm cache rendered before: no
    piece made under the old rules is taken, and what render says it neutralised is the same."""
    episode = TOPIC.replace('notes: "reviewed"', f'notes: "key {GHP}"').replace(
        'display_title: "Cache policy"', 'display_title: "Runner codename-bluebird"')
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: episode})
    directory = tmp_path / "c"
    cache = EpisodeCache(directory)
    render_shelf(load_shelf(root)[0], cache=cache)
    [pieces] = [p for p in _cache_files(directory) if p.name.startswith("pieces-")]
    assert GHP.encode() not in pieces.read_bytes() and "«redacted:".encode() in pieces.read_bytes()
    with open(root / "POLICY.patterns", "a", encoding="utf-8") as fh:
        fh.write("codename codename-[a-z]+\n")
    warm = render_shelf(load_shelf(root)[0], check=True, cache=EpisodeCache(directory))
    plain = render_shelf(load_shelf(root)[0], check=True)
    assert warm.files == plain.files and warm.neutralised == plain.neutralised
    assert b"bluebird" not in (warm.files["INDEX.md"] or b"") + (warm.files["docs/topics/.meta.json"] or b"")


def test_a_forged_piece_of_the_wrong_shape_is_computed_again(shelf_root, tmp_path):
    """Under a right key, a piece whose values are not strings, or are too few, is a miss."""
    directory = tmp_path / "c"
    expected = _answer(shelf_root, None)
    _answer(shelf_root, EpisodeCache(directory))
    [pieces] = [p for p in _cache_files(directory) if p.name.startswith("pieces-")]
    header, entries = cache_mod.marshal.loads(pieces.read_bytes()[len(cache_mod.MAGIC) + 32:])
    forged = {k: ((b"x",) if n % 3 == 1 else () if n % 3 else (1, 2, 3, 4)) for n, k in enumerate(entries)}
    pieces.write_bytes(cache_mod._encode_file(forged, header))
    cache = EpisodeCache(directory)
    assert _answer(shelf_root, cache) == expected and cache.warning is None


@pytest.mark.parametrize("titled_first", [True, False])
def test_names_that_mask_alike_take_the_entry_a_plain_render_takes(tmp_path, titled_first):
    """Two files whose names mask to the same text: .meta.json keeps one entry under that name,
    and INDEX shows it for both. An INDEX piece is kept under its own row's entry, so the other
    file's piece is made again with the entry found; the bytes are the uncached ones, cold,
    warm and after the titled one changes."""
    one, two = "ghp_" + "A1b" * 12, "ghp_" + "C2d" * 12
    stems = (one, two) if titled_first else (two, one)
    untitled = TOPIC.replace("2026-01-05-cache-policy", stems[1]).replace(
        'display_title: "Cache policy"\n', "").replace('description: "Edge cache eviction settled on TTL"\n', "")
    root = make_shelf(tmp_path / "s", {f"docs/topics/{stems[0]}.md": TOPIC.replace("2026-01-05-cache-policy", stems[0]),
                                       f"docs/topics/{stems[1]}.md": untitled})
    directory = tmp_path / "c"
    titled = root / f"docs/topics/{stems[0]}.md"
    for title in ("Cache policy", "Cache policy", "Cache rules"):
        titled.write_text(titled.read_text(encoding="utf-8").replace("Cache policy", title), encoding="utf-8")
        cached = render_shelf(load_shelf(root)[0], check=True, cache=EpisodeCache(directory))
        plain = render_shelf(load_shelf(root)[0], check=True)
        assert (cached.files, cached.neutralised) == (plain.files, plain.neutralised)
        assert (plain.files["INDEX.md"] or b"").count(title.encode()) == 2
