"""Benchmark what the App downloads per job (a script, not a timed test).

    python bench/bench_app_fetch.py [--episodes 10000] [--seed 22]

A generated, rendered shelf of `--episodes` episodes is served by the sandbox (the App's
handshake, git smart HTTP counting the bytes it serves). Measured, each as git bytes served and
wall time of the whole job (token, API calls, git, the check or render, the check run), and
all the bytes the sandbox served for it (the REST API's answers too: the check reads the base's
INDEX, ledger and `.meta.json` through the API, as it always read the base's INDEX and ledger):

1. a full shallow clone of main (`git clone --depth=1 --no-checkout`), the reference;
2. the pull request check of one new episode through the App's door with a fresh clone (no data
   directory: what every job cost before the kept stores);
3. the first job of the repository with a data directory (its store and its cache are empty:
   it fetches the head's trees and the blobs the check reads);
4. the check of the next pull request (one new episode) on the kept store;
5. a render after a merge, then a render after the next merge, on the kept store.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.app.auth import InstallationTokens  # noqa: E402
from bot.app.config import load_config  # noqa: E402
from bot.app.door import run_route  # noqa: E402
from memshelf_render.render import render_shelf  # noqa: E402
from memshelf_render.shelf import load_shelf  # noqa: E402
from memshelf_sandbox import Sandbox, seed_bare_repo  # noqa: E402
from memshelf_sandbox.app import App  # noqa: E402
from tests.action_harness import episode  # noqa: E402
from tests.app_helpers import rsa_pem  # noqa: E402
from tests.e2e.test_app_fetch import APP_ID, BOT, SLUG, git_bytes, pull_route, push_route, shallow_clone_bytes  # noqa: E402
from tests.shelfgen import generate_shelf  # noqa: E402


def measured(sb: Sandbox, job: Callable[[], Any]) -> tuple[int, int, float]:
    """(git bytes served, all bytes served — the REST API's answers too —, wall) of one job."""
    before, served, start = len(sb.calls), sb.served, time.perf_counter()
    job()
    return git_bytes(sb, before), sb.served - served, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    rows: list[tuple[str, int, int, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-app-fetch-") as tmp:
        work = Path(tmp)
        start = time.perf_counter()
        seed = generate_shelf(work / "seed", seed=args.seed, episodes=args.episodes, archive=args.episodes // 20).root
        shelf, problems = load_shelf(seed)
        assert shelf is not None, problems
        render_shelf(shelf)
        seed_bare_repo(seed, work / "shelf.git")
        made = time.perf_counter() - start
        shelf_bytes = sum(p.stat().st_size for p in seed.rglob("*") if p.is_file())
        pem = rsa_pem()
        with Sandbox.start(work / "shelf.git", "octo/shelf",
                           app=App.from_private_key(APP_ID, pem.encode(), slug=SLUG)) as sb:
            config = load_config({"MEMSHELF_BOT_APP_ID": str(APP_ID), "MEMSHELF_BOT_PRIVATE_KEY": pem,
                                  "MEMSHELF_BOT_WEBHOOK_SECRET": "s"}, sb.api_url)
            tokens = InstallationTokens(config)
            installation = tokens.integration.get_repo_installation("octo", "shelf").id
            data = work / "data"

            def job(routed: Any, key: str, data_dir: Path | None) -> Callable[[], Any]:
                return lambda: run_route(routed, key=key, config=config, tokens=tokens, login=BOT, data_dir=data_dir)

            def new(stem: str) -> dict[str, str]:
                return {f"docs/topics/{stem}.md": episode(stem, title=stem)}

            start = time.perf_counter()
            full = shallow_clone_bytes(sb, work / "full")
            rows.append(("full shallow clone (git clone --depth=1 --no-checkout)", full, full,
                         time.perf_counter() - start))
            first = pull_route(sb, installation, "shelve/first", new("2030-01-01-first"))
            rows.append(("PR check, fresh clone (no data dir)", *measured(sb, job(first, "fresh", None))))
            rows.append(("PR check, first job of the store (cold)", *measured(sb, job(first, "cold", data))))
            second = pull_route(sb, installation, "shelve/second", new("2030-01-02-second"))
            rows.append(("PR check, next pull request (kept store)", *measured(sb, job(second, "warm", data))))
            merged = push_route(sb, installation, new("2030-01-03-merged"))
            rows.append(("render after a merge (kept store)", *measured(sb, job(merged, "render-1", data))))
            merged = push_route(sb, installation, new("2030-01-04-merged"))
            rows.append(("render after the next merge (kept store)", *measured(sb, job(merged, "render-2", data))))
    print(f"shelf: {args.episodes:,} episodes (+{args.episodes // 20:,} archived), {shelf_bytes / 1e6:.1f} MB "
          f"on disk, made in {made:.0f} s; {platform.machine()}, Python {platform.python_version()}")
    print("| job | git bytes served | share of a shallow clone | all bytes served (API too) | wall |\n"
          "|---|---:|---:|---:|---:|")
    for what, sent, served, wall in rows:
        print(f"| {what} | {sent:,} | {100 * sent / full:.2f} % | {served:,} | {wall:.1f} s |")
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "app_fetch.json").write_text(json.dumps({"episodes": args.episodes, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
