"""The project auto-summary job: an APScheduler job that sweeps every project with a fixed delay.

How edits are detected: each sweep compares every project's current inputs (name, description, newest
task titles and statuses) with the fingerprint stored with its summary (app/rag/summaries.py). That sees
every writer — the API, ``ragctl``, SQL from another client — and is not fooled by the RAG_DIRTY row the
summary write itself queues (RAG_DIRTY is never read here). API writes do not nudge this job: a project
edit is picked up at the next sweep (RAG_SUMMARY_SWEEP_S, a minute by default), soon enough for an
overview, and a nudge per task write would only start sweeps the task interval then mostly skips.

The first sweep runs at start: it backfills every missing summary. Each run schedules its successor when
it ends (a one-off date trigger), so two sweeps never overlap however long a backfill takes.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger

from app.config import Settings
from app.engines.base import Engine, SchemaNotMigratedError
from app.services.summaries import ProjectSummarizer, SummaryOutcome

log = logging.getLogger(__name__)

JOB_ID = "project-summaries"


class SummaryJob:
    def __init__(self, summarizer: ProjectSummarizer, settings: Settings) -> None:
        self.summarizer = summarizer
        self.settings = settings
        self._scheduler: BackgroundScheduler | None = None
        self._lock = threading.Lock()  # guards _scheduler against a run rescheduling during stop()
        self.sweeps = 0
        self.last_outcomes: list[SummaryOutcome] = []

    def start(self) -> bool:
        """Start sweeping (the first sweep now); False, said once in the log, when no LLM is configured."""
        if not self.summarizer.configured:
            log.info("project auto-summaries are off: no LLM is configured (RAG_LLM_URL, RAG_LLM_MODEL)")
            return False
        if self._scheduler is not None:
            raise RuntimeError("the summary job is already started")
        scheduler = BackgroundScheduler(timezone=dt.timezone.utc)
        scheduler.start()
        self._scheduler = scheduler
        self._schedule(dt.timedelta(0))
        log.info("project auto-summaries: a sweep every %.0f s; task edits remake a summary at most every %.0f s",
                 self.settings.summary_sweep_s, self.settings.summary_task_interval_s)
        return True

    def stop(self, wait: bool = True) -> None:
        with self._lock:
            scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            scheduler.shutdown(wait=wait)

    @property
    def started(self) -> bool:
        return self._scheduler is not None

    def _schedule(self, delay: dt.timedelta) -> None:
        with self._lock:
            if self._scheduler is None:
                return
            run_at = dt.datetime.now(dt.timezone.utc) + delay
            try:
                self._scheduler.add_job(self._job, DateTrigger(run_at, timezone=dt.timezone.utc), id=JOB_ID,
                                        name="project auto-summaries", replace_existing=True,
                                        misfire_grace_time=None)
            except Exception:  # the scheduler is shutting down
                log.debug("summary sweep not rescheduled: scheduler is stopping", exc_info=True)

    def _job(self) -> None:
        try:
            self.summarizer.engine.check_schema()
            self.last_outcomes = self.summarizer.refresh()
            written = sum(o.status == "written" for o in self.last_outcomes)
            if written:
                log.info("summary sweep: %d project summaries remade", written)
        except SchemaNotMigratedError:  # the drain job says so in the log; sweep again later
            pass
        except Exception:  # the database failed: log it, keep sweeping
            log.exception("summary sweep failed")
        finally:
            self.sweeps += 1
            self._schedule(dt.timedelta(seconds=self.settings.summary_sweep_s))


def start_summary_job(engine: Engine, settings: Settings) -> SummaryJob | None:
    """Start the job beside the drain worker (``ragctl serve`` with RAG_RUN_WORKER, ``ragctl worker``); None
    when RAG_RUN_SUMMARIES is off or no LLM is configured (which start() says once in the log)."""
    if not settings.run_summaries:
        return None
    job = SummaryJob(ProjectSummarizer(engine, settings), settings)
    return job if job.start() else None
