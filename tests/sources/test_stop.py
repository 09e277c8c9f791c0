"""Issue 33: `serve` stops promptly with a source whose server hangs. The sync job's stop aborts the pass in flight
(its client's sockets shut down), so shutdown never waits out the response bound; what the pass wrote stays and
the next start resumes. Against loopback servers that accept a request and never answer, on real sockets; the
times asserted are bounds far below the response bound (60 s here), not races."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.sources import report
from app.sources.bounds import PassBounds
from app.sources.http import SourceClient, SourceStoppedError
from app.sources.job import SyncJob
from tests.sources.fake_hostile import Reply, ScriptedServer, seeded
from tests.support import wait_until
from tests.sources.fake_jira import FakeJira
from tests.sources.test_bounds import tasks

RESPONSE_BOUND_S = 60.0
PROMPT_S = 10.0  # far below the response bound: the hung request is cut, never waited out


def never_answers(path: str, query: dict, server: ScriptedServer) -> Reply:
    server.stopping.wait()  # the request was accepted; no status line ever comes
    return Reply(200, {}, [])


def test_abort_from_another_thread_ends_a_request_the_server_never_answers():
    with ScriptedServer(never_answers) as server:
        client = SourceClient(server.url, bounds=PassBounds(response_s=RESPONSE_BOUND_S), max_retries=3,
                              timeout_s=RESPONSE_BOUND_S)
        outcome: list[BaseException] = []

        def call() -> None:
            try:
                client.get_json("/rest/api/2/search")
            except BaseException as exc:  # noqa: BLE001 - the test reads it
                outcome.append(exc)

        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        assert wait_until(lambda: len(server.requests) == 1, 30)  # the request is in, waiting for an answer
        started = time.monotonic()
        client.abort()
        worker.join(PROMPT_S)
        took = time.monotonic() - started
        assert not worker.is_alive() and took < PROMPT_S, took
        assert len(outcome) == 1 and isinstance(outcome[0], SourceStoppedError), outcome
        assert len(server.requests) == 1  # a stopped client never retries
        with pytest.raises(SourceStoppedError):
            client.get_json("/rest/api/2/myself")  # nor sends anything after
        assert len(server.requests) == 1
        client.close()


def test_abort_cuts_a_retry_wait_the_server_asked_for():
    with ScriptedServer(lambda p, q, s: Reply(503, {"Retry-After": "50"}, [b"busy"], length=4)) as server:
        client = SourceClient(server.url, max_retries=3, max_wait_s=RESPONSE_BOUND_S)
        outcome: list[BaseException] = []
        worker = threading.Thread(target=lambda: _catch(outcome, client.get_json, "/x"), daemon=True)
        worker.start()
        assert wait_until(lambda: client.waits == [50.0], 30)  # asleep for the 50 s the server asked
        started = time.monotonic()
        client.abort()
        worker.join(PROMPT_S)
        assert not worker.is_alive() and time.monotonic() - started < PROMPT_S
        assert isinstance(outcome[0], SourceStoppedError) and len(server.requests) == 1
        client.close()


def _catch(outcome: list, call, *args) -> None:
    try:
        call(*args)
    except BaseException as exc:  # noqa: BLE001 - the test reads it
        outcome.append(exc)


def test_serve_shuts_down_promptly_while_a_source_hangs_and_the_next_start_resumes(sqlite_settings, sqlite_engine):
    with seeded(FakeJira("2"), 130, comments=0) as jira:
        jira.hold_after_pages = 1  # the first page (100 issues) is answered, the second is held
        settings = sqlite_settings.model_copy(update={
            "jira_url": jira.url, "jira_pat": SecretStr(jira.pat), "jira_projects": "PAY", "backfill_on_startup": False,
            "sync_interval_s": 3600, "sync_max_retries": 0, "sync_response_timeout_s": RESPONSE_BOUND_S,
            # the drain worker idles: the shutdown timed is the sync job's, not an indexing batch's
            "worker_initial_delay_ms": 3_600_000, "worker_delay_ms": 3_600_000})
        client = TestClient(create_app(settings, engine=sqlite_engine))
        with client:  # the app's lifespan starts the sync job as `ragctl serve` does
            job = client.app.state.sync
            assert job is not None
            assert wait_until(lambda: jira.held == 1, 60)  # the pass wrote page 1 and waits on page 2
            written = tasks(sqlite_engine)
            assert len(written) == 100
            started = time.monotonic()
        took = time.monotonic() - started  # the lifespan's shutdown: the sync job stopped with it
        assert took < PROMPT_S, f"shutdown took {took:.1f} s with a hung source"
        assert job._scheduler is None and job.passes == 1
        name = f"jira:{jira.url}"
        assert job.last[name].failed == 1 and "stopped" in job.last[name].errors[0]
        assert "stopped" in report.last_passes(sqlite_engine)[name]["error"]  # `ragctl status` says why it ended
        assert tasks(sqlite_engine) == written  # what the pass wrote stays

        jira.hold_after_pages = None  # the next start: the pass resumes from the cursor and finishes
        searches_before = len(jira.searches())
        restarted = SyncJob(sqlite_engine, settings)
        restarted.start()
        try:
            assert wait_until(lambda: restarted.passes == 1, 60)
        finally:
            restarted.stop()
        assert restarted.last[name].failed == 0
        keys = tasks(sqlite_engine)
        assert len(keys) == len(set(keys)) == 130 and set(written) <= set(keys)  # no gap, no duplicate
        assert any("updated >=" in s["jql"][0] for s in jira.searches()[searches_before:])  # from the cursor
