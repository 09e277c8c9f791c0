"""The scheduled sync inside ``ragctl serve``: every RAG_SYNC_INTERVAL_S, one pass of each configured source
(Jira, each GitHub repository), a reconciliation of keys every RAG_SYNC_RECONCILE_EVERY passes. Each run
schedules its successor when it ends, so two passes never overlap however long a first import takes, and a
failing tracker is logged and tried again at the next interval (its cursor is where the last page left it)."""

from __future__ import annotations

import datetime as dt
import logging
import threading

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger

from app.config import Settings
from app.engines.base import Engine, SchemaNotMigratedError
from app.sources import configured
from app.sources.mapping import read_people_map
from app.sources.member_sync import sync_source_members
from app.sources.model import SyncCounts
from app.sources.pipeline import run_pass

log = logging.getLogger(__name__)

JOB_ID = "tracker-sync"


def sync_configured(settings: Settings) -> bool:
    return settings.sync_interval_s > 0 and (configured.jira_configured(settings)
                                             or bool(configured.github_repos(settings)))


def sync_all(engine: Engine, settings: Settings, reconcile: bool) -> dict[str, SyncCounts]:
    """One pass of every configured source; a source that fails is reported and the others still run."""
    roles = read_people_map(settings.sources_people_file)
    sources = []
    if configured.jira_configured(settings):
        sources.append(configured.jira_source(settings))
    sources += [configured.github_source(settings, repo) for repo in configured.github_repos(settings)]
    results = {}
    for source in sources:
        try:
            results[source.source] = run_pass(engine, source, overlap=configured.overlap(settings),
                                              reconcile=reconcile, roles=roles)
            sync_source_members(engine, source, settings)  # issue 32: the tracker's project members
        except Exception as exc:  # one tracker down must not stop the others
            log.warning("sync of %s failed: %s", source.source, exc)
            results[source.source] = SyncCounts(failed=1, errors=[str(exc)])
        finally:
            source.client.close()
    return results


class SyncJob:
    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine, self.settings = engine, settings
        self._scheduler: BackgroundScheduler | None = None
        self._lock = threading.Lock()
        self.passes = 0
        self.last: dict[str, SyncCounts] = {}

    def start(self) -> None:
        scheduler = BackgroundScheduler(timezone=dt.timezone.utc)
        scheduler.start()
        self._scheduler = scheduler
        self._schedule(dt.timedelta(0))
        log.info("tracker sync: a pass every %.0f s", self.settings.sync_interval_s)

    def stop(self, wait: bool = True) -> None:
        with self._lock:
            scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            scheduler.shutdown(wait=wait)

    def _schedule(self, delay: dt.timedelta) -> None:
        with self._lock:
            if self._scheduler is None:
                return
            try:
                self._scheduler.add_job(self._job, DateTrigger(dt.datetime.now(dt.timezone.utc) + delay,
                                                               timezone=dt.timezone.utc),
                                        id=JOB_ID, name="tracker sync", replace_existing=True, misfire_grace_time=None)
            except Exception:  # the scheduler is shutting down
                log.debug("sync not rescheduled: scheduler is stopping", exc_info=True)

    def _job(self) -> None:
        try:
            self.engine.check_schema()
            reconcile = self.passes % self.settings.sync_reconcile_every == 0
            self.last = sync_all(self.engine, self.settings, reconcile)
            for name, counts in self.last.items():
                log.info("sync %s: %s", name, counts.summary())
        except SchemaNotMigratedError:
            pass
        except Exception:
            log.exception("tracker sync failed")
        finally:
            self.passes += 1
            self._schedule(dt.timedelta(seconds=self.settings.sync_interval_s))


def start_sync_job(engine: Engine, settings: Settings) -> SyncJob | None:
    """Start the job beside the drain worker when a tracker and an interval are configured; None otherwise."""
    if not sync_configured(settings):
        return None
    job = SyncJob(engine, settings)
    job.start()
    return job
