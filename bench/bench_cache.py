"""Benchmark the episode cache against the references, in one run.

    python bench/bench_cache.py [--shapes generated] [--sizes 10000] [--repeat 3] [--out bench/out]

Two rows of issue 22's table, per shape and size (the seeded, rendered shelves of
`bench_validate.py`):
- warm `validate`, nothing changed: `memshelf-bot validate --format json` with a filled cache
  (MEMSHELF_BOT_CACHE_DIR under --out) against `memshelf doctor` + `shelf-spec validate`;
- `render` after a one-episode change, warm cache: before each timed run one episode's Digest
  gains or loses a sentence (so its row, INDEX and the chart's data change and stats.svg is
  redrawn), then `memshelf-bot render`; against `memshelf rebuild` + the reference archive
  render on a copy with the derived files deleted (as `bench_render.py` compares).
Ours and the references run alternately, one round after another; wall and CPU medians, ratios
as medians of the per-round ratios. Afterwards `render --check --no-cache` must find no drift:
what the cached renders wrote is what an uncached render writes.
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

from bench.bench_render import ARCHIVE_RENDER, copy_of, without_derived  # noqa: E402
from bench.bench_validate import one_episode, shelf_for  # noqa: E402
from bench.measure import RUN_ENV, chain, load, once, ratio, rounds, summary  # noqa: E402
from bench.shapes import SHAPES  # noqa: E402
from tests.refs import NO_STALENESS_HOURS, ref_python  # noqa: E402

BOT = str(Path(sys.executable).with_name("memshelf-bot"))
SENTENCE = "One more line for the cache benchmark, about the runtime.\n"
BODY_SENTENCE = "\nA closing remark for the cache benchmark.\n"


def toggle(path: Path, *, digest: bool = True) -> None:
    """Add a sentence to the episode's Digest (or, with `digest=False`, at its end, where no
    row value changes), or take it out again."""
    text = path.read_text(encoding="utf-8")
    sentence = SENTENCE if digest else BODY_SENTENCE
    if sentence in text:
        text = text.replace(sentence, "", 1)
    elif digest:
        text = text.replace("## Digest\n", "## Digest\n" + sentence, 1)
    else:
        text = text + sentence
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=["generated"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--skip-validate", action="store_true", help="only the render rows")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    py = ref_python()
    memshelf = str(py.parent / "memshelf")
    doctor = [memshelf, "doctor", "--derived-stale-hours", str(NO_STALENESS_HOURS), "--shelf"]
    spec = [str(py.parent / "shelf-spec"), "validate", "--json"]
    cache_dir = args.out / "episode-cache"
    env = dict(RUN_ENV, MEMSHELF_BOT_CACHE_DIR=str(cache_dir))
    rows, loads = [], [load()]
    for size in args.sizes:
        for shape in args.shapes:
            shutil.rmtree(cache_dir, ignore_errors=True)
            source = shelf_for(args.out, shape, size, args.seed)
            ours_dir = copy_of(source, args.out / f"cache-ours-{shape}-{size}")
            refs_dir = copy_of(source, args.out / f"cache-ref-{shape}-{size}")
            episode = ours_dir / one_episode(ours_dir)
            once([BOT, "render", str(ours_dir)], env=env)  # fills the cache (rows)
            once([BOT, "validate", str(ours_dir), "--format", "json"], env=env)  # (findings)

            def validate_warm(d=ours_dir):
                return once([BOT, "validate", str(d), "--format", "json"], env=env)

            def validate_refs(d=refs_dir):
                return chain([[*doctor, str(d)], [*spec, str(d)]])

            def render_changed(d=ours_dir, ep=episode):
                toggle(ep)
                return once([BOT, "render", str(d)], env=env)

            def render_body_changed(d=ours_dir, ep=episode):
                toggle(ep, digest=False)
                return once([BOT, "render", str(d)], env=env)

            def render_refs(d=refs_dir):
                without_derived(d)
                return chain([[memshelf, "rebuild", "--shelf", str(d)], [str(py), "-c", ARCHIVE_RENDER, str(d)]])

            v_ours, v_refs = rounds([validate_warm, validate_refs], 0 if args.skip_validate else args.repeat)
            r_ours, b_ours, r_refs = rounds([render_changed, render_body_changed, render_refs], args.repeat)
            check = once([BOT, "render", str(ours_dir), "--check", "--no-cache"], env=env)
            assert check.code == 0, "the cached renders wrote other bytes than an uncached render"
            ro, bo, rr = map(summary, (r_ours, b_ours, r_refs))
            vo, vr = map(summary, (v_ours, v_refs)) if v_ours else (None, None)  # --skip-validate
            loads.append(load())
            rows.append({"shape": shape, "episodes": size,
                         "validate_warm_s": vo and vo.wall, "validate_warm_cpu_s": vo and vo.cpu,
                         "validate_refs_s": vr and vr.wall,
                         "validate_ratio": ratio(v_ours, v_refs) if v_ours else None,
                         "validate_cpu_ratio": ratio(v_ours, v_refs, "cpu") if v_ours else None,
                         "render_body_s": bo.wall, "render_body_ratio": ratio(b_ours, r_refs),
                         "render_one_s": ro.wall, "render_one_cpu_s": ro.cpu, "render_refs_s": rr.wall,
                         "render_ratio": ratio(r_ours, r_refs), "render_cpu_ratio": ratio(r_ours, r_refs, "cpu"),
                         "load": loads[-1]})
            r = rows[-1]
            warm = (f"warm validate {vo.wall:.2f}s vs {vr.wall:.2f}s ({r['validate_ratio']:.1f}x); "
                    if vo and vr else "")
            print(f"{shape} {size}: {warm}render after one change {ro.wall:.2f}s vs {rr.wall:.2f}s ({r['render_ratio']:.2f}x), "
                  f"a change the chart does not see {bo.wall:.2f}s ({r['render_body_ratio']:.2f}x) "
                  f"(load {loads[-1]})", file=sys.stderr)
            for d in (ours_dir, refs_dir):
                shutil.rmtree(d)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "loads": loads, "rows": rows}
    (args.out / "cache.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"load average (1/5/15 min) from {loads[0]} to {loads[-1]}\n")
    print("| shape | episodes | warm validate wall / CPU | doctor + shelf-spec | ratio wall | ratio CPU | "
          "render, one change, wall / CPU | rebuild + archive | ratio wall | ratio CPU | "
          "render, change outside the chart's data | ratio wall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        warm = (f"{r['validate_warm_s']:.2f} / {r['validate_warm_cpu_s']:.2f} s | {r['validate_refs_s']:.2f} s | "
                f"{r['validate_ratio']:.1f}× | {r['validate_cpu_ratio']:.1f}×" if r["validate_ratio"] is not None
                else "— | — | — | —")
        print(f"| {r['shape']} | {r['episodes']:,} | {warm} | "
              f"{r['render_one_s']:.2f} / {r['render_one_cpu_s']:.2f} s | {r['render_refs_s']:.2f} s | "
              f"{r['render_ratio']:.2f}× | {r['render_cpu_ratio']:.2f}× | {r['render_body_s']:.2f} s | "
              f"{r['render_body_ratio']:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
