"""The seeded generator: deterministic, realistic, clean for both references; mutations bite."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memshelf_render.catalog import RULES
from tests import refs
from tests.shelfgen import DERIVED_MUTATIONS, EXPECTED, LINK_MODES, MUTATIONS, QUIRKS, generate_shelf

REPO = Path(__file__).resolve().parents[2]
SEEDS = (1, 2, 3)
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file's bytes (a symlink as its target), keyed by shelf-relative path."""
    out: dict[str, bytes | str] = {}
    for base, dirs, files in os.walk(root):
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(base, d))]):
            path = Path(base, name)
            rel = path.relative_to(root).as_posix()
            out[rel] = f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes()
    return out


def _episode_texts(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8")
            for p in sorted(root.glob("docs/*/*.md"))}


def _has_date_line(text: str) -> bool:
    return re.search(r"^date:", text, re.MULTILINE) is not None


# How each quirk shows in the bytes; a new quirk must say how it can be seen.
QUIRK_SIGNS = {
    "fence-at-byte-0": lambda t, stem: t.startswith("---"),
    "blank-before-fence": lambda t, stem: t.startswith(("\n\n---", "\r\n\r\n---")),
    "crlf": lambda t, stem: "\r\n" in t,
    "digest-trailing-spaces": lambda t, stem: "## Digest   \n" in t.replace("\r\n", "\n"),
    "lowercase-extra-sections": lambda t, stem: re.search(r"^## (artifacts|raw excerpts|sources)\r?$", t,
                                                          re.MULTILINE) is not None,
    "cyrillic-title": lambda t, stem: any(_CYRILLIC.search(x) for x in t.splitlines()
                                          if x.startswith("display_title:")),
    "emoji-title": lambda t, stem: "display_title: \"🚀" in t,
    "tags-empty": lambda t, stem: "tags: []" in t,
    "unmeasured": lambda t, stem: "approx_tokens: 0" in t and "approx_tokens_source: unmeasured" in t,
    "import": lambda t, stem: "mode: import" in t,
    "span-range": lambda t, stem: re.search(r"^span: \d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d", t, re.MULTILINE),
    "no-date": lambda t, stem: not _has_date_line(t),
    "escaped-quotes": lambda t, stem: '\\"' in t,
    "long-raw": lambda t, stem: len(t) > 20_000,
    "redacted-mask": lambda t, stem: "=«redacted:env-secret»" in t,
    "h1-title": lambda t, stem: t.startswith("# ") and not t.startswith(f"# {stem}\n"),
    "no-mode": lambda t, stem: re.search(r"^mode:", t, re.MULTILINE) is None,
    "fenced-heading": lambda t, stem: "```markdown\n## Sample output header" in t.replace("\r\n", "\n"),
    "retain-until": lambda t, stem: "retain_until: " in t,
    "session-field": lambda t, stem: re.search(r"^session: sess-", t, re.MULTILINE) is not None,
}


def test_same_seed_same_bytes_other_seed_other_shelf(tmp_path: Path) -> None:
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        generate_shelf(tmp_path / name, seed=seed, link_mode="github")
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    assert snapshot(tmp_path / "a") != snapshot(tmp_path / "c")


def test_link_mode_changes_only_the_renderer_config(tmp_path: Path) -> None:
    shots = {}
    for mode in LINK_MODES:
        generate_shelf(tmp_path / mode, seed=4, link_mode=mode)
        shots[mode] = snapshot(tmp_path / mode)
    differing = {p for p in shots["none"] if any(shots[m][p] != shots["none"][p] for m in LINK_MODES)}
    assert differing == {".docshelf.json", "archive/.docshelf.json"}
    assert b'"provider": "none"' in shots["provider-none"][".docshelf.json"]
    assert b'"remote": "https://github.com/' in shots["github"][".docshelf.json"]


