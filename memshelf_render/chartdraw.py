"""stats.svg's drawing: a `ChartData` to SVG bytes with matplotlib, in whichever process draws.

Drawn with matplotlib's SVG renderer directly (paths, markers, glyph paths): the layout is a
handful of fixed boxes, and skipping Figure/Axes halves what a fresh process imports. The same
input gives the same bytes on any machine: matplotlib's defaults are restored inside an rc
context (a stray `matplotlibrc` changes nothing), every text is drawn as paths from the DejaVu
Sans file shipped in matplotlib's own data (never a system font lookup), the SVG hash salt is
fixed, no date is written, and log10 is taken here so the plot itself is linear arithmetic.

Outside the `render` package on purpose: the chart helper (`chartjob`) is forked before the
renderers are imported and needs only this module and matplotlib.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from datetime import date, timedelta

from .economy import human

WIDTH_PT, HEIGHT_PT = 600, 270  # 800 x 360 px: README width
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


_settled_process = False  # this process is the chart helper: its rc settings are ours for good


def warm_up() -> None:
    """In the chart helper process (forked for this alone): import matplotlib, settle the rc
    settings once and load the fonts, before the data arrives."""
    global _settled_process
    import gc

    # A one-shot process: importing matplotlib makes some hundred thousand objects and no garbage
    # worth a collection, and the collector's passes over them cost ~12 % of the import.
    gc.disable()
    import matplotlib
    from matplotlib.backends import backend_svg  # noqa: F401
    from matplotlib.font_manager import get_font

    matplotlib.rcdefaults()
    matplotlib.rcParams.update(_RC)
    _settled_process = True
    font = _fonts()
    for bold in (False, True):
        get_font(font(10, bold).get_file())



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


def draw(data: ChartData) -> bytes:
    """Draw with matplotlib's SVG renderer directly (paths, markers, text as glyph paths). No
    Figure or Axes: their import alone would double the time a fresh process needs here."""
    import matplotlib
    from matplotlib.backends.backend_svg import RendererSVG

    with matplotlib.rc_context():
        if not _settled_process:  # in anybody else's process: matplotlib's defaults, then ours
            matplotlib.rcdefaults()
            matplotlib.rcParams.update(_RC)
        out = io.StringIO()
        renderer = RendererSVG(WIDTH_PT, HEIGHT_PT, out, metadata={"Date": None, "Creator": "memshelf-bot"})
        canvas = _Canvas(renderer)
        canvas.rect(0, 0, WIDTH_PT, HEIGHT_PT, "#ffffff")  # readable on a dark README theme too
        if data.days:
            _plot(canvas, data)
        else:
            _plot_nothing(canvas, data)
        renderer.finalize()
    return out.getvalue().encode("utf-8")


class _Canvas:
    """A few drawing verbs on a RendererSVG, in points from the bottom-left corner."""

    def __init__(self, renderer) -> None:
        from matplotlib.path import Path
        from matplotlib.transforms import Affine2D, IdentityTransform

        self.r = renderer
        self.font = _fonts()
        self._path, self._affine, self._identity = Path, Affine2D, IdentityTransform()

    def _gc(self, color: str, width: float = 0.0):
        gc = self.r.new_gc()
        gc.set_foreground(color)
        gc.set_linewidth(width)
        gc.set_joinstyle("round")
        gc.set_capstyle("butt")
        return gc

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: str) -> None:
        from matplotlib.colors import to_rgb

        box = self._path.unit_rectangle()
        self.r.draw_path(self._gc(fill), box, self._affine().scale(x1 - x0, y1 - y0).translate(x0, y0),
                         to_rgb(fill))

    def line(self, points: list[tuple[float, float]], color: str, width: float) -> None:
        if len(points) > 1:
            self.r.draw_path(self._gc(color, width), self._path(points), self._identity)

    def dots(self, points: list[tuple[float, float]], color: str, radius: float) -> None:
        from matplotlib.colors import to_rgb

        if points:
            self.r.draw_markers(self._gc(color, 0.0), self._path.unit_circle(), self._affine().scale(radius),
                                self._path(points), self._identity, to_rgb(color))

    def width(self, text: str, size: float, bold: bool = False) -> float:
        return self.r.get_text_width_height_descent(text, self.font(size, bold), ismath=False)[0]

    def text(self, x: float, y: float, text: str, size: float, color: str, *, bold: bool = False,
             ha: str = "left", middle: bool = False, angle: float = 0.0) -> None:
        """`text` with its baseline at y (or its middle, with `middle`), aligned on x by `ha`."""
        prop = self.font(size, bold)
        w, h, d = self.r.get_text_width_height_descent(text, prop, ismath=False)
        shift = {"left": 0.0, "center": w / 2, "right": w}[ha]
        lift = (h - d) / 2 if middle else 0.0
        if angle:  # 90°: the baseline runs upward
            x, y = x + lift, y - shift
        else:
            x, y = x - shift, y - lift
        self.r.draw_text(self._gc(color), x, HEIGHT_PT - y, text, prop, angle, ismath=False)


# The plot area, in points from the bottom-left corner.
_LEFT, _BOTTOM = 0.085 * WIDTH_PT, 0.12 * HEIGHT_PT
_RIGHT, _TOP = _LEFT + 0.895 * WIDTH_PT, _BOTTOM + 0.56 * HEIGHT_PT


def _header(canvas: _Canvas, title: str, as_of: str, subtitle: str) -> None:
    canvas.text(0.02 * WIDTH_PT, 0.93 * HEIGHT_PT, title, 13, _INK, bold=True)
    if as_of:
        canvas.text(0.98 * WIDTH_PT, 0.93 * HEIGHT_PT, as_of, 10, _MUTED, ha="right")
    canvas.text(0.02 * WIDTH_PT, 0.855 * HEIGHT_PT, subtitle, 9, _MUTED)


def _steps(xs: list[float], ys: list[float]) -> list[list[tuple[float, float]]]:
    """A steps-post line through the points, broken where a value is missing (NaN)."""
    runs: list[list[tuple[float, float]]] = []
    run: list[tuple[float, float]] = []
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if math.isnan(y):
            if run:
                runs.append(run)
            run = []
            continue
        run.append((x, y))
        if i + 1 < len(xs):
            run.append((xs[i + 1], y))
    if run:
        runs.append(run)
    return runs


def _plot(canvas: _Canvas, data: ChartData) -> None:
    first, last = date.fromisoformat(data.days[0]), date.fromisoformat(data.days[-1])
    ordinals = [date.fromisoformat(d).toordinal() for d in data.days]
    mass = [_log(v) for v in data.mass]
    standing = [_log(v) for v in data.standing]
    drawn = [y for y in (*mass, *standing) if not math.isnan(y)] or [0.0]
    lo = math.floor(min(drawn))
    step = max(1, math.ceil((math.ceil(max(drawn)) - lo) / _MAX_TICKS))
    hi = lo + step * max(1, math.ceil((max(drawn) - lo) / step))
    pad = max(1, (last - first).days * 0.03)
    x0, x1 = first.toordinal() - pad, last.toordinal() + pad

    def px(ordinal: float) -> float:
        return _LEFT + (ordinal - x0) / (x1 - x0) * (_RIGHT - _LEFT)

    def py(value: float) -> float:
        return _BOTTOM + (value - lo) / (hi - lo) * (_TOP - _BOTTOM)

    decades = range(lo, hi + 1, step)
    for k in decades:
        canvas.line([(_LEFT, py(k)), (_RIGHT, py(k))], _GRID, 0.8)
    canvas.line([(_LEFT, _BOTTOM), (_RIGHT, _BOTTOM)], _GRID, 0.8)
    ticks, form = _date_ticks(first, last)
    for d in ticks:
        canvas.text(px(d.toordinal()), _BOTTOM - 4 - 9 * 0.8, _tick_label(d, form), 9, _MUTED, ha="center")
    for k in decades:
        canvas.text(_LEFT - 4, py(k), _decade_label(k), 9, _MUTED, ha="right", middle=True)
    canvas.text(0.012 * WIDTH_PT, (_BOTTOM + _TOP) / 2, "tokens (log scale)", 9, _MUTED, ha="center",
                middle=True, angle=90)

    xs = [px(o) for o in ordinals]
    for values, color in ((mass, _MASS_COLOR), (standing, _STANDING_COLOR)):
        ys = [math.nan if math.isnan(v) else py(v) for v in values]
        for run in _steps(xs, ys):
            canvas.line(run, color, 2)
        if len(xs) <= 40:
            canvas.dots([(x, y) for x, y in zip(xs, ys, strict=True) if not math.isnan(y)], color, 1.75)

    unmeasured = f", {data.unmeasured} unmeasured (no mass)" if data.unmeasured else ""
    _header(canvas, f"Token economy — compression {data.ratio}:1", f"as of {data.days[-1]}",
            f"{data.episodes} episode{'s' if data.episodes != 1 else ''}{unmeasured}"
            f" · mass capped at {human(data.window)} tokens per episode · chars/4 estimate")
    legend = [(_MASS_COLOR, f"shelved mass: {human(data.mass[-1])} tokens of past work the episodes hold"),
              (_STANDING_COLOR, f"standing cost: {human(data.standing[-1])} tokens (INDEX + digests) per session")]
    for row, (color, label) in enumerate(legend):
        y = 0.83 * HEIGHT_PT - 9 * 0.6 - row * 9 * 1.3
        x = 0.075 * WIDTH_PT
        canvas.line([(x, y), (x + 14.4, y)], color, 2)
        canvas.text(x + 14.4 + 7.2, y, label, 9, _INK, middle=True)


def _plot_nothing(canvas: _Canvas, data: ChartData) -> None:
    what = "No dated episodes yet" if data.episodes else "No episodes on the shelf yet"
    _header(canvas, "Token economy", "", "shelved mass vs standing cost, cumulative · chars/4 estimate")
    canvas.text(0.5 * WIDTH_PT, 0.45 * HEIGHT_PT, what, 14, _MUTED, ha="center", middle=True)
    canvas.text(0.5 * WIDTH_PT, 0.33 * HEIGHT_PT, "the chart fills in as episodes are shelved", 9, _MUTED,
                ha="center", middle=True)
