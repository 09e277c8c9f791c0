"""Issue 26, point 12: every LLM request carries max_tokens, and a turn that passes its deadline closes its
upstream request, so a model that does not stop cannot hold a one-at-a-time LLM server. The real app under
uvicorn, the loopback LLM (tests/fake_llm.py) answering one request at a time as llama.cpp's server does; the
order of what it saw is the judge, never how fast anything ran."""

from __future__ import annotations

import json

import httpx
import pytest
from pydantic import SecretStr

from app.api.main import create_app
from tests.fake_llm import FakeLLM, Reply

from .chat_data import llm_settings, seed
from .servers import serve

ADMIN = "test-token"


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


def chat(url: str, employee_id: int, message: str, stream: bool) -> dict:
    headers = {"Authorization": f"Bearer {ADMIN}"}
    body = {"employee_id": employee_id, "message": message}
    if not stream:
        response = httpx.post(f"{url}/api/v1/chat", json=body, headers=headers, timeout=60)
        assert response.status_code == 200, response.text
        return response.json()
    with httpx.stream("POST", f"{url}/api/v1/chat/stream", json=body, headers=headers, timeout=60) as response:
        assert response.status_code == 200
        lines = list(response.iter_lines())
    done = lines[lines.index("event: done") + 1]
    return json.loads(done.removeprefix("data: "))


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_turn_past_its_deadline_hangs_up_on_a_model_that_does_not_stop(api_settings, sqlite_engine, ids, stream):
    """Turn 1's model never stops; the turn ends at its deadline (extractive, llm_error timeout) and closes
    the request, which the one-at-a-time server sees as a hang-up before turn 2's request even arrives, so
    turn 2 is answered by the model, not held behind turn 1's generation."""
    answer = Reply.stream("Fine ", "[TASK #1].") if stream else Reply.plain("Fine [TASK #1].")
    with FakeLLM(Reply.endless(streamed=stream), answer, one_at_a_time=True) as llm:
        settings = api_settings.model_copy(update={**llm_settings(llm, chat_max_tool_rounds=0, llm_timeout_s=1.5,
                                                                  llm_max_tokens=300),
                                                   "api_tokens": SecretStr(ADMIN)})
        with serve(create_app(settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as url:
            first = chat(url, ids["ana"], "what is wrong with the login bug?", stream)
            second = chat(url, ids["ana"], "what is wrong with the login bug?", stream)
        events = list(llm.events)
    assert first["llm_error"] == "timeout" and first["answer"]
    assert second["llm_error"] is None, second
    assert events.index(("hung_up", 1)) < events.index(("arrived", 2)), events
    assert events.index(("ended", 1)) < events.index(("started", 2)), events
    assert [r["body"]["max_tokens"] for r in llm.requests] == [300, 300]


def test_every_kind_of_llm_request_carries_max_tokens(api_settings, sqlite_engine, ids):
    """A tool round, the answer after it, and a follow-up's rewrite (each its own call of app/services/llm.py)."""
    with FakeLLM(Reply.tools(("c1", "find_tasks", '{"mine": true}')), Reply.plain("Yours [TASK #1]."),
                 Reply.plain("what is the status of the login bug"), Reply.plain("Fine [TASK #1].")) as llm:
        settings = api_settings.model_copy(update={**llm_settings(llm), "api_tokens": SecretStr(ADMIN)})
        with serve(create_app(settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as url:
            headers = {"Authorization": f"Bearer {ADMIN}"}
            first = httpx.post(f"{url}/api/v1/chat", headers=headers, timeout=60,
                               json={"employee_id": ids["ana"], "message": "tell me about the login bug"}).json()
            httpx.post(f"{url}/api/v1/chat", headers=headers, timeout=60,
                       json={"employee_id": ids["ana"], "message": "and its status?",
                             "conversation_id": first["conversation_id"]})
    assert len(llm.requests) >= 3
    assert {r["body"].get("max_tokens") for r in llm.requests} == {settings.llm_max_tokens} == {1024}
