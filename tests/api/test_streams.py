"""Long-lived streams on the real app under uvicorn: a held ``GET /mcp`` is closed by the server once idle,
and one token may hold only so many streams (GET /mcp, the SSE chat stream, a streamed OpenAI completion);
the next is a 429, and a stream that ends gives its place back."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from pydantic import SecretStr

from app.api.main import create_app

from .chat_data import seed
from .servers import serve

ADMIN, OTHER = "test-token", "other-token"
A = "RAG_API_TOKENS[0]"  # the name the admin token's streams are counted under
MCP_GET = {"Accept": "text/event-stream"}


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


@contextmanager
def running(api_settings, engine, **update):
    scopes = [{"name": "other", "token": OTHER, "scope": "admin"}]  # ADMIN is RAG_API_TOKENS' (test-token)
    settings = api_settings.model_copy(update={"api_token_scopes": SecretStr(json.dumps(scopes)), **update})
    app = create_app(settings, engine=engine)
    with serve(app, timeout_graceful_shutdown=2) as url:
        yield app, url


def held_mcp_stream(stack: ExitStack, url: str, token: str = ADMIN) -> httpx.Response:
    response = stack.enter_context(httpx.stream("GET", f"{url}/mcp", timeout=60,
                                                headers={**MCP_GET, "Authorization": f"Bearer {token}"}))
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    return response


def test_issue_26_point_5_a_held_get_mcp_is_closed_by_the_server_once_idle(api_settings, sqlite_engine, ids):
    """It stayed open forever (130 s and counting). The client here never closes it: reading ends because
    the server ended the response (httpx's 60 s read timeout would fail the test instead)."""
    with running(api_settings, sqlite_engine, stream_idle_timeout_s=0.5) as (app, url), ExitStack() as stack:
        response = held_mcp_stream(stack, url)
        assert app.state.streams.open == {A: 1}
        received = b"".join(response.iter_raw())  # returns only when the server ends the body
        assert b"data:" not in received  # it was idle: nothing was sent before the close
        deadline = time.monotonic() + 10
        while app.state.streams.open and time.monotonic() < deadline:
            time.sleep(0.02)
        assert app.state.streams.open == {}


def test_one_token_may_hold_only_so_many_streams_and_the_next_is_a_429(api_settings, sqlite_engine, ids):
    with running(api_settings, sqlite_engine, streams_per_token=2) as (app, url), ExitStack() as stack:
        first = held_mcp_stream(stack, url)
        held_mcp_stream(stack, url)
        refused = httpx.get(f"{url}/mcp", headers={**MCP_GET, "Authorization": f"Bearer {ADMIN}"}, timeout=30)
        assert refused.status_code == 429 and refused.headers["retry-after"] == "5"
        assert "already has 2 streams open" in refused.json()["detail"]
        chat = httpx.post(f"{url}/api/v1/chat/stream", json={"employee_id": ids["ana"], "message": "login bug"},
                          headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30)
        assert chat.status_code == 429
        openai = httpx.post(f"{url}/v1/chat/completions", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30,
                            json={"model": "rag-extractive", "stream": True, "user": str(ids["ana"]),
                                  "messages": [{"role": "user", "content": "login bug"}]})
        assert openai.status_code == 429 and openai.json()["error"]["type"] == "rate_limit_error"
        plain = httpx.post(f"{url}/v1/chat/completions", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60,
                           json={"model": "rag-extractive", "user": str(ids["ana"]),
                                 "messages": [{"role": "user", "content": "login bug"}]})
        assert plain.status_code == 200  # not a stream: not counted
        held_mcp_stream(stack, url, OTHER)  # another token has its own streams
        assert app.state.streams.open == {A: 2, "other": 1}
        first.close()
        deadline = time.monotonic() + 10
        while app.state.streams.open.get(A) != 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        held_mcp_stream(stack, url)  # the place given back is taken again
        assert app.state.streams.open == {A: 2, "other": 1}


def test_a_chat_stream_counts_while_it_lasts_and_gives_its_place_back(api_settings, sqlite_engine, ids):
    with running(api_settings, sqlite_engine, streams_per_token=1) as (app, url):
        for _ in range(3):  # one after another: each ends, so the next fits
            with httpx.stream("POST", f"{url}/api/v1/chat/stream", headers={"Authorization": f"Bearer {ADMIN}"},
                              json={"employee_id": ids["ana"], "message": "login bug"}, timeout=60) as response:
                assert response.status_code == 200
                assert "event: done" in response.read().decode()
            deadline = time.monotonic() + 10
            while app.state.streams.open and time.monotonic() < deadline:
                time.sleep(0.02)
            assert app.state.streams.open == {}
