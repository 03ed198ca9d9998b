"""The `/shelf purge` pull request's title and description: what memory it deletes, for a person.

Each episode past its `retain_until` is listed with its id, title, `retain_until` and file, masked
(`clean`) and escaped, within a pull request body's 65,536 characters (the rest as "and N more":
the pull request's files still hold every one).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from memshelf_render.check import repo_path
from memshelf_render.retention import Expired

from ..port import COMMENT_LIMIT
from . import markdown as md
from .dashboard import TITLE_CHARS, clip, fit_blocks
from .summary import plural

_ROOM = 300


def title(gone: Sequence[Expired]) -> str:
    return f"memshelf-bot: purge {plural(len(gone), 'episode')} past retain_until"


def body(gone: Sequence[Expired], *, branch: str, main_sha: str, day: dt.date, asked_by: str, asked_on: int,
         prefix: str, clean: Callable[[str], str], limit: int = COMMENT_LIMIT) -> str:
    """The description: what merging deletes and why, then one table row per episode, within `limit`."""

    def cell(value: str) -> str:
        return md.text(clip(clean(value), TITLE_CHARS))

    def code(value: str) -> str:
        return md.code(clip(clean(value), TITLE_CHARS), in_table=True)

    head = [f"**Merging this pull request deletes memory.** {md.text(asked_by)} asked for it with `/shelf purge` "
            f"on #{asked_on}: it removes the {plural(len(gone), 'episode file')} below, whose `retain_until` had "
            f"passed on {md.code(branch)} at {md.code(main_sha[:12])} (as of {day.isoformat()}), and nothing else. "
            "The render after the merge takes them out of INDEX, the ledger and `.meta.json`; git history still "
            "holds their text.", "",
            "memshelf-bot never merges this pull request: a person decides. Commenting `/shelf purge` again updates "
            "it.", "",
            "| episode | title | retain_until | file |", "|---|---|---|---|"]
    rows = ([f"| {code(e.id)} | {cell(e.title)} | {code(e.retain_until)} | {code(repo_path(e.path, prefix))}"
             f"{' (archived)' if e.archived else ''} |"] for e in gone)
    shown, count = fit_blocks(rows, limit - len("\n".join(head)) - _ROOM)
    more = (["", f"… and {plural(len(gone) - count, 'more episode')}: this pull request's files list every one."]
            if count < len(gone) else [])
    return "\n".join([*head, *shown, *more])
