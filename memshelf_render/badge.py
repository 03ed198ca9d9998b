"""The shelf's README badge: episodes, standing tokens and health, as SVG and as shields.io JSON.

Drawn by hand (no matplotlib): a flat two-part badge whose widths come from DejaVu Sans advance
widths (a table taken from the font file matplotlib ships), with `textLength` pinning each text
to that width so any fallback font fits the same box. Health is the validator's verdict on the
episodes and the shelf: red on an error, yellow on a warning, green otherwise. Findings about
derived files are left out — render draws the badge while it rewrites those very files.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from .findings import Finding, Severity
from .records import Record
from .shelf import DEFAULT_CONTEXT_WINDOW, Shelf
from .stats import LedgerRow, claimed_economy, human, tokens

LABEL = "memory shelf"
FONT_SIZE = 11
HEIGHT = 20
PADDING = 6
LABEL_FILL = "#555"
# health -> (shields.io colour name for badge.json, hex fill for badge.svg)
COLORS = {"ok": ("brightgreen", "#4c1"), "warning": ("yellow", "#dfb317"), "error": ("red", "#e05d44")}
_ADVANCES = Path(__file__).with_name("fonts") / "dejavu-sans-advances.json"
_IGNORED_SCOPES = frozenset({"derived", "guard"})


@cache
def _advances() -> tuple[dict[str, int], int, int]:
    table = json.loads(_ADVANCES.read_text(encoding="utf-8"))
    advances = table["advances"]
    return advances, advances["M"], table["units_per_em"]


def text_width(text: str) -> float:
    """Width in px at FONT_SIZE; a character outside the table counts as wide as 'M'."""
    advances, wide, per_em = _advances()
    return sum(advances.get(ch, wide) for ch in text) * FONT_SIZE / per_em


def health(findings: list[Finding]) -> str:
    severities = {f.severity for f in findings if f.rule.scope not in _IGNORED_SCOPES}
    if Severity.ERROR in severities:
        return "error"
    return "warning" if Severity.WARNING in severities else "ok"


def message(records: list[Record], index_text: str) -> str:
    rows = [LedgerRow(r.id, r.approx_tokens, r.digest_tokens) for r in records]
    claimed = claimed_economy(rows, (), tokens(index_text), DEFAULT_CONTEXT_WINDOW)  # no mass shown
    plural = "" if claimed.episodes == 1 else "s"
    return f"{claimed.episodes} episode{plural} · {human(claimed.standing_cost)} tok"


def _num(value: float) -> str:
    """One decimal, no trailing '.0': stable text for any float."""
    return f"{value:.1f}".removesuffix(".0")


def badge_svg(label: str, text: str, fill: str) -> bytes:
    label_w, text_w = text_width(label), text_width(text)
    left = round(label_w) + 2 * PADDING
    right = round(text_w) + 2 * PADDING
    total = left + right
    title = escape(f"{label}: {text}")
    aria = escape(f"{label}: {text}", {'"': "&quot;"})
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{HEIGHT}" '
        f'viewBox="0 0 {total} {HEIGHT}" role="img" aria-label="{aria}">',
        f"<title>{title}</title>",
        '<linearGradient id="shine" x2="0" y2="100%">'
        '<stop offset="0" stop-color="#fff" stop-opacity=".12"/>'
        '<stop offset="1" stop-opacity=".12"/></linearGradient>',
        f'<clipPath id="round"><rect width="{total}" height="{HEIGHT}" rx="3"/></clipPath>',
        '<g clip-path="url(#round)">',
        f'<rect width="{left}" height="{HEIGHT}" fill="{LABEL_FILL}"/>',
        f'<rect x="{left}" width="{right}" height="{HEIGHT}" fill="{fill}"/>',
        f'<rect width="{total}" height="{HEIGHT}" fill="url(#shine)"/>',
        "</g>",
        f'<g fill="#fff" text-anchor="middle" font-family="DejaVu Sans,Verdana,Geneva,sans-serif" '
        f'font-size="{FONT_SIZE}">',
    ]
    for x, width, content in ((left / 2, label_w, label), (left + right / 2, text_w, text)):
        body = escape(content)
        length = _num(width)
        parts.append(f'<text x="{_num(x)}" y="15" fill="#010101" fill-opacity=".3" '
                     f'textLength="{length}">{body}</text>')
        parts.append(f'<text x="{_num(x)}" y="14" textLength="{length}">{body}</text>')
    parts += ["</g>", "</svg>"]
    return ("\n".join(parts) + "\n").encode("utf-8")


def badge_json(label: str, text: str, color: str) -> bytes:
    """The shields.io endpoint schema, keys in a fixed order."""
    doc = {"schemaVersion": 1, "label": label, "message": text, "color": color}
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def badge_files(shelf: Shelf, records: list[Record], index_text: str) -> dict[str, bytes]:
    from .validate import validate_shelf

    name, fill = COLORS[health(validate_shelf(shelf))]
    text = message(records, index_text)
    return {"badge.svg": badge_svg(LABEL, text, fill), "badge.json": badge_json(LABEL, text, name)}
