"""The pull request the bot opens for an agent branch: its title and the body it keeps current.

The generated part of the body sits between two hidden markers; a later run replaces only that
part, so whatever a human writes above or below it stays. The opening marker also records a
fingerprint of the title the bot last set: when the PR's title no longer has it, a human
retitled the PR and the bot leaves the title alone. A PR someone else opened (no markers) gets
the block appended below its text and keeps its title.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from memshelf_render.text import flatten

from . import markdown as md
from .summary import VERDICT, plural

MAX_TITLE = 256  # GitHub's limit on a pull request title
MAX_BODY = 65536  # and on its body, in characters
MAX_DIGEST = 600  # characters of one digest shown in the body
MAX_LISTED = 40  # episodes listed one by one; the rest are counted
END = "<!-- /memshelf-bot:pr -->"


@dataclass(frozen=True, slots=True)
class EpisodeEntry:
    """One episode the branch adds or changes, as the PR body lists it."""

    path: str  # repository path
    title: str  # display_title, else the id, else the file stem
    kind: str
    digest: str | None
    verdict: str  # valid | violations
    errors: int
    warnings: int


def fingerprint(title: str) -> str:
    return hashlib.sha256(title.encode("utf-8")).hexdigest()[:12]


def _start(shelf_path: str) -> str:
    return f"<!-- memshelf-bot:pr shelf={shelf_path} title="


def _block_span(body: str, shelf_path: str) -> tuple[int, int, str] | None:
    """(start, end, title fingerprint) of the bot's block for this shelf in `body`, if there."""
    start = body.find(_start(shelf_path))
    if start < 0:
        return None
    end = body.find(END, start)
    if end < 0:
        return None
    head = body[start:body.find("-->", start)]
    return start, end + len(END), head.rsplit("title=", 1)[1].strip()


def one_line(text: str) -> str:
    """A title-safe line: whitespace runs collapsed, control characters dropped."""
    return "".join(ch for ch in flatten(text) if ch.isprintable())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def title(entries: list[EpisodeEntry], branch: str) -> str:
    """The episode's title; `N episodes: a; b; …` for several; the branch when it has none."""
    names = [one_line(e.title) for e in entries]
    if not names:
        return _clip(f"Shelve {one_line(branch)}", MAX_TITLE)
    if len(names) == 1:
        return _clip(names[0], MAX_TITLE)
    return _clip(f"{len(names)} episodes: " + "; ".join(names), MAX_TITLE)


def block(entries: list[EpisodeEntry], *, shelf_path: str, branch: str, base: str, title_set: str,
          headline: str, head_sha: str, context: str, compact: bool = False) -> str:
    """The bot's part of the body: each episode with its kind, verdict and digest (`compact`:
    without the episodes, for a body whose human text leaves no room), then the validation
    verdict and where the commit status is."""
    lines = [f"{_start(shelf_path)}{fingerprint(title_set)} -->",
             f"### {md.code(branch)} → {md.code(base)}: {plural(len(entries), 'episode')}", ""]
    listed = [] if compact else entries[:MAX_LISTED]
    for e in listed:
        counts = "" if e.verdict == "valid" and not e.warnings else \
            f" ({plural(e.errors, 'error')}, {plural(e.warnings, 'warning')})"
        lines += [f"#### {md.text(one_line(e.title))}",
                  f"{md.code(e.path)} · {md.text(e.kind or 'no kind')} · {VERDICT[e.verdict]}{counts}", ""]
        digest = one_line(e.digest or "")
        lines += [f"> {md.text(_clip(digest, MAX_DIGEST))}" if digest else "> *(no digest)*", ""]
    if len(entries) > len(listed):
        lines += [f"… and {plural(len(entries) - len(listed), 'more episode')}: the job summary lists every one.",
                  ""]
    lines += [f"**Validation**: {headline}", "",
              f"The commit status {md.code(context)} on {md.code(head_sha[:12])} carries this verdict; the "
              "bot's comment below lists every finding.", "",
              "<sub>memshelf-bot opened this pull request for the agent branch and rewrites only this part of "
              "the description on every push; text outside it is yours.</sub>", END]
    return "\n".join(lines)


def merged(existing: str | None, new_block: str, compact_block: str, shelf_path: str) -> str:
    """`existing` with its bot block replaced by `new_block` (appended when it has none); the
    compact block when the full one would push the body over GitHub's limit."""
    body = existing or ""
    span = _block_span(body, shelf_path)
    if span is not None:
        start, end, _ = span
        before, after = body[:start], body[end:]
    else:
        before, after = (f"{body.rstrip()}\n\n" if body.strip() else ""), ""
    if len(before) + len(new_block) + len(after) > MAX_BODY:
        new_block = compact_block
    return before + new_block + after


def has_block(body: str | None, shelf_path: str) -> bool:
    return _block_span(body or "", shelf_path) is not None


def title_is_the_bots(existing_body: str | None, current_title: str, shelf_path: str) -> bool:
    """Whether the PR still has the title the bot last set (so the bot may change it)."""
    span = _block_span(existing_body or "", shelf_path)
    return span is not None and span[2] == fingerprint(current_title)
