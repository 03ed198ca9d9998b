"""badge.svg and badge.json: golden bytes, health colours from the validator, escaping, the
width table's origin, the CLI, and that the badge rasterizes at its own size."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from memshelf_render import badge
from memshelf_render.findings import Finding
from memshelf_render.raster import svg_to_png
from memshelf_render.records import collect
from memshelf_render.shelf import load_shelf
from tests.unit.test_stats import png_size

GOLDEN = Path(__file__).parents[1] / "golden" / "stats"
WORKED = GOLDEN / "worked-example"
BADGE_JSON = (
    '{\n  "schemaVersion": 1,\n  "label": "memory shelf",\n  "message": "3 episodes · 285 tok",\n'
    '  "color": "brightgreen"\n}\n'
).encode()


def worked_files() -> dict[str, bytes]:
    shelf, _ = load_shelf(WORKED)
    records, _ = collect(shelf.episodes)
    return badge.badge_files(shelf, records, shelf.read_text("INDEX.md") or "")


def run_badge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", "badge", *args], capture_output=True, check=False)


def test_worked_example_badge_is_golden():
    files = worked_files()
    assert list(files) == ["badge.svg", "badge.json"]
    path = GOLDEN / "badge.svg"
    if os.environ.get("MEMSHELF_UPDATE_GOLDEN") == "1":
        path.write_bytes(files["badge.svg"])
    assert files["badge.svg"] == path.read_bytes()
    assert files["badge.json"] == BADGE_JSON
    root = ET.fromstring(files["badge.svg"])
    assert root.attrib["aria-label"] == "memory shelf: 3 episodes · 285 tok"
    assert (root.attrib["width"], root.attrib["height"]) == ("212", "20")


def findings(*codes: str) -> list[Finding]:
    return [Finding(code, "docs/topics/x.md", 1, "m") for code in codes]


@pytest.mark.parametrize(("codes", "json_color", "fill"), [
    ((), "brightgreen", "#4c1"),
    (("category-empty",), "brightgreen", "#4c1"),                            # info only
    (("duplicate-title",), "yellow", "#dfb317"),                             # a warning
    (("duplicate-title", "mode-invalid"), "red", "#e05d44"),                 # an error wins
    (("ledger-row-missing", "ledger-malformed", "index-missing"), "brightgreen", "#4c1"),  # derived only
])
def test_health_colour_comes_from_the_validator(monkeypatch, codes, json_color, fill):
    seen = []

    def fake_validate(shelf, *, changed=None):
        seen.append(changed)
        return findings(*codes)

    monkeypatch.setattr("memshelf_render.validate.validate_shelf", fake_validate)
    files = worked_files()
    assert seen == [None]  # the whole shelf, not PR mode
    assert json.loads(files["badge.json"])["color"] == json_color
    assert f'fill="{fill}"'.encode() in files["badge.svg"]


def test_real_validator_turns_the_badge_red(tmp_path):
    root = shutil.copytree(WORKED, tmp_path / "s")
    topic = root / "docs" / "topics" / "2026-03-02-cache-policy.md"
    topic.write_text(topic.read_text(encoding="utf-8").replace("mode: live", "mode: bogus"), encoding="utf-8")
    shelf, _ = load_shelf(root)
    records, _ = collect(shelf.episodes)
    files = badge.badge_files(shelf, records, "")
    assert json.loads(files["badge.json"]) == {
        "schemaVersion": 1, "label": "memory shelf", "message": "3 episodes · 92 tok", "color": "red"}


def test_text_is_escaped_and_the_svg_stays_well_formed():
    svg = badge.badge_svg('a<b>&"c"', "1 episode · 5 tok", "#4c1")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.find(f"{ns}title").text == 'a<b>&"c": 1 episode · 5 tok'
    assert [t.text for t in root.iter(f"{ns}text")] == ['a<b>&"c"'] * 2 + ["1 episode · 5 tok"] * 2
    assert root.attrib["aria-label"] == 'a<b>&"c": 1 episode · 5 tok'


def test_message_counts_distinct_ids_and_standing_tokens():
    shelf, _ = load_shelf(WORKED)
    records, _ = collect(shelf.episodes)
    assert badge.message(records, "x" * 4000) == "3 episodes · 1K tok"
    assert badge.message(records[:1], "") == "1 episode · 46 tok"
    assert badge.message([], "") == "0 episodes · 0 tok"


def test_width_table_is_dejavu_sans_as_matplotlib_ships_it():
    import matplotlib
    from matplotlib.ft2font import FT2Font, LoadFlags

    font = FT2Font(f"{matplotlib.get_data_path()}/fonts/ttf/DejaVuSans.ttf")
    advances, wide, per_em = badge._advances()
    assert per_em == font.units_per_EM
    assert {ch: font.load_char(ord(ch), flags=LoadFlags.NO_SCALE).horiAdvance for ch in advances} == advances
    assert badge.text_width("M") == badge.text_width("\u2603") == wide * 11 / per_em


def test_cli_json_svg_and_out(tmp_path):
    root = shutil.copytree(WORKED, tmp_path / "s")
    proc = run_badge(str(root), "--format", "json")
    assert (proc.returncode, proc.stdout) == (0, BADGE_JSON)
    proc = run_badge(str(root))
    assert proc.returncode == 0 and proc.stdout == (GOLDEN / "badge.svg").read_bytes()
    out = tmp_path / "b.json"
    proc = run_badge(str(root), "--format", "json", "--out", str(out))
    assert (proc.returncode, proc.stdout, out.read_bytes()) == (0, b"", BADGE_JSON)
    out = tmp_path / "b.svg"
    assert run_badge(str(root), "--out", str(out)).returncode == 0
    assert out.read_bytes() == (GOLDEN / "badge.svg").read_bytes()
    missing = run_badge(str(root), "--out", str(tmp_path / "no" / "b.svg"))
    assert missing.returncode == 1 and b"cannot write" in missing.stderr
    config = run_badge(str(tmp_path / "nowhere"))
    assert config.returncode == 2 and b"shelf.yml" in config.stderr


def test_badge_rasterizes_at_its_own_size():
    svg = badge.badge_svg(badge.LABEL, "12345 episodes · 1.23M tok", "#dfb317")
    width = int(ET.fromstring(svg).attrib["width"])
    assert png_size(svg_to_png(svg)) == (width, 20)
    assert png_size(svg_to_png(worked_files()["badge.svg"])) == (212, 20)
