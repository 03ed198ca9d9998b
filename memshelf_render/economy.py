"""The token economy's arithmetic (docs/format.md §10): ledger rows in, claimed and realized economy out.

Pure functions of text and numbers; `stats` reads a shelf into them, and the chart and the badge
draw from the same tally, so the three can never disagree about a number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .text import tokens

__all__ = [
    "Claimed",
    "ClaimedTally",
    "LedgerRow",
    "Realized",
    "banner",
    "claimed_economy",
    "human",
    "int_or_none",
    "ledger_rows",
    "realized_economy",
    "tokens",
]


def human(n: int) -> str:
    """h(n): 1.5M (two decimals, trailing zeros trimmed), 27K (rounded thousands), else the integer."""
    if abs(n) >= 1_000_000:
        return f"{n / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    if abs(n) >= 1000:
        return f"{round(n / 1000)}K"
    return str(n)


def int_or_none(cell: str) -> int | None:
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
        approx, digest = int_or_none(cells[3]), int_or_none(cells[4])
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
        got = int_or_none(cells[2]) if len(cells) >= 3 else None
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
