"""A silent LLM cannot stall the server: held chats use no worker thread, and the cap answers 503."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from app.api.main import create_app
from app.worker import Worker
from tests.support import employee, project, task

from .conftest import AUTH
from .servers import BlackHoleLLM, serve


@pytest.fixture
def team(sqlite_engine, api_settings):
    boss = employee(sqlite_engine, "Maria", "Lopez", role="MANAGER")
    p = project(sqlite_engine, "Payments Platform")
    task(sqlite_engine, "Fix login bug after password reset", "Users are logged out after a reset", project_id=p)
    Worker(sqlite_engine, api_settings).run_once()
    return {"boss": boss}


def app_with_llm(settings, engine, llm, **update):
    settings = settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny", **update})
    return create_app(settings, engine=engine)


def wait_for(condition, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def timed(call):
    started = time.perf_counter()
    response = call()
    return response, time.perf_counter() - started


def chat(base, boss, timeout=60.0):
    return httpx.post(f"{base}/api/v1/chat", json={"message": "login bug", "employee_id": boss},
                      headers=AUTH, timeout=timeout)


def test_fifty_chats_on_a_silent_llm_do_not_delay_health_search_or_writes(api_settings, sqlite_engine, team):
    with BlackHoleLLM() as llm, ThreadPoolExecutor(50) as pool:
        app = app_with_llm(api_settings, sqlite_engine, llm, llm_timeout_s=60.0, chat_max_concurrency=64)
        with serve(app, timeout_graceful_shutdown=2) as base:
            held = [pool.submit(chat, base, team["boss"]) for _ in range(50)]
            wait_for(lambda: len(llm.accepted) == 50)  # every chat is now waiting on the LLM
            health, health_s = timed(lambda: httpx.get(f"{base}/healthz", timeout=10))
            found, search_s = timed(lambda: httpx.post(f"{base}/api/v1/search", headers=AUTH, timeout=10,
                                                       json={"question": "login bug", "employee_id": team["boss"]}))
            made, write_s = timed(lambda: httpx.post(f"{base}/api/v1/projects", headers=AUTH, timeout=10,
                                                     json={"name": "Written while the LLM is silent"}))
            assert (health.status_code, found.status_code, made.status_code) == (200, 200, 201)
            assert found.json()["results"]
            # Order, not speed: each answered while every chat was still held, and far inside the 60 s the chats
            # hold for (a server stalled behind them would answer after it). A 1 s bound failed on busy machines.
            assert max(health_s, search_s, write_s) < 10.0, (health_s, search_s, write_s)
            assert not any(f.done() for f in held)  # still held: the timings above were taken under load
            llm.__exit__(None, None, None)  # the LLM hangs up: every chat falls back to an extractive answer
            answers = [f.result(timeout=30) for f in held]
    assert all(a.status_code == 200 and a.json()["llm_used"] is False for a in answers)


def test_the_chat_beyond_the_limit_gets_503_with_retry_after(api_settings, sqlite_engine, team):
    with BlackHoleLLM() as llm, ThreadPoolExecutor(3) as pool:
        app = app_with_llm(api_settings, sqlite_engine, llm, llm_timeout_s=60.0, chat_max_concurrency=3)
        with serve(app, timeout_graceful_shutdown=2) as base:
            held = [pool.submit(chat, base, team["boss"]) for _ in range(3)]
            wait_for(lambda: len(llm.accepted) == 3)
            refused, refused_s = timed(lambda: chat(base, team["boss"], timeout=10))
            assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
            # refused at once, not queued behind the held chats (they hold for 60 s)
            assert "3 chats already in progress" in refused.json()["detail"] and refused_s < 10.0
            assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200
            llm.__exit__(None, None, None)
            assert all(f.result(timeout=30).status_code == 200 for f in held)
            # The slots are free again: the next chat is served (the LLM is gone: extractive).
            again = chat(base, team["boss"], timeout=30)
            assert again.status_code == 200 and again.json()["llm_used"] is False


def test_a_silent_llm_times_out_into_the_extractive_answer(api_settings, sqlite_engine, team):
    with BlackHoleLLM() as llm:
        app = app_with_llm(api_settings, sqlite_engine, llm, llm_timeout_s=0.5)
        with serve(app, timeout_graceful_shutdown=2) as base:
            answer, took = timed(lambda: chat(base, team["boss"], timeout=10))
    assert answer.status_code == 200 and answer.json()["llm_used"] is False and answer.json()["citations"]
    assert 0.5 <= took < 5.0
