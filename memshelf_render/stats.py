"""Token economy of a shelf (docs/format.md §10): what the episodes hold vs what every session pays.

Claimed economy comes from ledger rows (the last row per id wins), realized economy from
`recall-log.tsv`; tokens are characters // 4 everywhere. The same tally feeds `stats`, the
chart and the badge, so the three can never disagree about a number.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from . import __version__
from .records import collect
from .shelf import DEFAULT_CONTEXT_WINDOW, Shelf, load_for_command

RECALL_LOG = "recall-log.tsv"
CONTEXT_WINDOW_ENV = "MEMSHELF_CONTEXT_WINDOW"


def tokens(text: str) -> int:
    """The shelf's one estimator: characters // 4."""
    return len(text) // 4


def human(n: int) -> str:
    """h(n): 1.5M (two decimals, trailing zeros trimmed), 27K (rounded thousands), else the integer."""
    if abs(n) >= 1_000_000:
        return f"{n / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    if abs(n) >= 1000:
        return f"{round(n / 1000)}K"
    return str(n)


def _int(cell: str) -> int | None:
    try:
        return int(cell)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class LedgerRow:
    episode_id: str
    approx_tokens: int
    digest_tokens: int


def ledger_rows(text: str) -> list[LedgerRow]:
    """Usable ledger rows: after the header line, >= 5 cells, integer columns 4 and 5."""
    rows = []
    for line in text.split("\n")[1:]:
        cells = line.split("\t")
        if len(cells) < 5:
            continue
        approx, digest = _int(cells[3]), _int(cells[4])
        if approx is not None and digest is not None:
            rows.append(LedgerRow(cells[1], approx, digest))
    return rows


@dataclass(frozen=True, slots=True)
class Claimed:
    context_window: int
    episodes: int
    index_tokens: int
    digest_tokens: int
    standing_cost: int
    shelved_mass: int
    work_volume: int
    capped_episodes: int
    compression_ratio: float
    unmeasured_episodes: int
    unmeasured_digest_tokens: int


class ClaimedTally:
    """Claimed economy built row by row, so the chart can read it after every day.

    A later row for an id replaces the earlier one's contribution (last row wins). Unmeasured
    ids add digest tokens to the standing cost but nothing to the mass, and are left out of
    the compression denominator's digest part; each measured id's mass is capped at the window.
    """

    def __init__(self, window: int, unmeasured_ids: Iterable[str]) -> None:
        self.window = window
        self.unmeasured_ids = frozenset(unmeasured_ids)
        self.latest: dict[str, LedgerRow] = {}
        self.digest_tokens = 0
        self.unmeasured_digest_tokens = 0
        self.unmeasured_episodes = 0
        self.work_volume = 0
        self.shelved_mass = 0
        self.capped_episodes = 0

    def add(self, row: LedgerRow) -> None:
        old = self.latest.get(row.episode_id)
        if old is not None:
            self._count(old, -1)
        elif row.episode_id in self.unmeasured_ids:
            self.unmeasured_episodes += 1
        self.latest[row.episode_id] = row
        self._count(row, 1)

    def _count(self, row: LedgerRow, sign: int) -> None:
        self.digest_tokens += sign * row.digest_tokens
        if row.episode_id in self.unmeasured_ids:
            self.unmeasured_digest_tokens += sign * row.digest_tokens
            return
        self.work_volume += sign * row.approx_tokens
        self.shelved_mass += sign * min(row.approx_tokens, self.window)
        self.capped_episodes += sign * (row.approx_tokens > self.window)

    def standing_cost(self, index_tokens: int) -> int:
        return index_tokens + self.digest_tokens

    def compression_ratio(self, index_tokens: int) -> float:
        denominator = self.standing_cost(index_tokens) - self.unmeasured_digest_tokens
        return round(self.shelved_mass / denominator, 1) if denominator else 0.0

    def claimed(self, index_tokens: int) -> Claimed:
        return Claimed(
            context_window=self.window,
            episodes=len(self.latest),
            index_tokens=index_tokens,
            digest_tokens=self.digest_tokens,
            standing_cost=self.standing_cost(index_tokens),
            shelved_mass=self.shelved_mass,
            work_volume=self.work_volume,
            capped_episodes=self.capped_episodes,
            compression_ratio=self.compression_ratio(index_tokens),
            unmeasured_episodes=self.unmeasured_episodes,
            unmeasured_digest_tokens=self.unmeasured_digest_tokens,
        )


def claimed_economy(
    rows: Iterable[LedgerRow], unmeasured_ids: Iterable[str], index_tokens: int, window: int
) -> Claimed:
    tally = ClaimedTally(window, unmeasured_ids)
    for row in rows:
        tally.add(row)
    return tally.claimed(index_tokens)


@dataclass(frozen=True, slots=True)
class Realized:
    recalls: int
    episodes_recalled: int
    fetched_tokens: int
    realized_savings: int


def realized_economy(recall_text: str, latest_mass: Mapping[str, int], window: int) -> Realized:
    """Every non-blank row after the header is a recall; rows with an integer third cell also
    count their fetched tokens and save (the episode's capped mass − fetched), never below 0."""
    recalls = fetched = savings = 0
    recalled: set[str] = set()
    for line in recall_text.split("\n")[1:]:
        if not line.strip():
            continue
        recalls += 1
        cells = line.split("\t")
        got = _int(cells[2]) if len(cells) >= 3 else None
        if got is None:
            continue
        fetched += got
        recalled.add(cells[0])
        savings += max(min(latest_mass.get(cells[0], 0), window) - got, 0)
    return Realized(recalls, len(recalled), fetched, savings)


def banner(claimed: Claimed, realized: Realized) -> str:
    text = (f"memshelf: {claimed.episodes} episodes · standing {human(claimed.standing_cost)} tok"
            f" · holds ~{human(claimed.shelved_mass)} est. ({claimed.compression_ratio}:1)")
    if claimed.unmeasured_episodes:
        text += f" · {claimed.unmeasured_episodes} unmeasured"
    if claimed.capped_episodes:
        text += (f" · {claimed.capped_episodes} episode(s) clipped to a {human(claimed.context_window)}"
                 f" window, work volume ~{human(claimed.work_volume)}")
    if realized.realized_savings:
        text += f" · realized saved {human(realized.realized_savings)}"
    return text


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
    value = _int(raw)
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


def _write_png(shelf: Shelf, window: int, out: str) -> None:
    from .raster import svg_to_png
    from .render.chart import chart_svg

    records, _ = collect(shelf.episodes)
    svg = chart_svg(records, index_text=shelf.read_text(shelf.index_path) or "",
                    context_window=window, previous=None)
    with open(out, "wb") as fh:
        fh.write(svg_to_png(svg))


def cli_main(args: Any) -> int:
    shelf = load_for_command(args.path)
    if shelf is None:
        return 2
    if args.context_window is not None and args.context_window <= 0:
        print(f"memshelf-bot stats: --context-window must be positive, got {args.context_window}", file=sys.stderr)
        return 2
    window, note = context_window(args.context_window, os.environ, shelf.settings.context_window)
    if note:
        print(f"memshelf-bot stats: {note}", file=sys.stderr)
    stats = shelf_stats(shelf, window)
    if args.png:
        try:
            _write_png(shelf, window, args.png)
        except OSError as exc:
            print(f"memshelf-bot stats: cannot write {args.png}: {exc.strerror}", file=sys.stderr)
            return 1
    if args.format == "json":
        sys.stdout.write(json.dumps(stats.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_text(stats))
    return 0
