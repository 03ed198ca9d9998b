"""stats.svg: golden bytes, byte-determinism across runs and machines' settings, the skip on an
unchanged input, and that every chart rasterizes with cairosvg.

Set MEMSHELF_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate drawing change (and
bump CHART_FORMAT so committed charts are redrawn).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from memshelf_render.raster import svg_to_png
from memshelf_render.records import Record, collect
from memshelf_render.render.chart import ChartData, chart_data, chart_svg, input_hash, previous_hash
from memshelf_render.shelf import load_shelf
from memshelf_render.stats import shelf_stats
from tests.unit.test_stats import png_size

GOLDEN = Path(__file__).parents[1] / "golden" / "stats"
WORKED = GOLDEN / "worked-example"
REPO = Path(__file__).resolve().parents[2]


def worked_records() -> tuple[list[Record], str]:
    shelf, _ = load_shelf(WORKED)
    records, skipped = collect(shelf.episodes)
    assert skipped == []
    return records, shelf.read_text("INDEX.md") or ""


def rec(eid: str, date: str, approx: int, digest: int, source: str = "estimate") -> Record:
    return Record(id=eid, filename=f"{eid}.md", path=f"docs/topics/{eid}.md", category="topics", archived=False,
                  date=date, mode="live", approx_tokens=approx, digest_tokens=digest, notes="", display_title="",
                  description="", tokens_source=source)


def texts(svg: bytes) -> list[str]:
    """The visible texts: matplotlib writes each one as a comment before its glyph paths."""
    return [t.decode() for t in re.findall(rb"<!-- (.*?) -->", svg) if not t.startswith(b"memshelf-bot")]


def check_golden(name: str, svg: bytes) -> None:
    path = GOLDEN / name
    if os.environ.get("MEMSHELF_UPDATE_GOLDEN") == "1":
        path.write_bytes(svg)
    assert svg == path.read_bytes()


def test_worked_example_chart_is_the_golden_file():
    records, index_text = worked_records()
    svg = chart_svg(records, index_text=index_text, context_window=200_000, previous=None)
    check_golden("stats.svg", svg)
    assert texts(svg) == [
        "2026-03-02", "2026-03-03", "2026-03-04", "100", "1K", "10K", "100K", "tokens (log scale)",
        "Token economy — compression 102.7:1", "as of 2026-03-04",
        "3 episodes, 1 unmeasured (no mass) · mass capped at 200K tokens per episode · chars/4 estimate",
        "shelved mass: 27K tokens of past work the episodes hold",
        "standing cost: 285 tokens (INDEX + digests) per session",
    ]


def test_empty_shelf_still_gets_a_chart():
    svg = chart_svg([], index_text="", context_window=200_000, previous=None)
    check_golden("stats-empty.svg", svg)
    assert texts(svg) == ["Token economy", "shelved mass vs standing cost, cumulative · chars/4 estimate",
                          "No episodes on the shelf yet", "the chart fills in as episodes are shelved"]
    undated = chart_svg([rec("x", "", 10, 1)], index_text="", context_window=200_000, previous=None)
    assert "No dated episodes yet" in texts(undated)


def test_series_follow_the_stats_rules(tmp_path):
    records, index_text = worked_records()
    data = chart_data(records, len(index_text) // 4, 200_000)
    assert data == ChartData(days=("2026-03-02", "2026-03-04"), mass=(18_000, 27_000), standing=(239, 285),
                             ratio=102.7, window=200_000, episodes=3, unmeasured=1)
    shelf, _ = load_shelf(WORKED)
    claimed = shelf_stats(shelf, 200_000).claimed
    assert (data.mass[-1], data.standing[-1], data.ratio) == (
        claimed.shelved_mass, claimed.standing_cost, claimed.compression_ratio)


def test_series_cap_dedupe_unmeasured_and_undated_rows():
    records = [
        rec("undated", "", 50, 1),                    # no date: counts from the next dated day
        rec("big", "2026-01-01", 900_000, 10),        # capped at the window
        rec("quiet", "2026-01-01", 70_000, 5, "unmeasured"),
        rec("dup", "2026-01-03", 100, 2),
        rec("dup", "2026-01-05", 300, 4),             # the later row replaces the earlier one
        rec("bad-day", "2026-13-01", 7, 1),           # no calendar date, sorts last: folded into the last day
    ]
    data = chart_data(records, 100, 200_000)
    assert data.days == ("2026-01-01", "2026-01-03", "2026-01-05")
    assert data.mass == (200_050, 200_150, 200_357)
    assert data.standing == (116, 118, 121)
    assert (data.episodes, data.unmeasured) == (5, 1)
    assert data.ratio == round(200_357 / (121 - 5), 1)


def test_long_spans_get_calendar_ticks():
    days = [f"2025-{m:02d}-15" for m in range(1, 13)] + [f"2027-{m:02d}-15" for m in range(1, 13)]
    records = [rec(f"e{i}", d, 1000, 10) for i, d in enumerate(days)]
    labels = texts(chart_svg(records, index_text="", context_window=200_000, previous=None))
    assert labels[:6] == ["2025-07", "2026-01", "2026-07", "2027-01", "2027-07", "10"]
    decade = [rec("first", "2020-01-01", 1000, 10), rec("last", "2031-06-01", 1000, 10)]
    labels = texts(chart_svg(decade, index_text="", context_window=200_000, previous=None))
    assert labels[:6] == ["2020", "2022", "2024", "2026", "2028", "2030"]
    weeks = [rec(f"w{i}", f"2026-02-{d:02d}", 1000, 10) for i, d in enumerate((1, 9, 20, 28))]
    labels = texts(chart_svg(weeks, index_text="", context_window=200_000, previous=None))
    assert labels[:4] == ["2026-02-01", "2026-02-08", "2026-02-15", "2026-02-22"]


def test_unchanged_input_returns_previous_untouched():
    records, index_text = worked_records()
    first = chart_svg(records, index_text=index_text, context_window=200_000, previous=None)
    assert previous_hash(first) == input_hash(chart_data(records, len(index_text) // 4, 200_000))
    again = chart_svg(records, index_text=index_text, context_window=200_000, previous=first)
    assert again is first
    # anything that changes a drawn number redraws; a chart drawn by another tool is redrawn
    assert chart_svg(records, index_text=index_text + "x" * 4, context_window=200_000, previous=first) != first
    assert chart_svg(records, index_text=index_text, context_window=10_000, previous=first) != first
    assert chart_svg(records, index_text=index_text, context_window=200_000,
                     previous=b"<svg xmlns='http://www.w3.org/2000/svg'/>") == first


def test_hand_edited_chart_is_redrawn_and_counts_as_drift(tmp_path):
    records, index_text = worked_records()
    first = chart_svg(records, index_text=index_text, context_window=200_000, previous=None)
    edited = first.replace(b"<svg", b"<svg data-edited='yes'", 1)
    assert previous_hash(edited) is None
    assert chart_svg(records, index_text=index_text, context_window=200_000, previous=edited) == first


def test_hash_covers_every_drawn_field():
    data = chart_data(worked_records()[0], 193, 200_000)
    changed = [replace(data, days=("2026-03-01", "2026-03-04")), replace(data, mass=(1, 27_000)),
               replace(data, standing=(239, 286)), replace(data, ratio=1.0), replace(data, window=1),
               replace(data, episodes=4), replace(data, unmeasured=0)]
    assert len({input_hash(d) for d in [data, *changed]}) == len(changed) + 1


SKIP_SCRIPT = """
import sys
from memshelf_render.render.chart import chart_svg
from tests.unit.test_chart import worked_records
records, index_text = worked_records()
previous = open(sys.argv[1], "rb").read()
out = chart_svg(records, index_text=index_text, context_window=200_000, previous=previous)
print(out is previous, "matplotlib" in sys.modules)
"""


def test_unchanged_input_never_imports_matplotlib():
    proc = subprocess.run([sys.executable, "-c", SKIP_SCRIPT, str(GOLDEN / "stats.svg")], capture_output=True,
                          text=True, cwd=REPO, check=True)
    assert proc.stdout.split() == ["True", "False"]


DRAW_SCRIPT = """
import json, sys
from memshelf_render.records import Record
from memshelf_render.render.chart import chart_svg
rows = json.loads(sys.argv[1])
records = [Record(**row) for row in rows]
sys.stdout.buffer.write(chart_svg(records, index_text="x" * 800, context_window=200_000, previous=None))
"""


@pytest.mark.slow
def test_same_bytes_twice_and_from_another_directory_home_and_matplotlibrc(tmp_path):
    records = [rec("a", "2026-01-01", 5000, 40), rec("b", "2026-02-10", 12_000, 60),
               rec("c", "2026-02-11", 0, 30, "unmeasured")]
    rows = json.dumps([{f: getattr(r, f) for f in r.__slots__} for r in records])
    here = subprocess.run([sys.executable, "-c", DRAW_SCRIPT, rows], capture_output=True, cwd=REPO, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "home").mkdir(parents=True)
    # a hostile matplotlibrc in the working directory and a fresh, empty config/cache directory
    (elsewhere / "matplotlibrc").write_text(
        "font.family: serif\nsvg.fonttype: none\nsvg.hashsalt: other\nlines.linewidth: 9\n"
        "axes.linewidth: 5\ngrid.linestyle: dashed\nlines.markeredgewidth: 4\nfigure.dpi: 300\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(elsewhere / "home"),
           "MPLCONFIGDIR": str(elsewhere / "mplconfig"), "LC_ALL": "C", "TZ": "Pacific/Kiritimati"}
    there = subprocess.run([sys.executable, "-c", DRAW_SCRIPT, rows], capture_output=True, cwd=elsewhere,
                           check=True, env=env).stdout
    in_process = chart_svg(records, index_text="x" * 800, context_window=200_000, previous=None)
    assert here == there == in_process
    assert chart_svg(records, index_text="x" * 800, context_window=200_000, previous=None) == in_process


def test_every_chart_rasterizes_at_readme_width():
    records, index_text = worked_records()
    for svg in (chart_svg(records, index_text=index_text, context_window=200_000, previous=None),
                chart_svg([], index_text="", context_window=200_000, previous=None)):
        assert png_size(svg_to_png(svg)) == (800, 360)


def _pixels(png: bytes) -> bytes:
    import cairocffi

    return bytes(cairocffi.ImageSurface.create_from_png(io.BytesIO(png)).get_data())


def test_rasterizing_never_reads_external_resources(tmp_path):
    red = tmp_path / "red.png"
    red.write_bytes(svg_to_png(b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8">'
                               b'<rect width="8" height="8" fill="#f00"/></svg>'))
    assert b"\x00\x00\xff\xff" in _pixels(red.read_bytes())  # BGRA red: the probe itself is visible
    for href in (red.as_uri(), "data:image/png;base64,AAAA", "http://127.0.0.1:9/x.png"):
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
               f'width="8" height="8"><image xlink:href="{href}" width="8" height="8"/></svg>').encode()
        assert b"\x00\x00\xff\xff" not in _pixels(svg_to_png(svg)), href
