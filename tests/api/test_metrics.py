"""GET /metrics: Prometheus text through prometheus-client, behind its own token, with counts that move."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from app import metrics
from app.api.main import create_app
from app.config import Settings
from app.services.llm import LLMError, complete
from app.worker import Worker
from tests.fake_llm import FakeLLM

from .conftest import AUTH

SCRAPER = {"Authorization": "Bearer scrape-secret"}


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """(sample name, sorted labels) -> value."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture
def scraped(sqlite_settings, sqlite_engine, monkeypatch):
    monkeypatch.setattr(metrics, "STATUS_TTL_S", 0.0)  # every scrape queries: the test sees each change
    settings = sqlite_settings.model_copy(update={"run_worker": False, "backfill_on_startup": False,
                                                  "metrics_token": SecretStr("scrape-secret")})
    with TestClient(create_app(settings, engine=sqlite_engine)) as c:
        yield c, settings


def scrape(c) -> dict[tuple[str, tuple], float]:
    answer = c.get("/metrics", headers=SCRAPER)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    return samples(answer.text)


def test_metrics_move_after_a_write_a_drain_and_a_search(scraped, sqlite_engine):
    c, settings = scraped
    before = scrape(c)
    boss = c.post("/api/v1/employees", json={"first_name": "Maria", "last_name": "Lopez",
                                              "email": "maria@example.com", "role": "MANAGER"}, headers=AUTH).json()
    assert c.post("/api/v1/tasks", json={"title": "Rotate the gateway certificates"}, headers=AUTH).status_code == 201
    queued = scrape(c)
    assert queued[("rag_queue_pending", ())] == 1 and queued[("rag_database_up", ())] == 1
    assert queued[("rag_queue_rows", ())] == 1  # one row, one entity (tests/sqlite: several rows, one entity)
    assert queued[("rag_queue_oldest_pending_age_seconds", ())] >= 0

    Worker(sqlite_engine, settings).run_once()
    assert c.post("/api/v1/search", json={"question": "gateway certificates", "employee_id": boss["employee_id"]},
                  headers=AUTH).status_code == 200
    after = scrape(c)

    def moved(name, **labels):
        key = (name, tuple(sorted(labels.items())))
        return after[key] - before.get(key, 0.0)

    assert after[("rag_queue_pending", ())] == 0 and after[("rag_queue_failing_rows", ())] == 0
    assert after[("rag_chunks", (("source_type", "task"),))] == 1
    assert moved("rag_drain_batches_total", outcome="indexed") == 1
    assert moved("rag_drain_batch_duration_seconds_count") == 1
    assert moved("rag_search_duration_seconds_count", mode="hybrid") == 1
    assert moved("rag_search_duration_seconds_sum", mode="hybrid") > 0
    # Defined for the synchronous access changes; nothing increments it yet.
    assert ("rag_access_revocations_total", ()) in after
    assert ("rag_llm_calls_total", ()) in after and ("rag_queue_stuck_rows", ()) in after


def test_metrics_need_their_own_token_and_are_off_without_one(sqlite_settings, sqlite_engine):
    settings = sqlite_settings.model_copy(update={"run_worker": False, "backfill_on_startup": False})
    with TestClient(create_app(settings, engine=sqlite_engine)) as c:
        off = c.get("/metrics", headers=AUTH)
        assert off.status_code == 404 and "RAG_METRICS_TOKEN" in off.json()["detail"]
    on = settings.model_copy(update={"metrics_token": SecretStr("scrape-secret")})
    with TestClient(create_app(on, engine=sqlite_engine)) as c:
        assert c.get("/metrics").status_code == 401
        assert c.get("/metrics", headers=AUTH).status_code == 401  # an API token is not a scrape token
        assert c.get("/metrics", headers=SCRAPER).status_code == 200
        assert c.post("/api/v1/search", json={"question": "x", "employee_id": 1},
                      headers=SCRAPER).status_code == 401  # and a scrape token is not an API token


class CountingEngine:
    """The real engine, counting status() calls (what a scrape costs the database)."""

    def __init__(self, inner):
        self.inner, self.status_calls = inner, 0

    def status(self, max_attempts):
        self.status_calls += 1
        return self.inner.status(max_attempts)


def test_back_to_back_scrapes_query_the_database_once(sqlite_engine):
    counting = CountingEngine(sqlite_engine)
    collector = metrics.StatusCollector(counting, max_attempts=5, ttl_s=60)
    for _ in range(20):
        names = {m.name for m in collector.collect()}
    assert counting.status_calls == 1 and "rag_queue_pending" in names


def test_llm_calls_and_errors_are_counted_by_reason():
    registry = CollectorRegistry()
    registry.register(metrics.LLM_CALLS)
    registry.register(metrics.LLM_ERRORS)

    def value(name, **labels):
        return registry.get_sample_value(f"rag_llm_{name}_total", labels)

    calls = value("calls")
    errors = {reason: value("errors", reason=reason) for reason in metrics.LLM_ERROR_REASONS}
    messages = [{"role": "user", "content": "hi"}]

    async def ask(settings: Settings) -> str:
        async with httpx.AsyncClient() as client:
            return await complete(settings, messages, client)

    with FakeLLM("Grounded answer [TASK #1]") as ok, FakeLLM(status=500) as broken, FakeLLM("  ") as empty:
        assert asyncio.run(ask(Settings(llm_url=ok.url, llm_model="m"))) == "Grounded answer [TASK #1]"
        for server in (broken, empty):
            with pytest.raises(LLMError):
                asyncio.run(ask(Settings(llm_url=server.url, llm_model="m")))
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(LLMError):
        asyncio.run(ask(Settings(llm_url=f"http://127.0.0.1:{port}/v1", llm_model="m", llm_timeout_s=5)))
    assert value("calls") - calls == 4
    moved = {reason: value("errors", reason=reason) - errors[reason] for reason in metrics.LLM_ERROR_REASONS}
    assert moved == {"timeout": 0, "unreachable": 1, "http_status": 1, "bad_reply": 0, "empty": 1}
