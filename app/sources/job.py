"""The scheduled sync inside ``ragctl serve``: each configured source (Jira, each GitHub repository) runs on its
own schedule — its own job, on its own thread — a pass every RAG_SYNC_INTERVAL_S and a reconciliation of keys
every RAG_SYNC_RECONCILE_EVERY of its passes. Each run schedules its own successor when it ends, so two passes of
one source never overlap however long a first import takes, and a source that is slow, failing or stuck delays
only itself (issue 33: every pass is bounded too, app/sources/bounds.py). A failing pass is logged, its outcome
kept for ``ragctl status`` (app/sources/passes.py), and tried again at the next interval from its cursor.

Stopping is prompt: ``stop`` aborts each pass in flight (its client's sockets shut down, so a server that never
answers does not hold the shutdown for the response bound), keeps what the pass wrote, and the next start resumes
from the cursor."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger

from app.config import Settings
from app.engines.base import Engine, SchemaNotMigratedError
from app.sources import configured
from app.sources.mapping import read_people_map
from app.sources.member_sync import sync_source_members
from app.sources.model import SyncCounts
from app.sources.passes import run_reported

log = logging.getLogger(__name__)

JOB_ID = "tracker-sync"


def sync_configured(settings: Settings) -> bool:
    return settings.sync_interval_s > 0 and (configured.jira_configured(settings)
                                             or bool(configured.github_repos(settings)))


def sync_one(engine: Engine, settings: Settings, name: str, build: Callable[[], Any], reconcile: bool,
             started: Callable[[Any], None] | None = None) -> SyncCounts:
    """One pass of one source; a failure is reported in its counts (and kept for ``ragctl status``), never raised.
    ``started`` is told the source before its pass runs (the job keeps it to abort it at shutdown)."""
    try:
        roles = read_people_map(settings.sources_people_file)
        source = build()
    except Exception as exc:  # a settings error: reported as this source's failure
        log.warning("sync of %s not started: %s", name, exc)
        return SyncCounts(failed=1, errors=[str(exc)])
    if started is not None:
        started(source)
    try:
        return run_reported(engine, source, overlap=configured.overlap(settings), reconcile=reconcile, roles=roles,
                            then=lambda: sync_source_members(engine, source, settings))  # issue 32: project members
    except Exception as exc:  # logged and kept by run_reported; the next pass resumes from the cursor
        return SyncCounts(failed=1, errors=[str(exc)])


def sync_all(engine: Engine, settings: Settings, reconcile: bool) -> dict[str, SyncCounts]:
    """One pass of every configured source, one after the other; a source that fails is reported and the others
    still run."""
    return {name: sync_one(engine, settings, name, build, reconcile)
            for name, build in configured.source_builders(settings).items()}


class SyncJob:
    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine, self.settings = engine, settings
        self.builders = configured.source_builders(settings)
        self._scheduler: BackgroundScheduler | None = None
        self._lock = threading.Lock()
        self.passes_of: dict[str, int] = dict.fromkeys(self.builders, 0)
        self.last: dict[str, SyncCounts] = {}
        self._in_flight: dict[str, Any] = {}  # source name -> the source whose pass runs now
        self._stopping = False

    @property
    def passes(self) -> int:
        """Passes ended, every source's together."""
        return sum(self.passes_of.values())

    def start(self) -> None:
        # One thread per source: a pass that hangs holds its own thread, never another source's.
        workers = max(1, len(self.builders))
        scheduler = BackgroundScheduler(timezone=dt.timezone.utc,
                                        executors={"default": ThreadPoolExecutor(max_workers=workers)})
        scheduler.start()
        with self._lock:
            self._scheduler, self._stopping = scheduler, False
        for name in self.builders:
            self._schedule(name, dt.timedelta(0))
        log.info("tracker sync: %d source(s), each a pass every %.0f s", len(self.builders),
                 self.settings.sync_interval_s)

    def stop(self, wait: bool = True) -> None:
        """Stop scheduling, abort the passes in flight (each ends within moments, keeping what it wrote: the next
        start resumes from its cursor), and with ``wait`` wait for them to end."""
        with self._lock:
            scheduler, self._scheduler = self._scheduler, None
            self._stopping = True
            in_flight = list(self._in_flight.values())
        for source in in_flight:
            source.client.abort()
        if scheduler is not None:
            scheduler.shutdown(wait=wait)

    def _started(self, name: str, source: Any) -> None:
        with self._lock:
            self._in_flight[name] = source
            stopping = self._stopping
        if stopping:  # stop ran between the build and now: this pass ends at its first request
            source.client.abort()

    def _schedule(self, name: str, delay: dt.timedelta) -> None:
        with self._lock:
            if self._scheduler is None:
                return
            try:
                self._scheduler.add_job(self._job, DateTrigger(dt.datetime.now(dt.timezone.utc) + delay,
                                                               timezone=dt.timezone.utc), args=[name],
                                        id=f"{JOB_ID}:{name}", name=f"tracker sync {name}", replace_existing=True,
                                        misfire_grace_time=None)
            except Exception:  # the scheduler is shutting down
                log.debug("sync of %s not rescheduled: scheduler is stopping", name, exc_info=True)

    def _job(self, name: str) -> None:
        try:
            self.engine.check_schema()
            reconcile = self.passes_of[name] % self.settings.sync_reconcile_every == 0
            counts = sync_one(self.engine, self.settings, name, self.builders[name], reconcile,
                              started=lambda source: self._started(name, source))
            self.last[name] = counts
            log.info("sync %s: %s", name, counts.summary())
        except SchemaNotMigratedError:
            pass
        except Exception:
            log.exception("tracker sync of %s failed", name)
        finally:
            with self._lock:
                self._in_flight.pop(name, None)
            self.passes_of[name] += 1
            self._schedule(name, dt.timedelta(seconds=self.settings.sync_interval_s))


def start_sync_job(engine: Engine, settings: Settings) -> SyncJob | None:
    """Start the jobs beside the drain worker when a tracker and an interval are configured; None otherwise."""
    if not sync_configured(settings):
        return None
    job = SyncJob(engine, settings)
    job.start()
    return job
