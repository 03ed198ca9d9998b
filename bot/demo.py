"""`memshelf-bot demo`: validate and render a copy of the bundled example shelf and show the result.

(The full loop against the embedded GitHub sandbox replaces this once the Action lands.)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "shelf"


def cli_main(args) -> int:
    from memshelf_render import validate
    from memshelf_render.render import render_shelf
    from memshelf_render.report import emit
    from memshelf_render.shelf import load_shelf
    from memshelf_render.stats import format_text, shelf_stats

    work = Path(tempfile.mkdtemp(prefix="memshelf-demo-"))
    shelf_dir = work / "shelf"
    shutil.copytree(EXAMPLE, shelf_dir)
    try:
        print("== validate the example shelf")
        emit(validate.run(shelf_dir), "text", sys.stdout)
        print("\n== render its derived files")
        shelf, _ = load_shelf(shelf_dir)
        result = render_shelf(shelf)
        for path in result.written:
            print(f"wrote {path}")
        print("\n== INDEX.md\n" + (shelf_dir / "INDEX.md").read_text(encoding="utf-8"))
        print("== ledger.tsv\n" + (shelf_dir / "ledger.tsv").read_text(encoding="utf-8"))
        print("== stats\n" + format_text(shelf_stats(shelf, shelf.settings.context_window)))
        report = validate.run(shelf_dir)
        print(f"== validate after render: {report.verdict}")
        return report.exit_code
    finally:
        if args.keep:
            print(f"(kept in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)
