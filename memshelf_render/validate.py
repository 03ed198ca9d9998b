"""`memshelf-bot validate`: every rule over the shelf, or over the changed episodes (PR mode).

PR mode (`changed`) parses only the named episodes and runs the cheap shelf-wide checks they
need (manifest, settings, config, policy, id uniqueness against every file name); derived-file
consistency is left out there because derived files lag on a branch by design.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import parallel, paths
from .cache import EpisodeCache, Kind, Read, Store
from .catalog import RULES
from .episode import Episode
from .findings import Finding, Replacement, Severity
from .redact import mask
from .rules import EPISODE_CHECKS, Context, consistency, structure
from .shelf import EpisodeRef, Shelf, load_shelf, schema_problems


@dataclass
class Report:
    """The outcome of one validate run; every front-end renders this."""

    root: Path
    findings: list[Finding] = field(default_factory=list)
    config_error: bool = False
    strict: bool = False
    episodes: int = 0

    @property
    def counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Severity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return counts

    @property
    def verdict(self) -> str:
        if self.config_error:
            return "config-error"
        counts = self.counts
        if counts["error"] or (self.strict and counts["warning"]):
            return "violations"
        return "valid"

    @property
    def exit_code(self) -> int:
        return {"valid": 0, "violations": 1, "config-error": 2}[self.verdict]


# The share of its episodes the parent hands to the worker: it checks the derived files (INDEX,
# ledger, .meta.json; ~7 % of a share's time on the benchmark shelves) while the worker starts.
HANDED = 0.05


class _Validation:
    """One validate run over a loaded shelf: the episode checks start at construction (on every
    core for a big shelf); `findings()` runs the shelf-wide checks that need no parsed episode
    meanwhile, then waits for them and adds those that do (titles, ids)."""

    def __init__(self, shelf: Shelf, changed: list[str] | None, cache: EpisodeCache | None = None) -> None:
        self.ctx = ctx = Context(shelf)
        self.changed = changed
        self.refs = shelf.layout.episodes if changed is None else _changed_refs(shelf, changed)
        self._pending: parallel.Pending | None = None
        # PR mode parses only the changed episodes: nothing there to take from the cache
        self.store = cache.store(shelf, Kind.CHECKS) if cache is not None and changed is None and shelf.is_memory \
            else None
        if shelf.is_memory:
            ctx.policy  # noqa: B018 - parse POLICY.patterns once, before any fork
            jobs = parallel.jobs_for(len(self.refs))
            if jobs > 1:
                fn, state = (_check_refs, ctx) if self.store is None else (_check_refs_cached, (ctx, self.store))
                self._pending = parallel.start(fn, self.refs, state=state, jobs=jobs,
                                               handed=0 if changed else HANDED)

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()

    def findings(self) -> list[Finding]:
        """Every finding; the workers are stopped and reaped whatever goes wrong meanwhile (a
        long-lived App process must not collect them as zombies)."""
        try:
            return self._findings()
        except BaseException:
            self.cancel()
            raise

    def _findings(self) -> list[Finding]:
        ctx, shelf, changed = self.ctx, self.ctx.shelf, self.changed
        findings: list[Finding] = []
        findings += structure.manifest_checks(ctx)
        findings += structure.config_checks(ctx)
        findings += structure.policy_checks(ctx)
        if changed is None:
            findings += structure.layout_checks(ctx)
        else:
            findings += structure.layout_checks(ctx, only={_shelf_relative(shelf.root, c) for c in changed})
        if shelf.is_memory:
            if changed is None:  # the derived files need only the file names: judged while the workers run
                findings += consistency.ledger_checks(ctx, {paths.stem(ref.path) for ref in self.refs})
                findings += consistency.meta_checks(ctx)
                findings += consistency.index_checks(ctx)
            summaries: list[structure.Summary] = []
            checked = self._checked()
            for episode_findings, summary in checked:
                findings += episode_findings
                summaries.append(summary)
            if changed is None:
                findings += structure.title_checks(summaries)
                findings += structure.duplicate_ids(summaries)
            else:
                findings += structure.duplicate_ids(summaries, _stems_by_id(shelf))
        return _masked(findings, ctx)


    def _checked(self) -> list[tuple[list[Finding], structure.Summary]]:
        """Each episode's findings and summary: computed (the definition), or through the cache."""
        if self.store is None:
            return self._pending.result() if self._pending is not None else _check_refs(self.ctx, self.refs)
        results = self._pending.result() if self._pending is not None \
            else _check_refs_cached((self.ctx, self.store), self.refs)
        self.store.save(self.refs, results, _encode_checked)
        return [result[0] for result in results]


def validate_shelf(shelf: Shelf, *, changed: list[str] | None = None,
                   cache: EpisodeCache | None = None) -> list[Finding]:
    """All findings for a loaded shelf (full mode), or for the changed episodes (PR mode).
    `cache`: take unchanged episodes' findings from there (None: compute every one)."""
    return _Validation(shelf, changed, cache).findings()


