"""The drain job never stalls: a run that is in progress when ticks and nudges arrive is followed by
the next one within one worker delay (today's bug: a skipped run moved the job an hour out)."""

from __future__ import annotations

import threading
import time

from app.config import Settings
from app.worker import JOB_ID, Worker
from tests.support import task
from tests.test_worker_scheduler import FlakyEmbedder, wait_for

DELAY_MS = 200
SLACK_S = 1.0  # scheduling jitter on a loaded 2-core machine; a stall is an hour


class GatedEmbedder(FlakyEmbedder):
    """The real MiniLM, but the first call blocks until ``release`` is set: a drain held mid-batch."""

    def __init__(self, inner):
        super().__init__(inner)
        self.failing = False
        self.entered, self.release = threading.Event(), threading.Event()

    def embed(self, texts):
        self.entered.set()
        self.release.wait(30)
        return super().embed(texts)


class SlowToReturn(Worker):
    """Holds APScheduler's running-instance count for a moment after each run has rescheduled itself:
    the window in which a nudge used to make APScheduler skip the run and move the job an hour out."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.returning = threading.Event()

    def _job(self):
        super()._job()
        self.returning.set()
        time.sleep(0.5)


def test_a_nudge_while_a_run_is_returning_does_not_stall_the_job(tmp_path, embedder):
    from app.engines.sqlite.engine import SQLiteEngine

    settings = Settings(database_url=f"sqlite:///{tmp_path}/window.db", worker_initial_delay_ms=0,
                        worker_delay_ms=DELAY_MS)
    engine = SQLiteEngine.open(settings, embedder=embedder)
    worker = SlowToReturn(engine, settings)
    try:
        engine.migrate()
        worker.start()
        assert worker.returning.wait(10), "the first drain never ran"
        task(engine, "Written while the previous run is still returning")
        worker.nudge()
        assert wait_for(lambda: engine.status(5).pending == 0, timeout=5), \
            f"the drain job stalled: next run {worker._scheduler.get_job(JOB_ID).next_run_time}"
    finally:
        worker.stop()
        engine.close()


def test_ticks_and_nudges_during_a_blocked_drain_never_push_the_next_run_out(tmp_path, embedder):
    from app.engines.sqlite.engine import SQLiteEngine

    settings = Settings(database_url=f"sqlite:///{tmp_path}/stall.db", worker_initial_delay_ms=0,
                        worker_delay_ms=DELAY_MS)
    gated = GatedEmbedder(embedder)
    engine = SQLiteEngine.open(settings, embedder=gated)
    worker = Worker(engine, settings)
    try:
        engine.migrate()
        task(engine, "Held in the embedder while the scheduler keeps firing")
        worker.start()
        assert gated.entered.wait(10), "the first drain never started"
        time.sleep(5 * DELAY_MS / 1000)  # several interval ticks land on the running job
        for _ in range(5):
            worker.nudge(request_id="nudge-during-run")  # and nudges, as API writes would send
        gated.release.set()
        assert wait_for(lambda: engine.status(5).pending == 0, timeout=10)

        # For a while after the blocked run, the job is always due within one delay (plus jitter).
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            job = worker._scheduler.get_job(JOB_ID)
            assert job.next_run_time.timestamp() <= time.time() + DELAY_MS / 1000 + SLACK_S, \
                f"the drain job stalled: next run {job.next_run_time.timestamp() - time.time():.0f} s away"
            time.sleep(0.05)

        # And a write that sends no nudge (another client, SQL*Plus) is indexed by the next tick.
        task(engine, "Written behind the API's back after the blocked run")
        assert wait_for(lambda: engine.status(5).pending == 0, timeout=DELAY_MS / 1000 + 5), \
            "the drain job did not run again after the blocked run"
        assert gated.calls >= 2
    finally:
        gated.release.set()
        worker.stop()
        engine.close()
