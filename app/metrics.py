"""Prometheus metrics: the counters and histograms the service and worker layers record, and a
scrape-time collector for the queue and chunk gauges (one ``engine.status()`` per scrape, cached).

The metric objects are process-wide and registered in no global registry; ``registry_for`` puts them
with one engine's status collector into the registry that ``GET /metrics`` serves. Engines record
nothing themselves (services and the worker do), except where noted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily, Metric

from app.domain import SOURCE_TYPES
from app.engines.base import Engine

disable_created_metrics()  # no *_created series: Prometheus does not need them and they double the output

STATUS_TTL_S = 5.0  # scrapes closer together than this reuse the last status: a scraper cannot load the DB

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_BATCH_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)

DRAIN_BATCHES = Counter(
    "rag_drain_batches", "Indexing batches that claimed queue rows, by outcome (indexed or failed).",
    ["outcome"], registry=None)
DRAIN_BATCH_SECONDS = Histogram(
    "rag_drain_batch_duration_seconds", "Wall time of one indexing batch (claim, embed, write).",
    buckets=_BATCH_BUCKETS, registry=None)
DRAIN_RUNS_COALESCED = Counter(
    "rag_drain_runs_coalesced", "Scheduled drain runs that found a run in progress and were folded into it.",
    registry=None)
SEARCH_SECONDS = Histogram(
    "rag_search_duration_seconds", "Search latency (embed the question, then the scoped query), by mode.",
    ["mode"], buckets=_LATENCY_BUCKETS, registry=None)
LLM_CALLS = Counter("rag_llm_calls", "Chat-completion calls made to the configured LLM.", registry=None)
LLM_ERRORS = Counter(
    "rag_llm_errors", "Chat-completion calls that failed, by reason (timeout, unreachable, http_status, "
    "bad_reply, empty).", ["reason"], registry=None)
# The change itself happens in database triggers, for any client; this counts the API's own writes.
ACCESS_REVOCATIONS = Counter(
    "rag_access_revocations", "API writes that changed who may see chunks (a task reassigned, a document "
    "re-owned, a source or employee deleted), applied in the writer's own transaction.", registry=None)
# REVIEW-4 W1: a hybrid search whose lexical arm failed answers from vectors alone; never silently.
LEXICAL_ARM_DROPPED = Counter(
    "rag_lexical_arm_dropped", "Hybrid searches answered from vectors alone because the lexical arm failed, by "
    "reason (timeout: the call timeout cut it; unavailable: another not-now fault; error: the text index).",
    ["reason"], registry=None)

LLM_ERROR_REASONS = ("timeout", "unreachable", "http_status", "bad_reply", "empty")
LEXICAL_DROP_REASONS = ("timeout", "unavailable", "error")
_RECORDED = (DRAIN_BATCHES, DRAIN_BATCH_SECONDS, DRAIN_RUNS_COALESCED, SEARCH_SECONDS, LLM_CALLS, LLM_ERRORS,
             ACCESS_REVOCATIONS, LEXICAL_ARM_DROPPED)

# Labelled series appear at 0 from the first scrape, so rate() and alerts work before the first event.
for _outcome in ("indexed", "failed"):
    DRAIN_BATCHES.labels(_outcome)
for _mode in ("hybrid", "vector"):
    SEARCH_SECONDS.labels(_mode)
for _reason in LLM_ERROR_REASONS:
    LLM_ERRORS.labels(_reason)
for _reason in LEXICAL_DROP_REASONS:
    LEXICAL_ARM_DROPPED.labels(_reason)


class StatusCollector:
    """Queue and chunk gauges read at scrape time from ``engine.status()``, at most once per STATUS_TTL_S."""

    def __init__(self, engine: Engine, max_attempts: int, ttl_s: float = STATUS_TTL_S) -> None:
        self._engine, self._max_attempts, self._ttl_s = engine, max_attempts, ttl_s
        self._lock = threading.Lock()  # concurrent scrapes wait for one query instead of each running it
        self._cached: tuple[float, list[Metric]] | None = None

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            if self._cached is None or time.monotonic() - self._cached[0] >= self._ttl_s:
                self._cached = (time.monotonic(), self._read())
            yield from self._cached[1]

    def _read(self) -> list[Metric]:
        up = GaugeMetricFamily("rag_database_up", "1 when the last status query answered, else 0.")
        try:
            status = self._engine.status(self._max_attempts)
        except Exception:  # noqa: BLE001 - a scrape must not fail: rag_database_up says why it is empty
            up.add_metric([], 0)
            return [up]
        up.add_metric([], 1)
        chunks = GaugeMetricFamily("rag_chunks", "Indexed chunks, by source type.", labels=["source_type"])
        for source_type in SOURCE_TYPES:
            chunks.add_metric([source_type], status.chunks_by_source_type.get(source_type, 0))
        return [
            up,
            GaugeMetricFamily("rag_queue_pending", "Entities waiting to be indexed (distinct source type and id in "
                              "RAG_DIRTY).", value=status.pending),
            GaugeMetricFamily("rag_queue_rows", "Rows in RAG_DIRTY (an entity changed twice before a drain has two).",
                              value=status.queue_rows),
            GaugeMetricFamily("rag_queue_oldest_pending_age_seconds", "Age of the oldest queued row (0 when empty).",
                              value=status.oldest_pending_age_s or 0.0),
            GaugeMetricFamily("rag_queue_failing_rows", "Queued rows that failed at least once.", value=status.failing),
            GaugeMetricFamily("rag_queue_stuck_rows", "Queued rows past RAG_MAX_ATTEMPTS (`ragctl retry`).",
                              value=status.stuck),
            chunks,
        ]


def registry_for(engine: Engine, max_attempts: int) -> CollectorRegistry:
    """What one app's /metrics serves: the process-wide metrics, this engine's status, the process."""
    registry = CollectorRegistry()
    for metric in _RECORDED:
        registry.register(metric)
    registry.register(StatusCollector(engine, max_attempts, STATUS_TTL_S))
    ProcessCollector(registry=registry)
    return registry