def check_episode(ep: Episode, ctx: Context) -> tuple[list[Finding], structure.Summary]:
    findings = list(ep.problems)
    for check in EPISODE_CHECKS:
        findings += check(ep, ctx)
    return findings, structure.summarize(ep)


def _check_refs(ctx: Context, refs: list[EpisodeRef]) -> list[tuple[list[Finding], structure.Summary]]:
    return [check_episode(ctx.shelf.parse_episode(ref), ctx) for ref in refs]


def _check_refs_cached(state: tuple[Context, Store], refs: list[EpisodeRef]) -> list:
    ctx, store = state

    def work(ref: EpisodeRef, read: Read | None) -> tuple[list[Finding], structure.Summary]:
        return check_episode(ctx.shelf.parse_episode(ref, read=read), ctx)

    return store.through(ctx.shelf, refs, work, _decode_checked)


def _encode_checked(value: tuple[list[Finding], structure.Summary]) -> tuple:
    findings, s = value
    return (tuple((f.code, f.path, f.line, f.message,
                   None if f.replacement is None else (f.replacement.line, f.replacement.text, f.replacement.why,
                                                       f.replacement.certain))
                  for f in findings),
            (s.path, s.stem, s.category, s.archived, s.id, s.id_line, s.title, s.title_line))


_SUMMARY_TYPES = (str, str, str, bool, str, (int, type(None)), str, (int, type(None)))


def _decode_checked(raw: Any) -> tuple[list[Finding], structure.Summary] | None:
    """An entry's findings and summary, or None when it is not of their shape."""
    try:
        found, summary = raw
        findings = []
        for code, path, line, message, fix in found:
            if code not in RULES or type(path) is not str or type(message) is not str \
                    or not (line is None or type(line) is int):
                return None
            replacement = None
            if fix is not None:
                at, text, why, certain = fix
                if type(at) is not int or type(text) is not str or type(why) is not str or type(certain) is not bool:
                    return None
                replacement = Replacement(at, text, why, certain)
            findings.append(Finding(code, path, line, message, replacement))
        if len(summary) != len(_SUMMARY_TYPES) or not all(
                isinstance(v, t) for v, t in zip(summary, _SUMMARY_TYPES, strict=True)):
            return None
        return findings, structure.Summary(*summary)
    except (TypeError, ValueError):
        return None


def _changed_refs(shelf: Shelf, changed: list[str]) -> list[EpisodeRef]:
    """The discovered episodes among the changed paths (as given, or relative to the shelf)."""
    by_path = {ref.path: ref for ref in shelf.layout.episodes}
    refs: list[EpisodeRef] = []
    for raw in changed:
        rel = _shelf_relative(shelf.root, raw)
        if rel in by_path and by_path[rel] not in refs:
            refs.append(by_path[rel])
    return refs


def _shelf_relative(root: Path, raw: str) -> str:
    candidate = Path(raw)
    if not candidate.is_absolute() and (Path.cwd() / candidate).exists():
        candidate = Path.cwd() / candidate
    if candidate.is_absolute():
        try:
            return Path(os.path.abspath(candidate)).relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            return raw
    return candidate.as_posix()


def _stems_by_id(shelf: Shelf) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for ref in shelf.layout.episodes:
        out.setdefault(ref.path.rsplit("/", 1)[-1][:-3], []).append(ref.path)
    return out


def _masked(findings: list[Finding], ctx: Context) -> list[Finding]:
    """Every field a finding carries passes through the masker (its path and its message; fix and
    spec rule come from the catalog): no output ever carries a secret, not even in a file name."""
    out = []
    for f in findings:
        path, message = mask(f.path, ctx.policy), mask(f.message, ctx.policy)
        out.append(f if (path, message) == (f.path, f.message) else Finding(f.code, path, f.line, message))
    out.sort(key=Finding.sort_key)
    return out


def run(path: str | Path, *, changed: list[str] | None = None, strict: bool = False,
        cache: EpisodeCache | None = None) -> Report:
    """Validate the shelf at `path`. The episode checks start before shelf.yml's schema check,
    so on a big shelf they run on every core while this process imports jsonschema; a config
    error cancels them. `cache`: see `validate_shelf`."""
    shelf, problems = load_shelf(path, defer_schemas=True)
    report = Report(Path(path), strict=strict)
    validation = None
    if shelf is not None:
        validation = _Validation(shelf, changed, cache)
        problems = schema_problems(shelf)
        if problems:
            validation.cancel()
    if validation is None or problems:
        report.findings = problems
        report.config_error = True
        return report
    report.findings = validation.findings()
    report.episodes = len(shelf.layout.episodes) if changed is None else len(changed)
    return report