def test_shelf_layout(tmp_path: Path) -> None:
    shelf = generate_shelf(tmp_path / "s", seed=3, episodes=30, archive=5)
    root = shelf.root
    manifest = (root / "shelf.yml").read_text(encoding="utf-8")
    assert manifest.startswith('# shelf.yml — shelf-spec manifest (shelf-spec v0)\nspec_version: "0.1"\n')
    assert "profile: memory\n" in manifest and "  generated_by: docshelf-mcp\n" in manifest
    for name in ("POLICY.md", "POLICY.patterns", "recall-log.tsv", ".docshelf.json", "archive/.docshelf.json"):
        assert (root / name).is_file(), name
    patterns = [x for x in (root / "POLICY.patterns").read_text().splitlines() if x and not x.startswith("#")]
    assert len(patterns) == 2
    assert len(shelf.episodes) == 31 and len(shelf.archived) == 5  # 30 + the roll-up
    assert {p.split("/")[1] for p in shelf.episodes} == {"topics", "research", "sessions"}
    assert all(p.startswith("archive/docs/") for p in shelf.archived)
    stems = {p.rsplit("/", 1)[1][:-3] for p in shelf.episodes + shelf.archived}
    assert len(stems) == 36
    recall = (root / "recall-log.tsv").read_text().splitlines()
    assert recall[0] == "episode_id\tsection\tfetched_tokens"
    assert len(recall) > 3 and all(r.split("\t")[0] in stems for r in recall[1:])
    texts = _episode_texts(root)
    digests = [t.replace("\r\n", "\n").split("## Digest", 1)[1].split("\n## ", 1)[0] for t in texts.values()]
    assert any(_CYRILLIC.search(d) for d in digests) and any(not _CYRILLIC.search(d) for d in digests)
    assert any("```" in t for t in texts.values())
    assert not any((root / n).exists() for n in ("INDEX.md", "ledger.tsv", "stats.svg"))


def test_every_quirk_is_written_and_none_without_quirks(tmp_path: Path) -> None:
    assert set(QUIRK_SIGNS) == set(QUIRKS)
    quirky = _episode_texts(generate_shelf(tmp_path / "q", seed=9).root)
    for quirk, sign in QUIRK_SIGNS.items():
        assert any(sign(t, p.rsplit("/", 1)[1][:-3]) for p, t in quirky.items()), quirk
    plain = _episode_texts(generate_shelf(tmp_path / "p", seed=9, quirks=False).root)
    unusual = {q for q, sign in QUIRK_SIGNS.items() for p, t in plain.items()
               if sign(t, p.rsplit("/", 1)[1][:-3])}
    # Without quirks these forms never appear; the rest also occur naturally (e.g. ranges).
    assert not unusual & {"fence-at-byte-0", "blank-before-fence", "crlf", "digest-trailing-spaces",
                          "lowercase-extra-sections", "emoji-title", "tags-empty", "unmeasured", "import",
                          "no-date", "escaped-quotes", "long-raw", "redacted-mask", "h1-title", "no-mode",
                          "fenced-heading", "retain-until", "session-field"}


def test_without_docshelf_config(tmp_path: Path) -> None:
    root = generate_shelf(tmp_path / "s", seed=2, docshelf=False, archive=0).root
    assert not (root / ".docshelf.json").exists() and not (root / "archive").exists()


def test_unknown_link_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="link_mode"):
        generate_shelf(tmp_path / "s", seed=1, link_mode="gitlab")


@pytest.mark.slow
def test_ten_thousand_episodes(tmp_path: Path) -> None:
    shelf = generate_shelf(tmp_path / "big", seed=11, episodes=10_000, archive=300)
    stems = [p.rsplit("/", 1)[1] for p in shelf.episodes + shelf.archived]
    assert len(stems) == 10_301 and len(set(stems)) == 10_301
    assert len(list((tmp_path / "big").glob("docs/*/*.md"))) == 10_001


def test_bench_wrapper_writes_the_same_shelf(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "gen_shelf.py"), str(tmp_path / "b"),
                           "--episodes", "12", "--seed", "5"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "13 episodes, 1 archived" in proc.stderr
    generate_shelf(tmp_path / "g", seed=5, episodes=12, archive=1)
    assert snapshot(tmp_path / "b") == snapshot(tmp_path / "g")
    again = subprocess.run([sys.executable, str(REPO / "bench" / "gen_shelf.py"), str(tmp_path / "b")],
                           capture_output=True, text=True)
    assert again.returncode == 2 and "already exists" in again.stderr


