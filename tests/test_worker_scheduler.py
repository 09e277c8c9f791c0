"""The APScheduler wiring: initial delay, nudges, failures kept queued and logged, startup backfill."""

from __future__ import annotations

import logging
import time

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.config import Settings
from app.embedding import EmbeddingError
from app.worker import MAX_INSTANCES, Worker
from tests.support import drain_all, employee, task

AUTH = {"Authorization": "Bearer test-token"}
NEVER_MS = 600_000  # the scheduled ticks are out of reach: only a nudge can run the job in time


def wait_for(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


class FlakyEmbedder:
    """The real MiniLM, except while ``failing`` is set (no database is faked)."""

    def __init__(self, inner):
        self.inner, self.failing, self.calls = inner, True, 0
        self.model_name, self.dimensions = inner.model_name, inner.dimensions

    def embed(self, texts):
        self.calls += 1
        if self.failing:
            raise EmbeddingError("model server is down")
        return self.inner.embed(texts)

    def count_tokens(self, text):
        return self.inner.count_tokens(text)


def test_nudge_makes_an_api_write_searchable_before_the_next_tick(sqlite_settings, sqlite_engine):
    settings = sqlite_settings.model_copy(update={"run_worker": True, "backfill_on_startup": False,
                                                  "worker_initial_delay_ms": NEVER_MS, "worker_delay_ms": NEVER_MS})
    with TestClient(create_app(settings, engine=sqlite_engine)) as c:
        boss = c.post("/api/v1/employees", json={"first_name": "Maria", "last_name": "Lopez",
                                                  "email": "maria@example.com", "role": "MANAGER"}, headers=AUTH).json()
        created = c.post("/api/v1/tasks", json={"title": "Rotate the payment gateway certificates"}, headers=AUTH)
        assert created.status_code == 201
        task_id = created.json()["task_id"]

        def found():
            hits = c.post("/api/v1/search", json={"question": "gateway certificates", "employee_id": boss["employee_id"],
                                                  "source_types": ["task"]}, headers=AUTH).json()["results"]
            return any(h["source_id"] == task_id for h in hits)

        assert wait_for(found), "the nudged drain did not index the new task"
        assert c.get("/api/v1/rag/status", headers=AUTH).json()["pending"] == 0


def test_first_run_waits_for_the_initial_delay(sqlite_settings, sqlite_engine):
    task(sqlite_engine, "Queued before the worker starts")
    settings = sqlite_settings.model_copy(update={"worker_initial_delay_ms": 700, "worker_delay_ms": NEVER_MS})
    worker = Worker(sqlite_engine, settings)
    worker.start()
    try:
        assert sqlite_engine.status(5).pending == 1  # nothing ran yet
        assert wait_for(lambda: sqlite_engine.status(5).pending == 0)
        job = worker._scheduler.get_job("rag-drain")
        # Fixed delay: the successor is due a whole delay after this run ended, not at a fixed rate.
        assert wait_for(lambda: (job := worker._scheduler.get_job("rag-drain")) and
                        job.next_run_time.timestamp() > time.time() + NEVER_MS / 1000 - 60)
        # Overlap is excluded by the job itself (see Worker._job), not by APScheduler's skip.
        assert job.max_instances == MAX_INSTANCES and job.coalesce is True
        assert job.trigger.interval.total_seconds() == NEVER_MS / 1000
    finally:
        worker.stop()
    assert not worker.started


def test_failing_embedder_keeps_rows_queued_then_they_drain(tmp_path, embedder, caplog):
    from app.engines.sqlite.engine import SQLiteEngine

    settings = Settings(database_url=f"sqlite:///{tmp_path}/flaky.db", api_tokens="test-token",
                        retry_backoff_ms=1000)
    flaky = FlakyEmbedder(embedder)
    engine = SQLiteEngine.open(settings, embedder=flaky)
    try:
        engine.migrate()
        dev = employee(engine, "Ana", "Garcia")
        task(engine, "Index me when the model is back", assignee_id=dev)
        worker = Worker(engine, settings)
        with caplog.at_level(logging.WARNING):
            result = worker.run_once()
        assert result.failed == result.claimed > 0 and "model server is down" in result.errors[0]
        status = engine.status(settings.max_attempts)
        assert status.pending == result.claimed and status.failing == result.claimed
        assert "model server is down" in status.failing_rows[0].last_error
        flaky.failing = False
        assert worker.run_once().claimed == 0  # the failed rows wait out their backoff first
        time.sleep(1.2)
        assert worker.run_once().failed == 0
        status = engine.status(settings.max_attempts)
        assert status.pending == 0 and status.chunks_by_source_type.get("task") == 1
    finally:
        engine.close()


def test_a_failing_job_is_logged_not_swallowed(tmp_path, embedder, caplog):
    from app.engines.sqlite.engine import SQLiteEngine

    settings = Settings(database_url=f"sqlite:///{tmp_path}/broken.db", worker_initial_delay_ms=0,
                        worker_delay_ms=NEVER_MS)
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    engine.conn.execute("DROP TABLE RAG_DIRTY")  # migrated, then broken: claiming itself fails
    worker = Worker(engine, settings)
    try:
        with caplog.at_level(logging.ERROR, logger="app.worker"):
            worker.start()
            assert wait_for(lambda: worker.last_error is not None)
        assert any(r.message.startswith("drain job failed") and r.exc_info for r in caplog.records)
        # and the job is still scheduled for its next run
        assert worker._scheduler.get_job("rag-drain").next_run_time is not None
    finally:
        worker.stop()
        engine.close()


def test_startup_backfill_queues_rows_without_chunks(sqlite_settings, sqlite_engine):
    task(sqlite_engine, "Written while the queue was lost")
    with sqlite_engine.indexing() as tx:  # lose the queue rows the triggers wrote
        tx.delete_dirty([row.dirty_id for row in tx.claim(100, 100)])
    assert sqlite_engine.status(5).pending == 0
    settings = sqlite_settings.model_copy(update={"run_worker": False, "backfill_on_startup": True})
    with TestClient(create_app(settings, engine=sqlite_engine)) as c:
        assert c.get("/api/v1/rag/status", headers=AUTH).json()["pending"] == 1
    assert drain_all(sqlite_engine).chunks_written == 1


def test_run_once_and_nudge_on_a_stopped_worker(sqlite_settings, sqlite_engine):
    worker = Worker(sqlite_engine, sqlite_settings)
    worker.nudge()  # not started: a no-op, not an error
    task(sqlite_engine, "Drain me synchronously")
    assert worker.run_once().chunks_written == 1
    with pytest.raises(RuntimeError):
        worker.start()
        worker.start()
    worker.stop()


class SlowEmbedder(FlakyEmbedder):
    def __init__(self, inner, seconds):
        super().__init__(inner)
        self.failing, self.seconds = False, seconds

    def embed(self, texts):
        time.sleep(self.seconds)
        return super().embed(texts)


def test_stop_during_a_drain_waits_for_it_without_deadlock(tmp_path, embedder):
    import threading

    from app.engines.sqlite.engine import SQLiteEngine

    settings = Settings(database_url=f"sqlite:///{tmp_path}/slow.db", worker_initial_delay_ms=0, worker_delay_ms=NEVER_MS)
    engine = SQLiteEngine.open(settings, embedder=SlowEmbedder(embedder, 0.5))
    try:
        engine.migrate()
        task(engine, "Slow to embed")
        worker = Worker(engine, settings)
        worker.start()
        assert wait_for(lambda: worker._running)
        worker.nudge()  # lands while running: recorded, not an overlapping run
        stopper = threading.Thread(target=worker.stop)
        stopper.start()
        stopper.join(timeout=10)
        assert not stopper.is_alive(), "stop() deadlocked with the ending drain"
        assert engine.status(5).pending == 0  # the batch in progress committed before stop returned
    finally:
        engine.close()
