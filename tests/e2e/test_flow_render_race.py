"""Many render flows at once against one repository while merges keep landing.

Twelve `memshelf-bot action` processes render main concurrently: six after the first merge, two
after each of three more. Each later merge lands as soon as some flow has written its render
commit and is about to move main, so merges really do land between the flows' reads and writes.
Compare-and-swap ref updates decide every race; a loser re-reads main and renders again.
Afterwards: main is a fixed point of render over every episode, no episode was lost, no render
commit is empty or follows another render commit, and every lost race the sandbox answered (422)
is one the flows reported.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from github import GithubException

from memshelf_render.derived import is_derived
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox.actionrun import StepResult
from tests import action_harness
from tests.action_harness import Harness, episode
from tests.sandbox_fixtures import push_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

MERGES = 4
FIRST_WAVE = 6
PER_MERGE = 2
MESSAGE = "memshelf-bot: render derived files [skip ci]"


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Block until `condition` holds (an event in the sandbox), failing after a generous bound."""
    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def merge_with_retry(h: Harness, number: int) -> tuple[str, str]:
    """Merge as a maintainer would: if a render landed meanwhile (409), just press merge again."""
    while True:
        try:
            return h.merge(number)
        except GithubException as exc:
            assert exc.status == 409, exc


def test_concurrent_render_flows_while_merges_land(harness: Harness) -> None:
    sb = harness.sb
    start = sb.store.ref("refs/heads/main")
    assert start
    flows = FIRST_WAVE + (MERGES - 1) * PER_MERGE
    workspaces = [harness.workspace(start) for _ in range(flows)]
    stems = [f"2026-10-0{i + 1}-merge-{i}" for i in range(MERGES)]
    results: list[Future[StepResult]] = []

    def commits_written() -> int:
        return sum(c.method == "POST" and c.path.endswith("/git/commits") for c in sb.calls)

    with ThreadPoolExecutor(max_workers=flows) as pool:
        def launch(before: str, after: str, count: int) -> None:
            for _ in range(count):
                payload = push_event(sb, "refs/heads/main", before, after, pusher="octo")
                results.append(pool.submit(harness.step, "push", payload, workspaces[len(results)]))

        written = 0
        for i, stem in enumerate(stems):
            if i:  # land the next merge while a flow holds a render commit it has not pushed yet
                wait_for(lambda seen=written: commits_written() > seen, f"a render commit after merge {i}")
            number = harness.open_pr(f"shelve/merge-{i}", {f"docs/topics/{stem}.md": episode(stem, title=f"M{i}")})
            written = commits_written()
            before, after = merge_with_retry(harness, number)
            launch(before, after, FIRST_WAVE if i == 0 else PER_MERGE)
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