# --- both references agree that generated shelves are clean ---------------------------------------


CLEAN_CASES = [(seed, mode, derived) for seed in SEEDS for mode in LINK_MODES for derived in (False, True)]
CLEAN_CASES += [(seed, "no-config", False) for seed in SEEDS]


def _case_id(case: tuple) -> str:
    seed, mode, derived = case
    return f"seed{seed}-{mode}-{'rendered' if derived else 'unrendered'}"


@pytest.fixture(scope="module")
def clean_verdicts(ref_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("clean")
    roots = []
    for case in CLEAN_CASES:
        seed, mode, derived = case
        if mode == "no-config":
            roots.append(generate_shelf(base / _case_id(case), seed=seed, docshelf=False, quirks=False).root)
        else:
            roots.append(generate_shelf(base / _case_id(case), seed=seed, link_mode=mode, derived=derived).root)
    return dict(zip(CLEAN_CASES, refs.judge(roots), strict=True))


@pytest.mark.parametrize("case", CLEAN_CASES, ids=_case_id)
def test_clean_for_both_references(clean_verdicts: dict, case: tuple) -> None:
    _, mode, derived = case
    v = clean_verdicts[case]
    assert v.validate["verdict"] == "valid" and v.validate["exit"] == 0, v.summary()
    assert v.doctor["ci_errors"] == [] and v.doctor["exit"] == 0, v.summary()
    spec_warnings = {f["rule"] for f in v.validate["findings"] if f["severity"] == "warning"}
    doctor_warnings = {f["code"] for f in v.doctor["findings"] if f["level"] == "warning"}
    if derived:
        assert spec_warnings == set() and doctor_warnings == set()
    else:  # only the lag of derived files an unrendered shelf has by definition
        assert spec_warnings <= {"stale-index"}
        lag = {"stale-index", "no-ledger-row"}
        # Without .docshelf.json doctor compares shelf.yml's name with the default "Document Shelf".
        assert doctor_warnings <= (lag | {"docshelf-config-conflict"} if mode == "no-config" else lag)


def test_rendered_shelf_has_every_derived_file(ref_venv: Path, tmp_path: Path) -> None:
    root = generate_shelf(tmp_path / "s", seed=1, link_mode="github", derived=True).root
    for name in ("INDEX.md", "ledger.tsv", "stats.svg", "archive/INDEX.md", "docs/topics/.meta.json"):
        assert (root / name).is_file(), name
    assert "https://raw.githubusercontent.com/" in (root / "INDEX.md").read_text(encoding="utf-8")
    assert refs.memshelf_rebuild(root, check=True)["drifted"] == []


# --- mutations --------------------------------------------------------------------------------


def test_at_least_forty_kinds_of_defect_with_catalog_codes() -> None:
    assert len(MUTATIONS) >= 40 and set(EXPECTED) == set(MUTATIONS)
    assert {(n, c) for n, codes in EXPECTED.items() for c in codes if c not in RULES} == set()


@pytest.fixture(scope="module")
def mutated(ref_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("mut")
    plain = generate_shelf(base / "plain", seed=21, episodes=24, archive=4).root
    rendered = generate_shelf(base / "rendered", seed=21, episodes=24, archive=4, derived=True).root
    out = {}
    for name, apply in MUTATIONS.items():
        src = rendered if name in DERIVED_MUTATIONS else plain
        copies = []
        for i in (1, 2):
            dst = base / f"{name}-{i}"
            shutil.copytree(src, dst, symlinks=True)
            copies.append((dst, apply(dst, random.Random(21))))
        out[name] = (snapshot(src), copies)
    return out


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_mutation_changes_the_shelf_deterministically(mutated: dict, name: str) -> None:
    before, ((first, rec1), (second, rec2)) = mutated[name]
    assert rec1 == rec2 and rec1.name == name and rec1.expects == EXPECTED[name]
    after = snapshot(first)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    assert any(p == rec1.path or p.startswith(rec1.path + "/") for p in changed)
    assert after == snapshot(second)
