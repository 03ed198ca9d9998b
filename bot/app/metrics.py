"""Prometheus metrics kept in the shared store, so every serve replica and worker counts into
one place and any replica's `GET /metrics` shows the whole App (no per-process registries)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator

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
BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
HELP = {
    DELIVERIES: "Webhook deliveries received, by event and outcome at the front door.",
    JOBS: "Jobs finished, by flow and outcome.",
    API_CALLS: "Requests made to GitHub's REST API.",
    RATE_REMAINING: "GitHub's rate-limit remaining, as last reported, per installation.",
}


def count_delivery(store: Store, event: str, outcome: str) -> None:
    store.add(DELIVERIES, (("event", event), ("outcome", outcome)))


def observe_job(store: Store, flow: str, outcome: str, seconds: float) -> None:
    store.add(JOBS, (("flow", flow), ("outcome", outcome)))
    for bound in BUCKETS:
        if seconds <= bound:
            store.add(f"{JOB_SECONDS}_bucket", (("flow", flow), ("le", repr(bound))))
    store.add(f"{JOB_SECONDS}_count", (("flow", flow),))
    store.add(f"{JOB_SECONDS}_sum", (("flow", flow),), seconds)


def count_api_calls(store: Store, installation: int, calls: int, remaining: int | None) -> None:
    if calls:
        store.add(API_CALLS, (("installation", str(installation)),), calls)
    if remaining is not None:
        store.set_gauge(RATE_REMAINING, (("installation", str(installation)),), remaining)


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

    def collect(self) -> Iterator[Metric]:
        by_name: dict[str, dict[Labels, float]] = defaultdict(dict)
        for sample in self.store.samples():
            by_name[sample.name][sample.labels] = sample.value
        for name, doc in HELP.items():
            labelled = by_name.get(name, {})
            names = [k for k, _ in next(iter(labelled), ())]
            family = (GaugeMetricFamily if name == RATE_REMAINING else CounterMetricFamily)(name, doc, labels=names)
            for labels, value in labelled.items():
                family.add_metric([v for _, v in labels], value)
            yield family
        yield from _histograms(by_name)
        yield GaugeMetricFamily(QUEUE_DEPTH, "Jobs waiting in the queue.", value=self.queue_depth())


def exposition(store: Store, queue_depth: Callable[[], int]) -> bytes:
    """The Prometheus text format of every metric in the store."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(store, queue_depth))
    return generate_latest(registry)
