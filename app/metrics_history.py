"""The last hour of the service's own metrics, in memory, for the operator console's charts.

A sampler reads what GET /metrics serves (app.metrics: the queue gauge through the status collector, which
caches one status query for a few seconds, and the search-latency histogram) every RAG_CONSOLE_SAMPLE_S
and keeps one hour: the queue depth, and per interval the searches made, their mean latency and their
95th percentile (the upper bound of the histogram bucket that holds it: a histogram keeps no more). The
worker adds each indexing batch it runs to ``RECENT_BATCHES``. Nothing is stored: a restart starts a new
hour, and a worker in another process (``ragctl worker``) records its batches there, not here.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import deque
from dataclasses import dataclass

from fastapi.concurrency import run_in_threadpool
from prometheus_client import CollectorRegistry

log = logging.getLogger(__name__)

WINDOW_S = 3600.0
RECENT_BATCHES_KEPT = 20
_SEARCH = "rag_search_duration_seconds"


@dataclass(frozen=True)
class Sample:
    at: float  # unix seconds
    pending: int | None  # queue rows; None when the status query failed
    searches: int  # searches since the previous sample (every mode)
    search_mean_ms: float | None  # None when there was no search in the interval
    search_p95_ms: float | None  # the bucket bound holding the 95th percentile; inf past the last bucket


@dataclass(frozen=True)
class Batch:
    """One indexing batch that claimed queue rows (app.services.indexing.DrainResult, timed)."""

    at: float  # unix seconds, when it ended
    claimed: int
    chunks_written: int
    chunks_unchanged: int
    sources_deleted: int
    failed: int
    seconds: float
    error: str | None


# Process-wide, like the Prometheus metrics the worker records beside it.
RECENT_BATCHES: deque[Batch] = deque(maxlen=RECENT_BATCHES_KEPT)


def record_batch(result, seconds: float) -> None:
    """Called by the worker for each batch that claimed rows (``result`` is a DrainResult)."""
    RECENT_BATCHES.append(Batch(time.time(), result.claimed, result.chunks_written, result.chunks_unchanged,
                                result.sources_deleted, result.failed, seconds,
                                result.errors[-1] if result.errors else None))


@dataclass(frozen=True)
class _Histogram:
    count: float
    total: float
    buckets: tuple[tuple[float, float], ...]  # (upper bound, cumulative count), ascending


class MetricsHistory:
    def __init__(self, registry: CollectorRegistry, interval_s: float, window_s: float = WINDOW_S) -> None:
        self._registry = registry
        self._samples: deque[Sample] = deque(maxlen=max(2, int(window_s / interval_s) + 1))
        self._previous: _Histogram | None = None

    def samples(self) -> list[Sample]:
        return list(self._samples)

    def sample(self, now: float | None = None) -> Sample:
        """Read the registry once and keep one point (called by the sampler, and by tests)."""
        pending, histogram = self._read()
        before = self._previous or _Histogram(0.0, 0.0, tuple((le, 0.0) for le, _ in histogram.buckets))
        self._previous = histogram
        count = histogram.count - before.count
        point = Sample(
            at=time.time() if now is None else now,
            pending=pending,
            searches=int(count),
            search_mean_ms=(histogram.total - before.total) / count * 1000 if count > 0 else None,
            search_p95_ms=_p95_ms(histogram, before, count),
        )
        self._samples.append(point)
        return point

    def _read(self) -> tuple[int | None, _Histogram]:
        up, pending, count, total = 0.0, None, 0.0, 0.0
        buckets: dict[float, float] = {}
        for metric in self._registry.collect():
            for s in metric.samples:
                if s.name == "rag_database_up":
                    up = s.value
                elif s.name == "rag_queue_pending":
                    pending = int(s.value)
                elif s.name == f"{_SEARCH}_bucket":  # summed over the mode label
                    bound = float(s.labels["le"])
                    buckets[bound] = buckets.get(bound, 0.0) + s.value
                elif s.name == f"{_SEARCH}_count":
                    count += s.value
                elif s.name == f"{_SEARCH}_sum":
                    total += s.value
        return (pending if up else None), _Histogram(count, total, tuple(sorted(buckets.items())))


def _p95_ms(now: _Histogram, before: _Histogram, count: float) -> float | None:
    if count <= 0:
        return None
    earlier = dict(before.buckets)
    for bound, cumulative in now.buckets:
        if cumulative - earlier.get(bound, 0.0) >= 0.95 * count:
            return bound * 1000 if math.isfinite(bound) else math.inf
    return math.inf


async def run_sampler(history: MetricsHistory, interval_s: float) -> None:
    """Sample every ``interval_s`` until cancelled (the app's lifespan owns the task)."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await run_in_threadpool(history.sample)
        except Exception:  # noqa: BLE001 - a failed sample must not stop the next ones
            log.exception("metrics sample failed")
