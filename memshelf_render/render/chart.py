"""stats.svg: cumulative shelved mass vs standing cost over time, drawn by matplotlib
(`chartdraw`).

The SVG carries a hash of the chart's input. When the committed chart already carries the same
hash it is returned as it is and matplotlib is never imported, so a render that changes no
numbers costs nothing here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from dataclasses import asdict
from datetime import date
from functools import cache
from typing import TYPE_CHECKING

from ..chartdraw import ChartData
from ..economy import ClaimedTally, LedgerRow, tokens

if TYPE_CHECKING:
    from ..records import Record

CHART_FORMAT = 2  # bump when the drawing changes
_HASH_RE = re.compile(rb"<!-- memshelf-bot chart-input sha256:([0-9a-f]{64}) drawing sha256:([0-9a-f]{64}) -->\n")


def _day(text: str) -> date | None:
    if len(text) != 10:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def chart_data(records: list[Record], index_tokens: int, window: int) -> ChartData:
    """Cumulative claimed economy after each shelve day (docs/format.md §10 rules: last row per id wins,
    unmeasured episodes add no mass, each episode's mass is capped at the window).

    A row without a calendar date counts from the next dated day, or the last one, so the
    final point is always the shelf's totals."""
    tally = ClaimedTally(window, {r.id for r in records if r.unmeasured})
    days: list[str] = []
    mass: list[int] = []
    standing: list[int] = []
    for rec in records:
        tally.add(LedgerRow(rec.id, rec.approx_tokens, rec.digest_tokens))
        if _day(rec.date) is None:
            continue
        if not days or days[-1] != rec.date:
            days.append(rec.date)
            mass.append(0)
            standing.append(0)
        mass[-1], standing[-1] = tally.shelved_mass, tally.standing_cost(index_tokens)
    if days:
        mass[-1], standing[-1] = tally.shelved_mass, tally.standing_cost(index_tokens)
    return ChartData(tuple(days), tuple(mass), tuple(standing), tally.compression_ratio(index_tokens),
                     window, len(tally.latest), tally.unmeasured_episodes)


@cache
def matplotlib_version() -> str:
    """matplotlib's version without importing it (its `_version.py`; the package metadata, which
    takes a scan of sys.path, only as a fallback)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.origin:
        try:
            with open(spec.origin.rsplit("/", 1)[0] + "/_version.py", encoding="utf-8") as fh:
                found = re.search(r"^(?:__version__ = )?version = ['\"]([^'\"]+)['\"]", fh.read(), re.MULTILINE)
            if found:
                return found.group(1)
        except OSError:
            pass
    from importlib.metadata import version

    return version("matplotlib")


def input_hash(data: ChartData) -> str:
    """sha256 of the drawn data, the chart format and the matplotlib that draws it."""
    payload = {"format": CHART_FORMAT, "matplotlib": matplotlib_version(), **asdict(data)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def previous_hash(svg: bytes | None) -> str | None:
    """The input hash a committed chart carries — only if the drawing is untouched since (its
    own hash still matches), so a hand-edited chart is redrawn and `render --check` sees drift."""
    match = _HASH_RE.search(svg or b"")
    if not match:
        return None
    drawing = svg[: match.start()] + svg[match.end():]
    return match.group(1).decode() if hashlib.sha256(drawing).hexdigest() == match.group(2).decode() else None


def to_draw(records: list[Record], index_text: str, context_window: int,
            previous: bytes | None) -> tuple[ChartData, str] | None:
    """The chart's data and its input hash; None when `previous` is already this input's chart,
    untouched (no matplotlib needed to tell)."""
    data = chart_data(records, tokens(index_text), context_window)
    digest = input_hash(data)
    return None if previous is not None and previous_hash(previous) == digest else (data, digest)


def labelled(svg: bytes, digest: str) -> bytes:
    """The drawn SVG with the comment that carries its input's hash and its own."""
    at = svg.index(b"<svg")
    drawing = hashlib.sha256(svg).hexdigest()
    return svg[:at] + f"<!-- memshelf-bot chart-input sha256:{digest} drawing sha256:{drawing} -->\n".encode() + svg[at:]



def chart_svg(records: list[Record], *, index_text: str, context_window: int, previous: bytes | None) -> bytes:
    """The stats chart for these ledger rows; `previous` itself when its input hash matches."""
    todo = to_draw(records, index_text, context_window, previous)
    if todo is None:
        return previous
    from ..chartdraw import draw

    return labelled(draw(todo[0]), todo[1])
