"""What a change to a shelf is checked for, whatever event or front door brought it: the guard
(docs/format.md §8) over the changed paths, then the rules over the changed episodes (`--changed`
semantics), and per episode what the change costs every future session (its standing-cost
delta). Pure logic: the bot's flows feed it paths and texts, and report what it returns.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from enum import StrEnum

from .derived import META_NAME
from .findings import Finding
from .guard import Change, GuardResult, classify
from .records import Record, Row, collect
from .redact import mask
from .render import plan
from .render.cells import CellGuard
from .render.ledger import HEADER, ledger_row
from .render.meta import meta_entries, meta_piece
from .rules.context import Context
from .rules.structure import policy_checks
from .shelf import STANDARD_CATEGORIES, EpisodeRef, Shelf
from .stats import claimed_economy, ledger_rows, tokens
from .validate import Report, validate_shelf

POLICY_CODES = ("policy-missing", "policy-pattern-invalid")


class Verdict(StrEnum):
    VALID = "valid"
    VIOLATIONS = "violations"
    CONFIG_ERROR = "config-error"

    @property
    def exit_code(self) -> int:
        return {"valid": 0, "violations": 1, "config-error": 2}[self.value]


class ChangeStatus(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"


# GitHub's file statuses -> the guard's
FILE_STATUS = {"added": "added", "removed": "removed", "modified": "modified", "renamed": "renamed",
               "copied": "added", "changed": "modified", "unchanged": "modified"}


@dataclass(frozen=True, slots=True)
class EpisodeRow:
    path: str  # shelf-relative
    status: ChangeStatus
    errors: int
    warnings: int
    digest_words: int | None
    standing_delta: int | None

    @property
    def verdict(self) -> Verdict:
        return Verdict.VIOLATIONS if self.errors else Verdict.VALID


@dataclass
class Standing:
    """Standing cost (INDEX tokens + digest tokens) before and after the change."""

    base: int
    head: int

    @property
    def delta(self) -> int:
        return self.head - self.base


@dataclass
class Outcome:
    """Everything the feedback needs: the report, the guard, per-episode rows, flow notes."""

    report: Report
    guard: GuardResult | None = None
    rows: list[EpisodeRow] = field(default_factory=list)
    standing: Standing | None = None
    notes: list[str] = field(default_factory=list)  # flow-level problems, each also an error
    checked: int = 0

    @property
    def verdict(self) -> Verdict:
        verdict = Verdict(self.report.verdict)
        return Verdict.VIOLATIONS if verdict is Verdict.VALID and self.notes else verdict

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code

    @property
    def counts(self) -> dict[str, int]:
        counts = dict(self.report.counts)
        counts["error"] += len(self.notes)
        return counts


def shelf_relative(repo_path: str, prefix: str) -> str:
    """A repository path relative to the shelf at `prefix` ('' = the root); outside it, '../…'."""
    if not prefix:
        return repo_path
    if repo_path.startswith(prefix + "/"):
        return repo_path[len(prefix) + 1:]
    return posixpath.relpath(repo_path, prefix)


def repo_path(shelf_rel: str, prefix: str) -> str:
    """A shelf-relative path (maybe '../…') as a repository path, for annotations and the API."""
    return posixpath.normpath(f"{prefix}/{shelf_rel}") if prefix else shelf_rel


def changes_from_files(files: list[tuple[str, str, str | None]], prefix: str, modes: dict[str, str]) -> list[Change]:
    """(GitHub status, repo path, previous repo path) triples as the guard's changes; `modes`
    maps repo paths to their git mode on the head side."""
    out = []
    for status, path, previous in files:
        kind = FILE_STATUS.get(status, "modified")
        old = shelf_relative(previous, prefix) if previous and kind == "renamed" else None
        mode = None if kind == "removed" else modes.get(path)
        out.append(Change(kind, shelf_relative(path, prefix), old_path=old, mode=mode))
    return out


def check(shelf: Shelf, changes: list[Change], *, base_ids: set[str], strict: bool,
          head: Shelf | None = None) -> Outcome:
    """The guard over `changes`, then every rule over the added and modified episodes. With
    `head`, `shelf` is that shelf governed by another policy (the base branch's): the rules and
    the masking use it, while the policy files' own checks are `head`'s, so a change to them is
    validated without applying to the change that makes it."""
    guard = classify(shelf, changes, base_ids=base_ids, allow=shelf.settings.allow_paths, head=head)
    changed = guard.changed_episodes
    findings = list(guard.findings)
    findings += validate_shelf(shelf, changed=[str(shelf.root / p) for p in changed])
    if head is not None:
        findings = [f for f in findings if f.code not in POLICY_CODES]
        findings += [Finding(f.code, f.path, f.line, mask(f.message, Context(shelf).policy))
                     for f in policy_checks(Context(head))]
    findings.sort(key=Finding.sort_key)
    report = Report(shelf.root, findings=findings, strict=strict, episodes=len(changed))
    return Outcome(report=report, guard=guard, checked=len(changed))


def _index_share(index_text: str, filename: str) -> int:
    """Tokens of the INDEX lines that name `filename` (the episode's entry)."""
    return tokens("".join(line + "\n" for line in index_text.split("\n") if filename in line))


def add_rows(outcome: Outcome, shelf: Shelf, base_index: str, base_ledger: str,
             rows: tuple[list[Record], list[tuple[str, str]]] | None = None) -> None:
    """Per changed episode: verdict, counts, digest words and standing-cost delta, measured
    against the base branch's rendered INDEX and ledger; the shelf's total delta too. `rows`:
    the head's rows as `collect` gives them, gathered by the caller (e.g. without reading the
    episodes a pull request leaves alone); else every episode is parsed."""
    guard = outcome.guard
    if guard is None:
        return
    refs = {ref.path: ref for ref in shelf.layout.episodes}
    episodes = {path: shelf.parse_episode(refs[path]) for path in guard.changed_episodes if path in refs}
    records, _ = collect(shelf.episodes) if rows is None else rows
    files, _ = plan(shelf, records, badge=False, draw_chart=False)
    index_bytes = files.get(posixpath.normpath(shelf.index_path))
    head_index = index_bytes.decode("utf-8") if index_bytes else shelf.read_text(shelf.index_path) or ""
    head_ledger = (files.get(posixpath.normpath(shelf.ledger_path)) or b"").decode("utf-8")
    window = shelf.settings.context_window
    base_digest = {row.episode_id: row.digest_tokens for row in ledger_rows(base_ledger)}
    by_path = {rec.path: rec for rec in records}
    outcome.standing = Standing(
        claimed_economy(ledger_rows(base_ledger), (), tokens(base_index), window).standing_cost,
        claimed_economy(ledger_rows(head_ledger), (), tokens(head_index), window).standing_cost,
    )
    for path in guard.changed_episodes:
        ep = episodes.get(path)
        mine = [f for f in outcome.report.findings if f.path == path]
        errors = sum(f.severity.value == "error" for f in mine)
        warnings = sum(f.severity.value == "warning" for f in mine)
        digest = ep.digest if ep is not None else None
        filename = posixpath.basename(path)
        rec = by_path.get(path)
        delta = None
        if rec is not None:
            delta = (rec.digest_tokens - base_digest.get(rec.id, 0)
                     + _index_share(head_index, filename) - _index_share(base_index, filename))
        outcome.rows.append(EpisodeRow(path, ChangeStatus.ADDED if path in guard.added else ChangeStatus.MODIFIED, errors, warnings,
                                       len(digest.split()) if digest else (0 if ep is not None else None), delta))


def rows_from_derived(shelf: Shelf, refs: list[EpisodeRef], ledger_text: str,
                      metas: dict[str, str | None]) -> dict[str, Row]:
    """The rows of episodes whose bytes are not at hand, taken from derived files rendered from
    those very bytes (a base branch's ledger and `.meta.json`, for episodes whose blob is the
    same there; `metas`: shelf-relative `.meta.json` path -> its text, None when absent). Each
    row is rebuilt from the ledger line whose id is the episode's file stem and from its
    `.meta.json` entry, and kept only when it renders both back exactly; an episode whose row
    does not check out (no line, several, a line or an entry that does not round-trip, another
    category) is left out, for the caller to parse."""
    lines: dict[str, list[list[str]]] = {}
    for line in ledger_text.split("\n")[1:]:
        cells = line.split("\t")
        if len(cells) == len(HEADER):
            lines.setdefault(cells[1], []).append(cells)
    entries = {path: _meta_of(text) for path, text in metas.items()}
    guard = CellGuard.for_shelf(shelf)
    found: dict[str, Row] = {}
    for ref in refs:
        filename = ref.path.rsplit("/", 1)[-1]
        same_id = lines.get(filename[:-3], [])
        root = shelf.archive_docs_root if ref.archived else shelf.docs_root
        meta = entries.get(f"{root}/{ref.category}/{META_NAME}")
        if ref.category not in STANDARD_CATEGORIES or len(same_id) != 1 or meta is None:
            continue
        rec = _rebuilt(ref, filename, same_id[0], meta.get(filename))
        if rec is None or ledger_row(rec, guard) != "\t".join(same_id[0]):
            continue
        mine = meta_entries([rec], [meta_piece(rec, guard)], archived=ref.archived)[0].get(ref.category, {})
        if mine == ({filename: meta[filename]} if filename in meta else {}):
            found[ref.path] = (ref.path, rec, None)
    return found


def _meta_of(text: str | None) -> dict[str, dict[str, str]] | None:
    """A `.meta.json`'s entries (none when the file is absent), or None when it is not of the
    shape a render writes."""
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if type(data) is not dict or not all(
            type(entry) is dict and set(entry) == {"title", "description"}
            and all(type(v) is str for v in entry.values()) for entry in data.values()):
        return None
    return data


def _rebuilt(ref: EpisodeRef, filename: str, cells: list[str], entry: dict[str, str] | None) -> Record | None:
    date, eid, mode, approx, digest, notes = cells
    if not (approx.isascii() and approx.isdigit() and digest.isascii() and digest.isdigit()):
        return None
    return Record(id=eid, filename=filename, path=ref.path, category=ref.category, archived=ref.archived,
                  date=date, mode=mode, approx_tokens=int(approx), digest_tokens=int(digest), notes=notes,
                  display_title=entry["title"] if entry else "", description=entry["description"] if entry else "",
                  tokens_source="", given_date=date)
