"""Benchmark `memshelf-bot validate` against `memshelf doctor` + `shelf-spec validate`, in one run.

    python bench/bench_validate.py [--shapes ...] [--sizes 1000 3000 10000] [--repeat 3] [--out bench/out]

Every shape of `bench/shapes.py` at every size: one seeded, rendered shelf (derived files written
by the reference renderer, as on a rendered main). Per shelf, ours and the references run
alternately --repeat times: full `validate --no-cache` (cold: the episode cache neither read nor
written); `validate --changed` with one episode; doctor + shelf-spec back to back. Wall and CPU
time (user + sys, children included) are medians, the ratios medians of the per-pair ratios;
peak RSS is the largest single process. Plus
`memshelf-bot --version`. Prints Markdown tables and the load average; writes JSON.
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

from bench.measure import chain, load, median, once, ratio, rounds, summary, warm  # noqa: E402
from bench.shapes import SHAPES, build_shelf  # noqa: E402
from tests.refs import NO_STALENESS_HOURS, ref_python  # noqa: E402

BOT = str(Path(sys.executable).with_name("memshelf-bot"))


def shelf_for(out: Path, shape: str, size: int, seed: int) -> Path:
    """The cached rendered shelf of (shape, size), built on first use."""
    shelf = out / f"{shape}-{size}"
    if not (shelf / "ledger.tsv").exists():
        if shelf.exists():
            import shutil

            shutil.rmtree(shelf)
        build_shelf(shelf, shape, size, seed=seed, derived=True)
    return shelf


def one_episode(shelf: Path) -> str:
    topics = sorted((shelf / "docs" / "topics").glob("*.md"))
    return str(topics[len(topics) // 2].relative_to(shelf))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
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
    loads = [load()]
    warm([BOT, "validate", str(shelf_for(args.out, args.shapes[0], min(args.sizes), args.seed)), "--format", "json",
          "--no-cache"])
    version = median(lambda: once([BOT, "--version"]), max(args.repeat, 5))
    for size in args.sizes:
        for shape in args.shapes:
            shelf = shelf_for(args.out, shape, size, args.seed)
            changed = one_episode(shelf)

            def refs(s=shelf):
                return chain([[*doctor, str(s)], [*spec, str(s)]])

            full_runs, changed_runs, ref_runs = rounds(
                [lambda s=shelf: once([BOT, "validate", str(s), "--format", "json", "--no-cache"]),
                 lambda s=shelf, c=changed: once([BOT, "validate", str(s), "--changed", c], cwd=str(s)),
                 refs], args.repeat)
            full, pr, ref = summary(full_runs), summary(changed_runs), summary(ref_runs)
            loads.append(load())
            rows.append({
                "shape": shape, "episodes": size,
                "ours_s": full.wall, "ours_cpu_s": full.cpu, "ours_rss_kb": full.rss_kb, "ours_exit": full.code,
                "changed_s": pr.wall, "changed_cpu_s": pr.cpu, "changed_rss_kb": pr.rss_kb,
                "refs_s": ref.wall, "refs_cpu_s": ref.cpu, "refs_rss_kb": ref.rss_kb,
                "wall_ratio": ratio(full_runs, ref_runs), "cpu_ratio": ratio(full_runs, ref_runs, "cpu"),
                "changed_ratio": ratio(changed_runs, ref_runs), "load": loads[-1],
            })
            r = rows[-1]
            print(f"{shape} {size}: ours {full.wall:.2f}s/{full.cpu:.2f}s cpu, --changed {pr.wall:.3f}s, "
                  f"refs {ref.wall:.2f}s/{ref.cpu:.2f}s cpu; {r['wall_ratio']:.1f}x wall, {r['cpu_ratio']:.1f}x "
                  f"cpu, {r['changed_ratio']:.0f}x --changed (load {loads[-1]})", file=sys.stderr)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "version_s": version.wall, "loads": loads, "rows": rows}
    (args.out / "validate.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"`memshelf-bot --version`: {version.wall:.3f} s; load average (1/5/15 min) from {loads[0]} "
          f"to {loads[-1]}\n")
    print("| shape | episodes | validate wall / CPU | --changed | doctor + shelf-spec wall / CPU | ratio wall | "
          "ratio CPU | ratio --changed | peak RSS ours / --changed / refs (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['shape']} | {r['episodes']:,} | {r['ours_s']:.2f} / {r['ours_cpu_s']:.2f} s | "
              f"{r['changed_s']:.3f} s | {r['refs_s']:.2f} / {r['refs_cpu_s']:.2f} s | {r['wall_ratio']:.1f}× | "
              f"{r['cpu_ratio']:.1f}× | {r['changed_ratio']:.0f}× | {r['ours_rss_kb'] / 1024:.0f} / "
              f"{r['changed_rss_kb'] / 1024:.0f} / {r['refs_rss_kb'] / 1024:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
