"""The one executor: shares, order, errors and dead workers (`memshelf_render.parallel`)."""

from __future__ import annotations

import os

import pytest

from memshelf_render import parallel


def _tagged(state: str, items: list[int]) -> list[tuple[str, int, int]]:
    return [(state, item, os.getpid()) for item in items]


def test_results_come_back_in_the_order_of_the_items_with_share_0_here() -> None:
    out = parallel.map_items(_tagged, list(range(11)), state="s", jobs=3)
    assert [(state, item) for state, item, _ in out] == [("s", i) for i in range(11)]
    pids = {item % 3: pid for _, item, pid in out}
    assert pids[0] == os.getpid()  # share 0 ran in the caller's process
    assert len({pids[0], pids[1], pids[2]}) == 3  # shares 1 and 2 on two forked workers


def _fails_in_a_worker(parent: int, items: list[int]) -> list[int]:
    if os.getpid() != parent:
        raise ValueError(f"bad item {items[0]}")
    return items


def test_a_workers_exception_is_raised_in_the_caller() -> None:
    with pytest.raises(ValueError, match="bad item 1"):
        parallel.map_items(_fails_in_a_worker, [0, 1, 2, 3], state=os.getpid(), jobs=2)


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("cannot pickle this")


def _fails_unpicklably(parent: int, items: list[int]) -> list[int]:
    if os.getpid() != parent:
        raise _Unpicklable("the worker's own words")
    return items


def test_an_exception_that_does_not_pickle_still_says_what_it_was() -> None:
    with pytest.raises(RuntimeError, match="cannot pickle this"):
        parallel.map_items(_fails_unpicklably, [0, 1, 2, 3], state=os.getpid(), jobs=2)


def _dies_in_a_worker(parent: int, items: list[int]) -> list[int]:
    if os.getpid() != parent:
        os._exit(3)
    return items


def test_a_worker_that_dies_is_an_error_not_a_hang() -> None:
    with pytest.raises(ChildProcessError):
        parallel.map_items(_dies_in_a_worker, [0, 1, 2, 3], state=os.getpid(), jobs=2)


def _sleeps(_: None, items: list[int]) -> list[int]:
    import time

    time.sleep(30)
    return items


def test_cancel_kills_and_reaps_the_workers() -> None:
    pending = parallel.start(_sleeps, [0, 1, 2], state=None, jobs=3)
    pids = [pid for pid, _ in pending._workers]
    pending.cancel()
    for pid in pids:
        with pytest.raises(ChildProcessError):  # reaped: no such child any more
            os.waitpid(pid, os.WNOHANG)


def test_a_handed_fraction_of_share_0_runs_on_the_first_worker() -> None:
    out = parallel.start(_tagged, list(range(40)), state="s", jobs=2, handed=0.25).result()
    assert [item for _, item, _ in out] == list(range(40))
    here = [item for _, item, pid in out if pid == os.getpid()]
    assert here == list(range(0, 30, 2))  # 15 of share 0's 20; its last 5 went to the worker


def test_validate_reaps_its_workers_when_a_shelf_check_fails(tmp_path, monkeypatch) -> None:
    """An exception while the episode workers run (here in a derived-file check) stops and reaps
    them: a long-lived App process must not collect zombies."""
    from memshelf_render import validate
    from memshelf_render.rules import consistency
    from tests.shelfgen import generate_shelf

    root = tmp_path / "s"
    generate_shelf(root, seed=3, episodes=12, archive=2)
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 1)
    monkeypatch.setenv("MEMSHELF_BOT_JOBS", "2")
    started: list[parallel.Pending] = []
    real_start = parallel.start

    def recording_start(*args, **kwargs):
        started.append(real_start(*args, **kwargs))
        return started[-1]

    def broken(*args):
        raise RuntimeError("a broken check")

    monkeypatch.setattr(parallel, "start", recording_start)
    monkeypatch.setattr(consistency, "index_checks", broken)
    with pytest.raises(RuntimeError, match="a broken check"):
        validate.run(root)
    assert started and started[0]._workers == []  # stopped and reaped
