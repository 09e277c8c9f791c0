"""The connection pool never makes a caller wait forever (REVIEW-2 W3): python-oracledb's default getmode waits
until a connection is free; the engine asks for POOL_GETMODE_TIMEDWAIT with RAG_ORACLE_POOL_WAIT_TIMEOUT_MS, and
the DPY-4005 that ends the wait is a 503 with Retry-After, like every other "not now" fault."""

from __future__ import annotations

import oracledb
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.engines.base import UnavailableError
from app.engines.oracle.engine import OracleEngine
from app.entities import TASKS

from .fakes import FakeConnection, FakePool, dpy_error, ora_error

SATURATED = dpy_error(4005, "timed out waiting for the connection pool to return a connection")


def test_the_pool_waits_a_bounded_time_for_a_connection(monkeypatch, settings):
    created = {}

    def create_pool(**kwargs):
        created.update(kwargs)
        return FakePool(FakeConnection())

    monkeypatch.setattr(oracledb, "create_pool", create_pool)
    engine = OracleEngine.open(settings.model_copy(update={"oracle_pool_wait_timeout_ms": 750, "oracle_pool_max": 6}))
    assert created["getmode"] == oracledb.POOL_GETMODE_TIMEDWAIT and created["wait_timeout"] == 750
    assert (created["min"], created["max"]) == (1, 6)
    engine.close()


def test_the_default_wait_is_five_seconds(settings):
    assert settings.oracle_pool_wait_timeout_ms == 5000


def test_a_saturated_pool_is_unavailable_with_a_short_retry_after(settings):
    engine = OracleEngine(FakePool(FakeConnection(), acquire_error=SATURATED), settings)
    with pytest.raises(UnavailableError) as caught:
        engine.get(TASKS, 1)
    assert caught.value.retry_after_s == 2
    assert "RAG_ORACLE_POOL_WAIT_TIMEOUT_MS=5000" in str(caught.value) and "DPY-4005" in str(caught.value)


def test_a_listener_that_is_down_is_still_the_ten_second_retry(settings):
    engine = OracleEngine(FakePool(FakeConnection(), acquire_error=ora_error(12541, "TNS:no listener")), settings)
    with pytest.raises(UnavailableError) as caught:
        engine.get(TASKS, 1)
    assert caught.value.retry_after_s == 10 and "cannot get an Oracle connection" in str(caught.value)


def test_the_api_answers_a_saturated_pool_with_503_and_retry_after(settings):
    app_settings = settings.model_copy(update={"api_tokens": SecretStr("t"), "run_worker": False,
                                               "backfill_on_startup": False})
    engine = OracleEngine(FakePool(FakeConnection(), acquire_error=SATURATED), app_settings)
    with TestClient(create_app(app_settings, engine=engine), raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/tasks/1", headers={"Authorization": "Bearer t"})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "2"
    assert "RAG_ORACLE_POOL_WAIT_TIMEOUT_MS" in answer.json()["detail"]
