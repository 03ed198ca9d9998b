"""stats.svg: cumulative shelved mass vs standing cost over time, drawn by matplotlib.

The same input gives the same bytes on any machine: matplotlib's defaults are restored inside an
rc context (a stray `matplotlibrc` changes nothing), every text is drawn as paths from the DejaVu
Sans file shipped in matplotlib's own data (never a system font lookup), the SVG hash salt is
fixed, no date is written, and log10 is taken here so the plot itself is linear arithmetic.

The SVG carries a hash of the chart's input. When the committed chart already carries the same
hash it is returned as it is and matplotlib is never imported, so a render that changes no
numbers costs nothing here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import math
import re
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from functools import cache
from importlib.metadata import version

from ..records import Record
from ..stats import ClaimedTally, LedgerRow, human, tokens

CHART_FORMAT = 1  # bump when the drawing changes
WIDTH_PT, HEIGHT_PT = 600, 270  # 800 x 360 px: README width
_HASH_RE = re.compile(rb"<!-- memshelf-bot chart-input sha256:([0-9a-f]{64}) drawing sha256:([0-9a-f]{64}) -->\n")
_MASS_COLOR, _STANDING_COLOR = "#2a6fdb", "#d9480f"
_INK, _MUTED, _GRID = "#24292f", "#57606a", "#d8dee4"
_MAX_TICKS = 7
_DAY_STEPS = (1, 2, 7, 14)
_MONTH_STEPS = (1, 2, 3, 6, 12, 24, 60, 120)
_RC = {  # on top of matplotlib's own defaults, restored first
    "svg.hashsalt": "memshelf-bot",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "text.parse_math": False,
    "figure.facecolor": "white",  # readable on a dark README theme too
}


@dataclass(frozen=True, slots=True)
class ChartData:
    """Exactly what is drawn; its hash decides whether the chart must be redrawn."""

    days: tuple[str, ...]
    mass: tuple[int, ...]
    standing: tuple[int, ...]
    ratio: float
    window: int
    episodes: int
    unmeasured: int


def _day(text: str) -> date | None:
    if len(text) != 10:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def chart_data(records: list[Record], index_tokens: int, window: int) -> ChartData:
    """Cumulative claimed economy after each shelve day (SPEC §10 rules: last row per id wins,
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


def is_current(records: list[Record], index_text: str, context_window: int, previous: bytes) -> bool:
    """Whether `previous` is this input's chart, untouched (no matplotlib needed to tell)."""
    return previous_hash(previous) == input_hash(chart_data(records, tokens(index_text), context_window))


_settled_process = False  # this process is the chart helper: its rc settings are ours for good


def warm_up() -> None:
    """In the chart helper process (forked for this alone): import matplotlib, settle the rc
    settings once and load the fonts, before the data arrives."""
    global _settled_process
    import matplotlib
    from matplotlib.backends import backend_svg  # noqa: F401
    from matplotlib.figure import Figure  # noqa: F401
    from matplotlib.font_manager import get_font

    matplotlib.rcdefaults()
    matplotlib.rcParams.update(_RC)
    _settled_process = True
    font = _fonts()
    for bold in (False, True):
        get_font(font(10, bold).get_file())


def chart_svg(records: list[Record], *, index_text: str, context_window: int, previous: bytes | None) -> bytes:
    """The stats chart for these ledger rows; `previous` itself when its input hash matches."""
    data = chart_data(records, tokens(index_text), context_window)
    digest = input_hash(data)
    if previous is not None and previous_hash(previous) == digest:
        return previous
    svg = _draw(data)
    at = svg.index(b"<svg")
    drawing = hashlib.sha256(svg).hexdigest()
    return svg[:at] + f"<!-- memshelf-bot chart-input sha256:{digest} drawing sha256:{drawing} -->\n".encode() + svg[at:]


# --- drawing (matplotlib is imported only below this line, inside functions) -----------------


def _date_ticks(first: date, last: date) -> tuple[list[date], str]:
    """At most _MAX_TICKS calendar-aligned ticks and their label form (day, month or year)."""
    span = (last - first).days
    for step in _DAY_STEPS:
        if span // step + 1 <= _MAX_TICKS:
            return [first + timedelta(days=k * step) for k in range(span // step + 1)], "day"
    start = first.year * 12 + first.month - 1 + (first.day > 1)
    end = last.year * 12 + last.month - 1
    month_starts = [date(i // 12, i % 12 + 1, 1) for i in range(start, end + 1)]
    for step in _MONTH_STEPS:
        ticks = [d for d in month_starts if (d.year * 12 + d.month - 1) % step == 0]
        if len(ticks) <= _MAX_TICKS:
            return ticks, "year" if step >= 12 else "month"
    return [first, last], "day"


def _tick_label(d: date, form: str) -> str:
    return {"day": d.isoformat(), "month": d.isoformat()[:7], "year": str(d.year)}[form]


def _log(value: int) -> float:
    """log10 taken here (Python's, not numpy's) and rounded, so no platform's last bit shows;
    nothing (a gap in the line) for a total that is still 0 or below."""
    return round(math.log10(value), 9) if value > 0 else math.nan


def _decade_label(k: int) -> str:
    units = ("", "K", "M", "B", "T")
    return f"{10 ** (k % 3)}{units[k // 3]}" if k < 3 * len(units) else f"1e{k}"


def _fonts():
    import matplotlib
    from matplotlib.font_manager import FontProperties

    ttf = f"{matplotlib.get_data_path()}/fonts/ttf"

    def font(size: float, bold: bool = False) -> FontProperties:
        name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
        return FontProperties(fname=f"{ttf}/{name}", size=size)

    return font


def _draw(data: ChartData) -> bytes:
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context():
        if not _settled_process:  # in anybody else's process: matplotlib's defaults, then ours
            matplotlib.rcdefaults()
            matplotlib.rcParams.update(_RC)
        font = _fonts()
        fig = Figure(figsize=(WIDTH_PT / 72, HEIGHT_PT / 72), dpi=72)
        if data.days:
            _plot(fig, data, font)
        else:
            _plot_nothing(fig, data, font)
        out = io.BytesIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": "memshelf-bot"})
    return out.getvalue()


def _header(fig, title: str, as_of: str, subtitle: str, font) -> None:
    fig.text(0.02, 0.93, title, fontproperties=font(13, bold=True), color=_INK)
    if as_of:
        fig.text(0.98, 0.93, as_of, fontproperties=font(10), color=_MUTED, ha="right")
    fig.text(0.02, 0.855, subtitle, fontproperties=font(9), color=_MUTED)


def _plot(fig, data: ChartData, font) -> None:
    first, last = date.fromisoformat(data.days[0]), date.fromisoformat(data.days[-1])
    unmeasured = f", {data.unmeasured} unmeasured (no mass)" if data.unmeasured else ""
    _header(fig, f"Token economy — compression {data.ratio}:1", f"as of {data.days[-1]}",
            f"{data.episodes} episode{'s' if data.episodes != 1 else ''}{unmeasured}"
            f" · mass capped at {human(data.window)} tokens per episode · chars/4 estimate", font)
    ax = fig.add_axes((0.085, 0.12, 0.895, 0.56))
    xs = [date.fromisoformat(d).toordinal() for d in data.days]
    mass = [_log(v) for v in data.mass]
    standing = [_log(v) for v in data.standing]
    marker = "o" if len(xs) <= 40 else None
    ax.plot(xs, mass, drawstyle="steps-post", color=_MASS_COLOR, linewidth=2, marker=marker, markersize=3.5,
            label=f"shelved mass: {human(data.mass[-1])} tokens of past work the episodes hold")
    ax.plot(xs, standing, drawstyle="steps-post", color=_STANDING_COLOR, linewidth=2, marker=marker,
            markersize=3.5, label=f"standing cost: {human(data.standing[-1])} tokens (INDEX + digests) per session")
    fig.legend(loc="upper left", bbox_to_anchor=(0.075, 0.83), ncols=1, frameon=False, prop=font(9),
               handlelength=1.6, borderaxespad=0, labelspacing=0.3)

    drawn = [y for y in (*mass, *standing) if not math.isnan(y)] or [0.0]
    lo = math.floor(min(drawn))
    step = max(1, math.ceil((math.ceil(max(drawn)) - lo) / _MAX_TICKS))
    hi = lo + step * max(1, math.ceil((max(drawn) - lo) / step))
    ax.set_ylim(lo, hi)
    ax.set_yticks(range(lo, hi + 1, step), [_decade_label(k) for k in range(lo, hi + 1, step)],
                  fontproperties=font(9), color=_MUTED)
    ax.set_ylabel("tokens (log scale)", fontproperties=font(9), color=_MUTED)

    pad = max(1, (last - first).days * 0.03)
    ax.set_xlim(first.toordinal() - pad, last.toordinal() + pad)
    ticks, form = _date_ticks(first, last)
    ax.set_xticks([d.toordinal() for d in ticks], [_tick_label(d, form) for d in ticks],
                  fontproperties=font(9), color=_MUTED)

    ax.grid(axis="y", color=_GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    ax.tick_params(length=0, pad=4)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(_GRID)


def _plot_nothing(fig, data: ChartData, font) -> None:
    what = "No dated episodes yet" if data.episodes else "No episodes on the shelf yet"
    _header(fig, "Token economy", "", "shelved mass vs standing cost, cumulative · chars/4 estimate", font)
    fig.text(0.5, 0.45, what, fontproperties=font(14), color=_MUTED, ha="center", va="center")
    fig.text(0.5, 0.33, "the chart fills in as episodes are shelved", fontproperties=font(9),
             color=_MUTED, ha="center", va="center")
