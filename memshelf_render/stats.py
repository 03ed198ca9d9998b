"""Token economy of a shelf (docs/format.md §10): what the episodes hold vs what every session pays.

Claimed economy comes from ledger rows (the last row per id wins), realized economy from
`recall-log.tsv`; tokens are characters // 4 everywhere. The same tally feeds `stats`, the
chart and the badge, so the three can never disagree about a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from . import __version__
from .economy import (
    Claimed,
    ClaimedTally,
    LedgerRow,
    Realized,
    banner,
    claimed_economy,
    human,
    int_or_none,
    ledger_rows,
    realized_economy,
)
from .records import collect
from .shelf import DEFAULT_CONTEXT_WINDOW, RECALL_LOG, Shelf
from .text import tokens

__all__ = ["Claimed", "ClaimedTally", "LedgerRow", "Realized", "ShelfStats", "banner", "chart_png", "claimed_economy",
           "context_window", "format_text", "human", "ledger_rows", "realized_economy", "shelf_stats", "tokens"]

CONTEXT_WINDOW_ENV = "MEMSHELF_CONTEXT_WINDOW"


def context_window(
    flag: int | None, env: Mapping[str, str], configured: int = DEFAULT_CONTEXT_WINDOW
) -> tuple[int, str | None]:
    """The flag, else a positive `MEMSHELF_CONTEXT_WINDOW`, else the shelf's setting; with a
    note when the environment value was unusable and so ignored (the flag is checked by the CLI)."""
    if flag is not None:
        return flag, None
    raw = env.get(CONTEXT_WINDOW_ENV)
    if raw is None or not raw.strip():
        return configured, None
    value = int_or_none(raw)
    if value is None or value <= 0:
        return configured, f"ignoring {CONTEXT_WINDOW_ENV}={raw!r}: not a positive integer"
    return value, None


@dataclass(frozen=True, slots=True)
class ShelfStats:
    claimed: Claimed
    realized: Realized

    @property
    def banner(self) -> str:
        return banner(self.claimed, self.realized)

    def as_dict(self) -> dict[str, Any]:
        """The stable `stats --format json` object: tool, version, banner, then every Claimed
        field (context_window ... unmeasured_digest_tokens) and every Realized field, in order."""
        return {"tool": "memshelf-bot", "version": __version__, "banner": self.banner,
                **asdict(self.claimed), **asdict(self.realized)}


def shelf_stats(shelf: Shelf, window: int) -> ShelfStats:
    """Read ledger, recall log and INDEX; unmeasured ids come from the episodes themselves."""
    records, _ = collect(shelf.episodes)
    unmeasured = {r.id for r in records if r.unmeasured}
    tally = ClaimedTally(window, unmeasured)
    for row in ledger_rows(shelf.read_text(shelf.ledger_path) or ""):
        tally.add(row)
    claimed = tally.claimed(tokens(shelf.read_text(shelf.index_path) or ""))
    latest_mass = {eid: row.approx_tokens for eid, row in tally.latest.items()}
    realized = realized_economy(shelf.read_text(RECALL_LOG) or "", latest_mass, window)
    return ShelfStats(claimed, realized)


def format_text(stats: ShelfStats) -> str:
    c, r = stats.claimed, stats.realized
    lines = [
        stats.banner,
        f"standing cost     {c.standing_cost:,} tok (INDEX {c.index_tokens:,} + digests {c.digest_tokens:,})",
        f"shelved mass      {c.shelved_mass:,} tok (work volume {c.work_volume:,}; window {c.context_window:,},"
        f" {c.capped_episodes} episode(s) capped)",
        f"compression       {c.compression_ratio}:1 ({c.unmeasured_episodes} unmeasured episode(s),"
        f" their {c.unmeasured_digest_tokens:,} digest tok left out)",
        f"recalls           {r.recalls:,} ({r.episodes_recalled} episode(s), {r.fetched_tokens:,} tok fetched)",
        f"realized savings  {r.realized_savings:,} tok",
    ]
    return "\n".join(lines) + "\n"


def chart_png(shelf: Shelf, window: int) -> bytes:
    """The stats chart as PNG (for `stats --png`)."""
    from .raster import svg_to_png
    from .render.chart import chart_svg

    records, _ = collect(shelf.episodes)
    return svg_to_png(chart_svg(records, index_text=shelf.read_text(shelf.index_path) or "",
                                context_window=window, previous=None))
