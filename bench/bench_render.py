"""Benchmark `memshelf-bot render` against `memshelf rebuild` + the reference archive render.

    python bench/bench_render.py [--sizes 3000 10000] [--repeat 3] [--out bench/out]

Per size: one generated shelf (tests/shelfgen.py). Each timed run starts from a fresh copy with
every derived file deleted: ours renders everything (ledger, .meta.json, INDEX, SUBINDEX, the
archive, and the matplotlib chart) in one command; the reference runs `memshelf rebuild` and then
its separate archive render. Then, on the rendered copies, `render --check` against the
reference's `rebuild --check` (which compares only the ledger and .meta.json files).
Median of --repeat runs; prints a Markdown table and writes JSON.
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

from bench.measure import chain, median, once  # noqa: E402
from memshelf_render.derived import derived_paths  # noqa: E402
from memshelf_render.shelf import load_shelf  # noqa: E402
from tests.refs import ref_python  # noqa: E402
from tests.shelfgen import generate_shelf  # noqa: E402

BOT = str(Path(sys.executable).with_name("memshelf-bot"))
ARCHIVE_RENDER = "import sys; from memshelf_mcp.core.archive import rebuild_archive_index; rebuild_archive_index(sys.argv[1])"


def fresh_copy(source: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, symlinks=True)
    shelf, _ = load_shelf(dest)
    for rel in derived_paths(shelf, badge=True):
        (dest / rel).unlink(missing_ok=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    py = ref_python()
    memshelf = str(py.parent / "memshelf")
    rows = []
    for size in args.sizes:
        source = args.out / f"render-source-{size}"
        if not source.exists():
            generate_shelf(source, seed=args.seed, episodes=size, archive=size // 10)
        ours_dir, refs_dir = args.out / f"render-ours-{size}", args.out / f"render-ref-{size}"

        def ours_run(s=source, d=ours_dir):
            fresh_copy(s, d)
            return once([BOT, "render", str(d)])

        def refs_run(s=source, d=refs_dir):
            fresh_copy(s, d)
            return chain([[memshelf, "rebuild", "--shelf", str(d)], [str(py), "-c", ARCHIVE_RENDER, str(d)]])

        ours = median(ours_run, args.repeat)
        refs = median(refs_run, args.repeat)
        ours_check = median(lambda d=ours_dir: once([BOT, "render", str(d), "--check"]), args.repeat)
        refs_check = median(lambda d=refs_dir: once([memshelf, "rebuild", "--shelf", str(d), "--check"]), args.repeat)
        assert ours_check.code == 0, "render --check found drift right after render"
        rows.append({"episodes": size, "archived": size // 10, "ours_s": ours.wall, "refs_s": refs.wall,
                     "ratio": refs.wall / ours.wall, "ours_check_s": ours_check.wall,
                     "refs_check_s": refs_check.wall, "check_ratio": refs_check.wall / ours_check.wall,
                     "ours_rss_kb": ours.rss_kb, "refs_rss_kb": refs.rss_kb})
        print(f"{size}: render {ours.wall:.2f}s vs {refs.wall:.2f}s; check {ours_check.wall:.2f}s vs "
              f"{refs_check.wall:.2f}s", file=sys.stderr)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "rows": rows}
    (args.out / "render.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("| episodes (+archived) | memshelf-bot render | rebuild + archive render | ratio | render --check | "
          "rebuild --check | ratio | peak RSS ours / refs (MiB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['episodes']:,} (+{r['archived']:,}) | {r['ours_s']:.2f} s | {r['refs_s']:.2f} s | "
              f"{r['ratio']:.2f} | {r['ours_check_s']:.2f} s | {r['refs_check_s']:.2f} s | {r['check_ratio']:.2f} | "
              f"{r['ours_rss_kb'] / 1024:.0f} / {r['refs_rss_kb'] / 1024:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
