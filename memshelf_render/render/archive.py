"""The archive sub-shelf: `archive/docs/<category>/.meta.json` and `archive/INDEX.md`
(docs/reference.md §8.6).

The reference renders these in a separate step after `rebuild`; here they are part of the one
render. The archive keeps its own renderer config (`archive/.docshelf.json`, written at the first
rollup); without one, docshelf's defaults apply except the preamble, which is our own text.
"""

from __future__ import annotations

from ..derived import ARCHIVE_INDEX
from ..shelf import ARCHIVE_DIR, DOCSHELF, Shelf, load_docshelf
from .index import Book

ARCHIVE_PREAMBLE = (
    "Archive of episodes rolled up out of the main index. Each one is still recallable by its id; "
    "fetch only the episode or section a question needs."
)
CONFIG_PATH = f"{ARCHIVE_DIR}/{DOCSHELF}"


def archive_book(shelf: Shelf) -> tuple[Book, str | None]:
    """The archive as an index root, with `archive/.docshelf.json` (or the defaults), and why
    that config was unusable (if it was)."""
    cfg, problem = load_docshelf(shelf.root, CONFIG_PATH)
    return Book(True, ARCHIVE_DIR, cfg, ARCHIVE_INDEX, ARCHIVE_PREAMBLE), problem
