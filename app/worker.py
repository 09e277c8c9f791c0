"""The background drain job: an APScheduler job that empties RAG_DIRTY with fixed delay.

APScheduler's interval trigger is fixed-*rate*; DESIGN.md asks for a fixed *delay* between the
end of one run and the start of the next, so each run reschedules itself when it finishes.

The job excludes itself: a run that starts while another is in progress returns at once (counted
as coalesced), so APScheduler's own "maximum number of running instances" skip, which moves the job
to its trigger's next time, is never the mechanism; and that trigger is an interval of one worker
delay, so even a skip can only postpone the next run by one delay, never by an hour.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from app import metrics, metrics_history
from app.config import Settings
from app.domain import SOURCE_TYPES
from app.embedding.tokens import count_tokens
from app.engines.base import Engine, SchemaNotMigratedError
from app.logs import request_id_var
from app.rag.chunking import TokenCounter
from app.services.indexing import Backoff, DrainResult, drain

log = logging.getLogger(__name__)

JOB_ID = "rag-drain"
MAX_INSTANCES = 3  # room for a run that is returning while the next one starts; extras return at once
MAX_CAUSES = 10  # request ids kept for the log lines of the run they caused


class Worker:
    """Owns the drain job. ``run_once`` and the scheduled job never run at the same time."""

    def __init__(self, engine: Engine, settings: Settings, token_counter: TokenCounter = count_tokens) -> None:
        self.engine = engine
        self.settings = settings
        self._count_tokens = token_counter
        self._scheduler: BackgroundScheduler | None = None
        self._drain_lock = threading.Lock()  # one drain at a time: scheduled, nudged or run_once
        self._state_lock = threading.Lock()
        self._running = False
        self._nudged_while_running = False
        self._causes: list[str] = []  # request ids whose nudges the next run answers
        self.last_error: str | None = None
        self._waiting_for_schema = False  # said once in the log, not at every tick
        self.failing_ticks = 0  # consecutive runs that failed (a storage fault): its start and end are logged
        self._fault_error: str | None = None
        self._backfill_pending = False  # the startup backfill, deferred until the schema is migrated

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        if self._scheduler is not None:
            raise RuntimeError("the worker is already started")
        scheduler = BackgroundScheduler(timezone=dt.timezone.utc)
        first_run = _now() + dt.timedelta(milliseconds=self.settings.worker_initial_delay_ms)
        scheduler.add_job(
            self._job,
            # Every run sets its own successor (fixed delay) in _reschedule; this interval only bounds
            # how late the next run can be when APScheduler itself skipped or moved one.
            IntervalTrigger(seconds=self.settings.worker_delay_ms / 1000, timezone=dt.timezone.utc),
            id=JOB_ID,
            name="drain RAG_DIRTY",
            next_run_time=first_run,
            max_instances=MAX_INSTANCES,
            coalesce=True,
            misfire_grace_time=None,  # a late run still runs; coalesce folds the backlog into one
        )
        scheduler.start()
        self._scheduler = scheduler
        log.info(
            "worker started: first drain in %d ms, then every %d ms after the previous one ends",
            self.settings.worker_initial_delay_ms, self.settings.worker_delay_ms,
        )

    def stop(self, wait: bool = True) -> None:
        """Stop scheduling; with ``wait`` a drain in progress finishes (its batch commits) first."""
        # Detach under the state lock: a run ending now then skips its reschedule, which would
        # otherwise wait on the job-store lock that shutdown() holds while it waits for that run.
        with self._state_lock:
            scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            scheduler.shutdown(wait=wait)

    @property
    def started(self) -> bool:
        return self._scheduler is not None

    def nudge(self, request_id: str | None = None) -> None:
        """Run the drain job now instead of at the next tick (called after writes through the API).

        ``request_id`` (the request that wrote) is carried into the log lines of the run it causes.
        """
        # Under the state lock, so a drain that is just ending cannot overwrite this with its delay.
        with self._state_lock:
            scheduler = self._scheduler
            if scheduler is None:
                return
            if request_id and request_id not in self._causes and len(self._causes) < MAX_CAUSES:
                self._causes.append(request_id)
            if self._running:
                # The running drain may have claimed before this write: run again when it ends.
                self._nudged_while_running = True
                return
            try:
                scheduler.modify_job(JOB_ID, next_run_time=_now())
            except Exception:  # the scheduler is shutting down; the next start drains anyway
                log.debug("nudge ignored: scheduler is not running", exc_info=True)

    # --- work ------------------------------------------------------------------------------
    def run_once(self, max_batches: int | None = None, on_batch: Callable[[DrainResult], None] | None = None) -> DrainResult:
        """Drain synchronously until the queue is empty (or a batch fails). Raises engine errors."""
        with self._drain_lock:
            result = drain(
                self.engine,
                self._count_tokens,
                self.settings.batch_size,
                self.settings.max_attempts,
                max_batches=max_batches,
                on_batch=_timed(on_batch),
                backoff=Backoff(self.settings.retry_backoff_ms / 1000, self.settings.retry_backoff_max_ms / 1000),
            )
        return result

    def startup_backfill(self) -> int:
        """Queue every source row that has no chunk yet (RAG_BACKFILL_ON_STARTUP); on a schema that is not
        migrated yet, the drain job does it once the schema is there."""
        if not self.schema_ready():
            self._backfill_pending = True
            return 0
        count = self.engine.enqueue_backfill(SOURCE_TYPES)
        if count:
            log.info("startup backfill queued %d source rows without chunks", count)
        return count

    def _job(self) -> None:
        with self._state_lock:
            if self._running:  # a tick during a long run: the run ends by scheduling its successor
                metrics.DRAIN_RUNS_COALESCED.inc()
                return
            self._running = True
            self._nudged_while_running = False
            causes, self._causes = self._causes, []
        context = request_id_var.set(",".join(causes) or None)
        try:
            if not self.schema_ready():
                return
            if self._backfill_pending:
                self._backfill_pending = False
                self.startup_backfill()
            result = self.run_once()
            self.last_error = result.errors[-1] if result.errors else None
            self._fault_ended()
            if result.claimed:
                log.info(
                    "drained %d queue rows: %d chunks written, %d unchanged, %d sources deleted, %d failed",
                    result.claimed, result.chunks_written, result.chunks_unchanged,
                    result.sources_deleted, result.failed,
                )
        except Exception as exc:  # claim or record_failure itself failed (a storage fault): keep ticking
            self.last_error = f"{type(exc).__name__}: {exc}"
            self._fault_tick()
        finally:
            request_id_var.reset(context)
            with self._state_lock:
                self._running = False
                self._reschedule(immediately=self._nudged_while_running)

    def _fault_tick(self) -> None:
        """A run failed as a whole (the queue itself could not be read or written: a full disk, a read-only
        or broken database). The first failure of a fault is logged with its traceback; the ticks after it,
        which fail the same way until the fault ends, are only counted (one traceback per tick was ~1,800
        log entries an hour)."""
        self.failing_ticks += 1
        self._fault_error = self.last_error
        if self.failing_ticks == 1:
            log.exception("drain job failed; it retries every tick and says when it works again")

    def _fault_ended(self) -> None:
        if self.failing_ticks:
            log.warning("drain job works again after %d failed runs (last error: %s)", self.failing_ticks,
                        self._fault_error)
            self.failing_ticks = 0

    def schema_ready(self) -> bool:
        """Whether the schema is migrated; until it is, the job waits quietly (one log line, not a
        traceback every tick) and the API answers 503 naming `ragctl migrate`."""
        try:
            self.engine.check_schema()
        except SchemaNotMigratedError as exc:
            if not self._waiting_for_schema:
                log.warning("the drain job waits for the schema: %s", exc)
                self._waiting_for_schema = True
            return False
        if self._waiting_for_schema:
            log.info("the schema is migrated: the drain job starts")
            self._waiting_for_schema = False
        return True

    def _reschedule(self, immediately: bool) -> None:
        """Called with the state lock held (see stop)."""
        scheduler = self._scheduler
        if scheduler is None:
            return
        delay = dt.timedelta(milliseconds=0 if immediately else self.settings.worker_delay_ms)
        try:
            scheduler.modify_job(JOB_ID, next_run_time=_now() + delay)
        except Exception:
            log.debug("reschedule skipped: scheduler is stopping", exc_info=True)


def _timed(on_batch: Callable[[DrainResult], None] | None) -> Callable[[DrainResult], None]:
    """Wrap the per-batch callback to record each batch that claimed rows: its outcome and wall time."""
    last = time.perf_counter()

    def record(result: DrainResult) -> None:
        nonlocal last
        now = time.perf_counter()
        if result.claimed:  # an empty claim is a poll, not a batch
            metrics.DRAIN_BATCHES.labels("failed" if result.failed else "indexed").inc()
            metrics.DRAIN_BATCH_SECONDS.observe(now - last)
            metrics_history.record_batch(result, now - last)
        last = now
        if on_batch is not None:
            on_batch(result)

    return record


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)
