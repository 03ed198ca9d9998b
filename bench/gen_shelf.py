"""Write a seeded, valid memory shelf for benchmarks: `python bench/gen_shelf.py OUT --episodes N --seed S`.

A thin wrapper over `tests/shelfgen.py`, so benchmarks and tests measure the same shelves.
`--derived` also writes the derived files with the reference renderer (needs PyPI once, for the
reference virtualenv).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.shelfgen import LINK_MODES, generate_shelf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to write the shelf into (must not exist)")
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--archive", type=int, default=None, help="archived episodes (default: episodes // 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--link-mode", choices=LINK_MODES, default="none")
    parser.add_argument("--no-quirks", action="store_true", help="only the usual forms")
    parser.add_argument("--derived", action="store_true", help="also render ledger, .meta.json, INDEX, archive")
    args = parser.parse_args(argv)
    if args.out.exists():
        parser.error(f"{args.out} already exists")
    archive = args.episodes // 10 if args.archive is None else args.archive
    started = time.perf_counter()
    shelf = generate_shelf(args.out, seed=args.seed, episodes=args.episodes, archive=archive,
                           quirks=not args.no_quirks, link_mode=args.link_mode, derived=args.derived)
    elapsed = time.perf_counter() - started
    print(f"{args.out}: {len(shelf.episodes)} episodes, {len(shelf.archived)} archived "
          f"in {elapsed:.2f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
