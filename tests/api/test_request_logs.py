"""JSON logs with a request id: taken from a sane X-Request-ID (else made), echoed, carried into the
log lines of the request and of the worker's drain run that the request's nudge caused."""

from __future__ import annotations

import io
import json
import logging

import pytest
from fastapi.testclient import TestClient

from app import logs
from app.api.main import create_app
from tests.test_worker_scheduler import NEVER_MS, wait_for

from .conftest import AUTH


@pytest.fixture
def log_lines(caplog):
    """Our JSON handler on the root logger, as `ragctl serve` installs it; yields a reader of parsed lines."""
    stream = io.StringIO()
    handler = logs.handler("json", stream)
    caplog.set_level(logging.INFO)
    logging.getLogger().addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        logging.getLogger().removeHandler(handler)


def test_a_requests_id_is_in_its_log_lines_and_in_the_drain_it_caused(sqlite_settings, sqlite_engine, log_lines):
    settings = sqlite_settings.model_copy(update={"run_worker": True, "backfill_on_startup": False,
                                                  "worker_initial_delay_ms": NEVER_MS, "worker_delay_ms": NEVER_MS})
    with TestClient(create_app(settings, engine=sqlite_engine)) as c:
        created = c.post("/api/v1/tasks", json={"title": "Rotate the gateway certificates"},
                         headers={**AUTH, "X-Request-ID": "req-7f3a.1"})
        assert created.status_code == 201 and created.headers["X-Request-ID"] == "req-7f3a.1"
        assert wait_for(lambda: sqlite_engine.status(5).pending == 0), "the nudged drain did not run"
        assert wait_for(lambda: any(line["message"].startswith("drained") for line in log_lines()))

    lines = log_lines()
    request = [line for line in lines if line["logger"] == "app.request" and line["request_id"] == "req-7f3a.1"]
    assert request and request[0]["path"] == "/api/v1/tasks" and request[0]["status"] == 201
    assert request[0]["method"] == "POST" and request[0]["duration_ms"] >= 0
    drained = [line for line in lines if line["logger"] == "app.worker" and line["message"].startswith("drained")]
    assert drained and "req-7f3a.1" in drained[0]["request_id"].split(",")
    assert all({"time", "level", "logger", "message", "request_id"} <= set(line) for line in lines)


@pytest.mark.parametrize("offered", ["", "has space", "x" * 65, "line\\nbreak", "semi;colon", "<script>", "-leading-dash"])
def test_an_unfit_request_id_is_replaced_by_a_fresh_one(client, offered):
    answered = client.get("/healthz", headers={"X-Request-ID": offered})
    echoed = answered.headers["X-Request-ID"]
    assert echoed != offered and len(echoed) == 32 and int(echoed, 16) >= 0


def test_each_request_without_an_id_gets_its_own(client):
    first, second = (client.get("/healthz").headers["X-Request-ID"] for _ in range(2))
    assert first != second


def test_text_format_carries_the_request_id_too():
    stream = io.StringIO()
    logger = logging.getLogger("tests.text-format")
    logger.addHandler(logs.handler("text", stream))
    logger.setLevel(logging.INFO)
    token = logs.request_id_var.set("abc-123")
    try:
        logger.info("hello")
    finally:
        logs.request_id_var.reset(token)
        logger.handlers.clear()
    assert "[abc-123]: hello" in stream.getvalue()
