"""The scheduled sync: started beside the drain worker when a tracker and an interval are configured, it runs
passes against the loopback Jira (a failing tracker is logged and tried again), and stops with the app."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.entities import TASKS
from app.sources.job import SyncJob, start_sync_job
from tests.sources import jira_data
from tests.sources.fake_jira import FakeJira
from tests.support import wait_until


def jira_settings(settings, fake: FakeJira, **extra):
    return settings.model_copy(update={"jira_url": fake.url, "jira_pat": SecretStr(fake.pat), "jira_projects": "PAY",
                                       "sync_interval_s": 0.2, "sync_max_retries": 0, **extra})


def test_the_job_runs_passes_and_survives_a_failing_tracker(sqlite_engine, sqlite_settings):
    with FakeJira("2") as fake:
        for issue in jira_data.tracker():
            fake.put(issue)
        fake.fail("/myself$", 500, times=1)  # the first pass fails; the job logs it and runs again
        job = SyncJob(sqlite_engine, jira_settings(sqlite_settings, fake))
        job.start()
        try:
            assert wait_until(lambda: job.passes >= 3)
        finally:
            job.stop()
        assert len(sqlite_engine.list_records(TASKS, [], None, 50).items) == 4
        assert sum(p.endswith("/myself") for p, _ in fake.requests) >= 3  # the failed pass, then the next ones
        assert job.last[f"jira:{fake.url}"].failed == 0
        passes = job.passes
        time.sleep(0.5)
        assert job.passes == passes  # stopped means stopped


def test_serve_starts_the_job_only_when_configured(sqlite_engine, sqlite_settings):
    assert start_sync_job(sqlite_engine, sqlite_settings) is None  # no tracker, no interval
    with FakeJira("2") as fake:
        for issue in jira_data.tracker():
            fake.put(issue)
        settings = jira_settings(sqlite_settings, fake, backfill_on_startup=False)
        with TestClient(create_app(settings, engine=sqlite_engine)) as client:
            job = client.app.state.sync
            assert job is not None
            assert wait_until(lambda: len(sqlite_engine.list_records(TASKS, [], None, 50).items) == 4)
        assert client.app.state.sync._scheduler is None  # stopped with the app
