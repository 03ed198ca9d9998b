"""Benchmark `memshelf-bot render` against `memshelf rebuild` + the reference archive render.

    python bench/bench_render.py [--shapes ...] [--sizes 1000 3000 10000] [--repeat 3] [--out bench/out]

Every shape of `bench/shapes.py` at every size: two copies of the seeded shelf, one for each
side. Before each timed run every derived file of that copy is deleted: ours (`--no-cache`: cold,
the episode cache neither read nor written) renders everything
(ledger, .meta.json, INDEX, SUBINDEX, the archive and the matplotlib chart) in one command; the
reference runs `memshelf rebuild` and then its separate archive render. Then, on the rendered
copies, `render --check` against the reference's `rebuild --check` (which compares only the
ledger and .meta.json files). Ours and the reference alternate; wall and CPU time (user + sys,
children included) are medians, ratios the medians of the per-round ratios, peak RSS the largest
single process. Prints a Markdown table and the load average; writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_validate import shelf_for  # noqa: E402
from bench.measure import chain, load, once, ratio, rounds, summary, warm  # noqa: E402
from bench.shapes import SHAPES  # noqa: E402
from memshelf_render.derived import derived_paths  # noqa: E402
from memshelf_render.shelf import load_shelf  # noqa: E402
from tests.refs import ref_python  # noqa: E402

BOT = str(Path(sys.executable).with_name("memshelf-bot"))
ARCHIVE_RENDER = "import sys; from memshelf_mcp.core.archive import rebuild_archive_index; rebuild_archive_index(sys.argv[1])"


def copy_of(source: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, symlinks=True)
    return dest


def without_derived(shelf_dir: Path) -> Path:
    """Delete every derived file of the shelf (exactly the derived-path list)."""
    shelf, _ = load_shelf(shelf_dir)
    for rel in derived_paths(shelf, badge=True):
        (shelf_dir / rel).unlink(missing_ok=True)
    return shelf_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    py = ref_python()
    memshelf = str(py.parent / "memshelf")
    rows = []
    loads = [load()]
    for size in args.sizes:
        for shape in args.shapes:
            source = shelf_for(args.out, shape, size, args.seed)
            ours_dir = copy_of(source, args.out / f"render-ours-{shape}-{size}")
            refs_dir = copy_of(source, args.out / f"render-ref-{shape}-{size}")

            def ours_run(d=ours_dir):
                return once([BOT, "render", str(without_derived(d)), "--no-cache"])

            def refs_run(d=refs_dir):
                without_derived(d)
                return chain([[memshelf, "rebuild", "--shelf", str(d)], [str(py), "-c", ARCHIVE_RENDER, str(d)]])

            if not rows:
                warm([BOT, "render", str(without_derived(ours_dir)), "--no-cache"])
            ours_runs, refs_runs = rounds([ours_run, refs_run], args.repeat)
            check_runs, ref_check_runs = rounds(
                [lambda d=ours_dir: once([BOT, "render", str(d), "--check", "--no-cache"]),
                 lambda d=refs_dir: once([memshelf, "rebuild", "--shelf", str(d), "--check"])], args.repeat)
            ours, refs, check, ref_check = map(summary, (ours_runs, refs_runs, check_runs, ref_check_runs))
            assert check.code == 0, "render --check found drift right after render"
            loads.append(load())
            rows.append({"shape": shape, "episodes": size, "ours_s": ours.wall, "ours_cpu_s": ours.cpu,
                         "refs_s": refs.wall, "refs_cpu_s": refs.cpu, "ratio": ratio(ours_runs, refs_runs),
                         "cpu_ratio": ratio(ours_runs, refs_runs, "cpu"), "ours_check_s": check.wall,
                         "refs_check_s": ref_check.wall, "check_ratio": ratio(check_runs, ref_check_runs),
                         "ours_rss_kb": ours.rss_kb, "refs_rss_kb": refs.rss_kb, "load": loads[-1]})
            print(f"{shape} {size}: render {ours.wall:.2f}s/{ours.cpu:.2f}s cpu vs {refs.wall:.2f}s/"
                  f"{refs.cpu:.2f}s cpu ({rows[-1]['ratio']:.2f}x); check {check.wall:.2f}s vs "
                  f"{ref_check.wall:.2f}s (load {loads[-1]})", file=sys.stderr)
            for d in (ours_dir, refs_dir):
                shutil.rmtree(d)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "loads": loads, "rows": rows}
    (args.out / "render.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"load average (1/5/15 min) from {loads[0]} to {loads[-1]}\n")
    print("| shape | episodes | render wall / CPU | rebuild + archive wall / CPU | ratio wall | ratio CPU | "
          "render --check | rebuild --check | ratio | peak RSS ours / refs (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['shape']} | {r['episodes']:,} | {r['ours_s']:.2f} / {r['ours_cpu_s']:.2f} s | "
              f"{r['refs_s']:.2f} / {r['refs_cpu_s']:.2f} s | {r['ratio']:.2f} | {r['cpu_ratio']:.2f} | "
              f"{r['ours_check_s']:.2f} s | {r['refs_check_s']:.2f} s | {r['check_ratio']:.2f} | "
              f"{r['ours_rss_kb'] / 1024:.0f} / {r['refs_rss_kb'] / 1024:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
