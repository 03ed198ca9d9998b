"""`memshelf-bot stats`: the claimed and realized token economy of docs/format.md §10 / docs/reference.md §11.

The worked example of docs/reference.md §9 lives in tests/golden/stats/worked-example (episodes,
ledger.tsv and INDEX.md exactly as §9 lists them); every test copies it before touching it.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from memshelf_render.shelf import load_shelf
from memshelf_render.stats import (
    Claimed,
    Realized,
    banner,
    claimed_economy,
    context_window,
    human,
    ledger_rows,
    realized_economy,
    shelf_stats,
)

WORKED = Path(__file__).parents[1] / "golden" / "stats" / "worked-example"
HEADER = "date\tepisode_id\tmode\tapprox_tokens_in\tdigest_tokens\tnotes\n"
RECALL_HEADER = "episode_id\tsection\tfetched_tokens\n"
NUMBER_KEYS = (
    "episodes", "index_tokens", "digest_tokens", "standing_cost", "shelved_mass", "work_volume",
    "capped_episodes", "context_window", "compression_ratio", "unmeasured_episodes",
    "unmeasured_digest_tokens", "recalls", "episodes_recalled", "fetched_tokens", "realized_savings",
)


def worked_example(dest: Path) -> Path:
    shutil.copytree(WORKED, dest)
    return dest


def run_stats(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMSHELF_")}
    return subprocess.run([sys.executable, "-m", "bot.cli", "stats", *args], capture_output=True, text=True,
                          env={**base, **(env or {})}, check=False)


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


@pytest.mark.parametrize(("n", "text"), [
    (0, "0"), (999, "999"), (1000, "1K"), (1500, "2K"), (2500, "2K"), (27_000, "27K"),
    (999_999, "1000K"), (1_000_000, "1M"), (1_005_000, "1M"), (1_050_000, "1.05M"), (1_234_567, "1.23M"),
    (1_500_000, "1.5M"), (10_000_000, "10M"), (20_500_000, "20.5M"), (100_000_000, "100M"), (-999, "-999"), (-3493, "-3K"), (-1_500_000, "-1.5M"),
])
def test_human_numbers_trim_trailing_zeros_properly(n, text):
    # docs/reference.md §14.10: the reference chart writes 1.00M; h(n) trims zeros *and* keeps 10M
    # and 100M intact.
    assert human(n) == text


def test_worked_example_numbers_and_banner(tmp_path):
    shelf, _ = load_shelf(worked_example(tmp_path / "s"))
    stats = shelf_stats(shelf, 200_000)
    assert stats.claimed == Claimed(
        context_window=200_000, episodes=3, index_tokens=193, digest_tokens=92, standing_cost=285,
        shelved_mass=27_000, work_volume=27_000, capped_episodes=0, compression_ratio=102.7,
        unmeasured_episodes=1, unmeasured_digest_tokens=22,
    )
    assert stats.realized == Realized(recalls=0, episodes_recalled=0, fetched_tokens=0, realized_savings=0)
    assert stats.banner == "memshelf: 3 episodes · standing 285 tok · holds ~27K est. (102.7:1) · 1 unmeasured"


# Rows: a negative claim, b twice (the last row wins), two unusable rows, Python-int spellings, and
# an unmeasured id whose approx_tokens still count for recall savings but never for mass.
LEDGER = HEADER + (
    "2026-01-01\ta\tlive\t-5000\t5\t\n"
    "2026-01-01\tb\tlive\t300000\t7\n"
    "2026-01-01\tb\tlive\t250000\t9\n"
    "2026-01-01\tc\tlive\tx\t9\n"
    "2026-01-01\td\tlive\t12\n"
    "\n"
    "2026-01-01\te\tlive\t +7 \t1_0\n"
    "2026-01-01\tquiet\tlive\t5000\t4\n"
)
RECALLS = RECALL_HEADER + (
    "b\tDigest\t100\n"
    "b\t\t5000000\n"
    "a\tx\n"
    "zzz\t\t10\n"
    "\n"
    "quiet\t\t 20 \n"
    "b\tx\t1.5\n"
)


def test_ledger_rules_last_row_wins_window_cap_and_unmeasured():
    claimed = claimed_economy(ledger_rows(LEDGER), {"quiet", "not-in-ledger"}, 193, 200_000)
    assert claimed == Claimed(
        context_window=200_000, episodes=4, index_tokens=193, digest_tokens=28, standing_cost=221,
        shelved_mass=195_007, work_volume=245_007, capped_episodes=1, compression_ratio=898.6,
        unmeasured_episodes=1, unmeasured_digest_tokens=4,
    )


def test_first_ledger_line_is_always_the_header():
    assert ledger_rows("2026-01-01\ta\tlive\t100\t5\n") == []
    assert claimed_economy([], (), 0, 200_000).compression_ratio == 0.0


def test_realized_economy_from_the_recall_log():
    latest = {row.episode_id: row.approx_tokens for row in ledger_rows(LEDGER)}
    # b: 200,000 (capped) - 100; b again fetched more than it holds: 0; zzz has no row: 0;
    # quiet: 5,000 - 20. Every non-blank row is a recall, usable or not.
    assert realized_economy(RECALLS, latest, 200_000) == Realized(
        recalls=6, episodes_recalled=3, fetched_tokens=5_000_130, realized_savings=204_880)
    assert realized_economy("a\t\t10\n", latest, 200_000).recalls == 0


def test_banner_with_every_optional_part():
    claimed = claimed_economy(ledger_rows(LEDGER), {"quiet"}, 193, 200_000)
    latest = {row.episode_id: row.approx_tokens for row in ledger_rows(LEDGER)}
    assert banner(claimed, realized_economy(RECALLS, latest, 200_000)) == (
        "memshelf: 4 episodes · standing 221 tok · holds ~195K est. (898.6:1) · 1 unmeasured"
        " · 1 episode(s) clipped to a 200K window, work volume ~245K · realized saved 205K")


def test_context_window_precedence():
    env = {"MEMSHELF_CONTEXT_WINDOW": " 500 "}
    assert context_window(1000, env, 300) == (1000, None)
    assert context_window(None, env, 300) == (500, None)
    assert context_window(None, {}, 300) == (300, None)
    assert context_window(None, {"MEMSHELF_CONTEXT_WINDOW": ""}, 300) == (300, None)
    for bad in ("abc", "0", "-5"):
        assert context_window(None, {"MEMSHELF_CONTEXT_WINDOW": bad}, 300) == (
            300, f"ignoring MEMSHELF_CONTEXT_WINDOW={bad!r}: not a positive integer")


def test_cli_json(tmp_path):
    proc = run_stats(str(worked_example(tmp_path / "s")), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert list(out) == [
        "tool", "version", "banner", "context_window", "episodes", "index_tokens", "digest_tokens",
        "standing_cost", "shelved_mass", "work_volume", "capped_episodes", "compression_ratio",
        "unmeasured_episodes", "unmeasured_digest_tokens", "recalls", "episodes_recalled", "fetched_tokens",
        "realized_savings",
    ]
    assert (out["tool"], out["standing_cost"], out["shelved_mass"], out["compression_ratio"]) == (
        "memshelf-bot", 285, 27_000, 102.7)


def test_cli_text(tmp_path):
    proc = run_stats(str(worked_example(tmp_path / "s")))
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines() == [
        "memshelf: 3 episodes · standing 285 tok · holds ~27K est. (102.7:1) · 1 unmeasured",
        "standing cost     285 tok (INDEX 193 + digests 92)",
        "shelved mass      27,000 tok (work volume 27,000; window 200,000, 0 episode(s) capped)",
        "compression       102.7:1 (1 unmeasured episode(s), their 22 digest tok left out)",
        "recalls           0 (0 episode(s), 0 tok fetched)",
        "realized savings  0 tok",
    ]


def test_cli_context_window_from_env_flag_and_settings(tmp_path):
    root = worked_example(tmp_path / "s")
    window = {"MEMSHELF_CONTEXT_WINDOW": "10000"}

    def claimed(*args: str, env: dict[str, str] | None = None) -> tuple[int, int, int]:
        proc = run_stats(str(root), "--format", "json", *args, env=env)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        return out["context_window"], out["shelved_mass"], out["capped_episodes"]

    assert claimed(env=window) == (10_000, 19_000, 1)
    assert claimed("--context-window", "5000", env=window) == (5000, 10_000, 2)
    (root / ".memshelf-bot.yml").write_text("context_window: 8000\n", encoding="utf-8")
    assert claimed() == (8000, 16_000, 2)
    assert claimed(env=window) == (10_000, 19_000, 1)

    bad = run_stats(str(root), env={"MEMSHELF_CONTEXT_WINDOW": "lots"})
    assert bad.returncode == 0 and "ignoring MEMSHELF_CONTEXT_WINDOW='lots'" in bad.stderr
    zero = run_stats(str(root), "--context-window", "0")
    assert zero.returncode == 2 and zero.stderr == "memshelf-bot stats: --context-window must be positive, got 0\n"


def test_cli_png(tmp_path):
    out = tmp_path / "stats.png"
    proc = run_stats(str(worked_example(tmp_path / "s")), "--png", str(out))
    assert proc.returncode == 0, proc.stderr
    assert png_size(out.read_bytes()) == (800, 360)
    unwritable = run_stats(str(tmp_path / "s"), "--png", str(tmp_path / "missing" / "x.png"))
    assert unwritable.returncode == 1 and "cannot write" in unwritable.stderr


def test_cli_config_error_exit_2(tmp_path):
    proc = run_stats(str(tmp_path / "nowhere"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "shelf.yml" in proc.stderr


def test_unusable_index_and_logs_are_read_not_crashed_on(tmp_path):
    # The reference raises UnicodeDecodeError on a non-UTF-8 INDEX.md (deliberate difference):
    # we read it with replacement characters, like every other shelf file.
    root = worked_example(tmp_path / "s")
    (root / "INDEX.md").write_bytes(b"abcdefg\xff")
    (root / "recall-log.tsv").write_bytes(b"\xfe\n")
    shelf, _ = load_shelf(root)
    stats = shelf_stats(shelf, 200_000)
    assert (stats.claimed.index_tokens, stats.realized.recalls) == (2, 0)


def test_unmeasured_is_read_by_the_one_yaml_parser(tmp_path):
    # Deliberate difference: the reference's line reader misses a single-quoted
    # `approx_tokens_source: 'unmeasured'`; YAML (docs/format.md §2) reads it as unmeasured.
    root = worked_example(tmp_path / "s")
    session = root / "docs" / "sessions" / "2026-03-04-wrap-up.md"
    session.write_text(session.read_text(encoding="utf-8").replace(
        "approx_tokens_source: unmeasured", "approx_tokens_source: 'unmeasured'"), encoding="utf-8")
    shelf, _ = load_shelf(root)
    assert shelf_stats(shelf, 200_000).claimed.unmeasured_episodes == 1


# --- differential: the same numbers as `memshelf stats` (reference, black box) ------------------


def reference_stats(root: Path, window: int | None = None) -> dict:
    from tests.refs import RefsUnavailable, ref_python

    try:
        memshelf = ref_python().parent / "memshelf"
    except RefsUnavailable as exc:
        pytest.skip(str(exc))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSHELF_")}
    if window is not None:
        env["MEMSHELF_CONTEXT_WINDOW"] = str(window)
    proc = subprocess.run([str(memshelf), "stats", "--shelf", str(root)], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(proc.stdout)


def variants(tmp_path: Path) -> list[tuple[Path, int | None]]:
    out = [(worked_example(tmp_path / "worked"), None)]
    root = worked_example(tmp_path / "logged")
    (root / "ledger.tsv").write_text(LEDGER.replace("\tquiet\t", "\t2026-03-04-wrap-up\t"), encoding="utf-8")
    (root / "recall-log.tsv").write_text(RECALLS.replace("quiet", "2026-03-04-wrap-up"), encoding="utf-8")
    out += [(root, None), (root, 1500), (root, 1)]
    bare = worked_example(tmp_path / "bare")
    for name in ("INDEX.md", "ledger.tsv"):
        (bare / name).unlink()
    out.append((bare, None))
    crlf = worked_example(tmp_path / "crlf")
    for name in ("INDEX.md", "ledger.tsv"):
        path = crlf / name
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    out.append((crlf, 10_000))
    return out


@pytest.mark.slow
def test_numbers_equal_the_reference(tmp_path):
    for root, window in variants(tmp_path):
        ref = reference_stats(root, window)
        shelf, _ = load_shelf(root)
        ours = shelf_stats(shelf, window or 200_000).as_dict()
        assert {k: ours[k] for k in NUMBER_KEYS} == {k: ref[k] for k in NUMBER_KEYS}, root.name
        assert ours["banner"] == ref["banner"], root.name
