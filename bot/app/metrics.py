"""Prometheus metrics kept in the shared store, so every serve replica and worker counts into
one place and any replica's `GET /metrics` shows the whole App. A metric write never fails a
request or a job: while the store is unreachable it is counted in this process, and `/metrics`
shows this process's counts with `memshelf_bot_queue_up 0`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from .store import Labels, Store

DELIVERIES = "memshelf_bot_deliveries"
JOBS = "memshelf_bot_jobs"
JOB_SECONDS = "memshelf_bot_job_duration_seconds"
API_CALLS = "memshelf_bot_github_api_calls"
RATE_REMAINING = "memshelf_bot_github_rate_limit_remaining"
QUEUE_DEPTH = "memshelf_bot_queue_depth"
QUEUE_UP = "memshelf_bot_queue_up"
BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
HELP = {
    DELIVERIES: "Webhook deliveries received, by event and outcome at the front door.",
    JOBS: "Jobs finished, by flow (what ran), event (what GitHub sent) and outcome.",
    API_CALLS: "Requests made to GitHub's REST API.",
    RATE_REMAINING: "GitHub's rate-limit remaining, as last reported, per installation.",
}
_local: dict[tuple[str, Labels], float] = {}  # what this process could not write to the store


def _count(store: Store, counts: list[tuple[str, Labels, float]]) -> None:
    try:
        store.add(counts)
    except Exception:  # the store is unreachable: keep them here
        for name, labels, amount in counts:
            _local[(name, labels)] = _local.get((name, labels), 0.0) + amount


def count_delivery(store: Store, event: str, outcome: str) -> None:
    _count(store, [(DELIVERIES, (("event", event), ("outcome", outcome)), 1.0)])


def observe_job(store: Store, flow: str, event: str, outcome: str, seconds: float) -> None:
    counts = [(JOBS, (("event", event), ("flow", flow), ("outcome", outcome)), 1.0)]
    counts += [(f"{JOB_SECONDS}_bucket", (("flow", flow), ("le", repr(bound))), 1.0) for bound in BUCKETS
               if seconds <= bound]
    counts += [(f"{JOB_SECONDS}_count", (("flow", flow),), 1.0), (f"{JOB_SECONDS}_sum", (("flow", flow),), seconds)]
    _count(store, counts)


def count_api_calls(store: Store, installation: int, calls: int, remaining: int | None) -> None:
    labels = (("installation", str(installation)),)
    if calls:
        _count(store, [(API_CALLS, labels, float(calls))])
    if remaining is not None:
        try:
            store.set_gauge(RATE_REMAINING, labels, remaining)
        except Exception:  # the store is unreachable: keep it here
            _local[(RATE_REMAINING, labels)] = remaining


def _histograms(samples: dict[str, dict[Labels, float]]) -> Iterator[Metric]:
    family = HistogramMetricFamily(JOB_SECONDS, "Job durations, by flow.", labels=["flow"])
    for labels, count in samples.get(f"{JOB_SECONDS}_count", {}).items():
        flow = dict(labels)["flow"]
        buckets = {dict(lb)["le"]: v for lb, v in samples.get(f"{JOB_SECONDS}_bucket", {}).items()
                   if dict(lb)["flow"] == flow}
        family.add_metric([flow], [(repr(b), buckets.get(repr(b), 0.0)) for b in BUCKETS] + [("+Inf", count)],
                          sum_value=samples.get(f"{JOB_SECONDS}_sum", {}).get(labels, 0.0))
    yield family


class StoreCollector(Collector):
    def __init__(self, store: Store, queue_depth: Callable[[], int]) -> None:
        self.store = store
        self.queue_depth = queue_depth

    def _samples(self) -> tuple[Sequence[tuple[str, Labels, float]], int | None]:
        """The cluster's samples and queue depth, or this process's and None when unreachable."""
        try:
            return self.store.samples(), self.queue_depth()
        except Exception:  # the store or the queue is down (its own error type)
            return [(name, labels, value) for (name, labels), value in _local.items()], None

    def collect(self) -> Iterator[Metric]:
        samples, depth = self._samples()
        by_name: dict[str, dict[Labels, float]] = defaultdict(dict)
        for name, labels, value in samples:
            by_name[name][labels] = value
        for name, doc in HELP.items():
            labelled = by_name.get(name, {})
            names = [k for k, _ in next(iter(labelled), ())]
            family = (GaugeMetricFamily if name == RATE_REMAINING else CounterMetricFamily)(name, doc, labels=names)
            for labels, value in labelled.items():
                family.add_metric([v for _, v in labels], value)
            yield family
        yield from _histograms(by_name)
        yield GaugeMetricFamily(QUEUE_UP, "1 when the queue and the store answer, 0 when they do not.",
                                value=0 if depth is None else 1)
        if depth is not None:
            yield GaugeMetricFamily(QUEUE_DEPTH, "Jobs waiting in the queue.", value=depth)


def exposition(store: Store, queue_depth: Callable[[], int]) -> bytes:
    """The Prometheus text format of every metric in the store (or this process's, when down)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(store, queue_depth))
    return generate_latest(registry)
