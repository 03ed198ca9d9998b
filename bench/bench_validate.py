"""Benchmark `memshelf-bot validate` against `memshelf doctor` + `shelf-spec validate`, in one run.

    python bench/bench_validate.py [--sizes 1000 3000 10000] [--repeat 3] [--out bench/out]

Each size gets one generated, rendered shelf (tests/shelfgen.py, derived files written by the
reference renderer, as on a rendered main). Measured per size, median of --repeat runs:
full `validate`; `validate --changed` with one episode; the two references back to back; peak
RSS of each. Plus `memshelf-bot --version`. Prints a Markdown table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import chain, median, once  # noqa: E402
from tests.refs import NO_STALENESS_HOURS, ref_python  # noqa: E402
from tests.shelfgen import generate_shelf  # noqa: E402

BOT = str(Path(sys.executable).with_name("memshelf-bot"))


def build(out: Path, size: int, seed: int) -> Path:
    shelf = out / f"shelf-{size}"
    if not (shelf / "ledger.tsv").exists():
        if shelf.exists():
            import shutil

            shutil.rmtree(shelf)
        generate_shelf(shelf, seed=seed, episodes=size, archive=size // 20, derived=True)
    return shelf


def one_episode(shelf: Path) -> str:
    topics = sorted((shelf / "docs" / "topics").glob("*.md"))
    return str(topics[len(topics) // 2].relative_to(shelf))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    ref_bin = ref_python().parent
    doctor = [str(ref_bin / "memshelf"), "doctor", "--derived-stale-hours", str(NO_STALENESS_HOURS), "--shelf"]
    spec = [str(ref_bin / "shelf-spec"), "validate", "--json"]

    rows = []
    version = median(lambda: once([BOT, "--version"]), max(args.repeat, 5))
    for size in args.sizes:
        shelf = build(args.out, size, args.seed)
        changed = one_episode(shelf)
        ours = median(lambda s=shelf: once([BOT, "validate", str(s), "--format", "json"]), args.repeat)
        ours_changed = median(lambda s=shelf, c=changed: once([BOT, "validate", str(s), "--changed", c],
                                                              cwd=str(s)), args.repeat)
        refs = median(lambda s=shelf: chain([[*doctor, str(s)], [*spec, str(s)]]), args.repeat)
        rows.append({
            "episodes": size, "ours_s": ours.wall, "ours_rss_kb": ours.rss_kb, "ours_exit": ours.code,
            "changed_s": ours_changed.wall, "changed_rss_kb": ours_changed.rss_kb,
            "refs_s": refs.wall, "refs_rss_kb": refs.rss_kb,
            "speedup": refs.wall / ours.wall, "changed_speedup": refs.wall / ours_changed.wall,
        })
        print(f"{size}: ours {ours.wall:.2f}s, --changed {ours_changed.wall:.3f}s, refs {refs.wall:.2f}s",
              file=sys.stderr)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "version_s": version.wall, "rows": rows}
    (args.out / "validate.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"`memshelf-bot --version`: {version.wall:.3f} s\n")
    print("| episodes | memshelf-bot validate | --changed (1 episode) | doctor + shelf-spec | speed-up full | "
          "speed-up --changed | peak RSS ours / --changed / refs (MiB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['episodes']:,} | {r['ours_s']:.2f} s | {r['changed_s']:.3f} s | {r['refs_s']:.2f} s | "
              f"{r['speedup']:.1f}× | {r['changed_speedup']:.0f}× | {r['ours_rss_kb'] / 1024:.0f} / "
              f"{r['changed_rss_kb'] / 1024:.0f} / {r['refs_rss_kb'] / 1024:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
