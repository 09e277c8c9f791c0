"""The console's in-memory hour of metrics (app/metrics_history.py), read from the registry /metrics serves."""

from __future__ import annotations

import math

from app import metrics
from app.metrics_history import RECENT_BATCHES, MetricsHistory
from app.services.search import resolve_caller, search
from app.worker import Worker
from tests.support import employee, task


def test_a_sample_holds_queue_depth_and_the_searches_since_the_previous_one(sqlite_engine, sqlite_settings):
    boss = employee(sqlite_engine, "Mia", "Boss", role="MANAGER")
    for i in range(3):
        task(sqlite_engine, f"Login bug {i}", assignee_id=boss)
    registry = metrics.registry_for(sqlite_engine, sqlite_settings.max_attempts)
    history = MetricsHistory(registry, interval_s=60)
    history.sample(now=1000.0)  # the baseline: searches before it are not this interval's
    caller = resolve_caller(sqlite_engine, boss)
    timings = [search(sqlite_engine, "login", caller, 3) for _ in range(4)]
    point = history.sample(now=1060.0)
    assert point.pending == sqlite_engine.status(5).pending == 3  # the three tasks wait for the worker
    assert point.searches == 4 and point.at == 1060.0
    slowest_ms = max(t.embed_ms + t.search_ms for t in timings)
    assert 0 < point.search_mean_ms <= slowest_ms * 1.5 + 5  # the histogram times a little more than the parts
    assert point.search_p95_ms >= point.search_mean_ms or math.isinf(point.search_p95_ms)
    quiet = history.sample(now=1120.0)
    assert (quiet.searches, quiet.search_mean_ms, quiet.search_p95_ms) == (0, None, None)


def test_only_the_last_hour_is_kept(sqlite_engine, sqlite_settings):
    history = MetricsHistory(metrics.registry_for(sqlite_engine, 5), interval_s=600)
    for minute in range(0, 200, 10):
        history.sample(now=minute * 60.0)
    kept = [s.at / 60 for s in history.samples()]
    assert kept == [130, 140, 150, 160, 170, 180, 190]  # 3600 / 600 + 1 points


def test_the_worker_records_each_batch_it_runs(sqlite_engine, sqlite_settings):
    RECENT_BATCHES.clear()
    task(sqlite_engine, "Index me")
    Worker(sqlite_engine, sqlite_settings).run_once()
    (batch,) = RECENT_BATCHES
    assert batch.claimed == 1 and batch.chunks_written == 1 and batch.failed == 0 and batch.seconds > 0
