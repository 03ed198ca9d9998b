"""Many render flows at once against one repository while merges keep landing.

Twelve `memshelf-bot action` processes render main concurrently (four at the start, two after
each of four merges). Compare-and-swap ref updates decide every race; a loser re-reads main and
renders again. Afterwards: main is a fixed point of render over every episode, no episode was
lost, no render commit is empty or follows another render commit, and every lost race the
sandbox answered (422) is one the flows reported.
"""

from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor

import pytest
from github import GithubException

from bot.actionrun import StepResult
from memshelf_render.derived import is_derived
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from tests import action_harness
from tests.action_harness import Harness, episode
from tests.sandbox_fixtures import push_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

MERGES = 4
FIRST_WAVE = 4
PER_MERGE = 2
MESSAGE = "memshelf-bot: render derived files [skip ci]"


def merge_with_retry(h: Harness, number: int) -> tuple[str, str]:
    """Merge as a maintainer would: if a render landed meanwhile (409), just press merge again."""
    while True:
        try:
            return h.merge(number)
        except GithubException as exc:
            assert exc.status == 409, exc


@pytest.mark.slow
def test_concurrent_render_flows_while_merges_land(harness: Harness) -> None:
    sb = harness.sb
    start = sb.store.ref("refs/heads/main")
    assert start
    flows = FIRST_WAVE + MERGES * PER_MERGE
    workspaces = [harness.workspace(start) for _ in range(flows)]
    stems = [f"2026-10-0{i + 1}-merge-{i}" for i in range(MERGES)]
    results: list[Future[StepResult]] = []

    with ThreadPoolExecutor(max_workers=flows) as pool:
        def launch(before: str, after: str) -> None:
            payload = push_event(sb, "refs/heads/main", before, after, pusher="octo")
            results.append(pool.submit(harness.step, "push", payload, workspaces[len(results)]))

        for _ in range(FIRST_WAVE):
            launch(start, start)
        for i, stem in enumerate(stems):
            number = harness.open_pr(f"shelve/merge-{i}", {f"docs/topics/{stem}.md": episode(stem, title=f"M{i}")})
            before, after = merge_with_retry(harness, number)
            for _ in range(PER_MERGE):
                launch(before, after)
        done = [f.result() for f in results]

    assert [r.exit_code for r in done] == [0] * flows, [r.stdout[-800:] for r in done if r.exit_code]
    main = sb.store.ref("refs/heads/main")
    assert main

    # final main = render(all episodes): every episode is there and rendering changes nothing
    checkout = harness.workspace(main)
    shelf, _ = load_shelf(checkout)
    assert shelf is not None and render_shelf(shelf, check=True).drifted == []
    ledger = harness.show(main, "ledger.tsv")
    for stem in [*stems, "2026-09-16-tower-rack-case", "2026-09-20-zfs-recordsize", "2026-09-21-night-shift-backups"]:
        assert f"\t{stem}\t" in ledger, stem

    # render commits on main: each changes only derived files, none follows another
    renders = []
    sha = main
    while sha != start:
        info = sb.store.commit(sha)
        if info.author.name == "github-actions[bot]":
            assert info.message == MESSAGE
            changed = [c.filename for c in sb.store.diff(info.parents[0], sha)]
            assert changed and all(is_derived(p, shelf) for p in changed), changed
            assert sb.store.commit(info.parents[0]).author.name != "github-actions[bot]", "a render of a render"
            renders.append(sha)
        sha = info.parents[0]
    assert 1 <= len(renders) <= MERGES

    # every retry accounted for: each 422 the sandbox sent is a lost race a flow reported
    patches = [c.status for c in sb.calls if c.method == "PATCH" and c.path.endswith("/git/refs/heads/main")]
    reported = sum(len(re.findall(r"moved while rendering \(lost race \d+\)", r.stdout)) for r in done)
    assert patches.count(422) == reported
    committed = [r.outputs["commit_sha"] for r in done if r.outputs["commit_sha"]]
    assert patches.count(200) == len(committed)
    # flows that rendered the same main in the same second wrote the very same commit object:
    # both report it, and main holds it once
    assert set(committed) == set(renders)
    summaries_lost = sum(int(m.group(1)) for r in done
                         for m in re.finditer(r"Lost the race for `main` (\d+) times?", r.summary))
    assert summaries_lost == reported
