"""POST /chat/stream over real sockets (the app under uvicorn, the fake LLM on loopback): token events
then one done event with the POST /chat fields; input errors as JSON; a disconnect stores nothing."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from app.api.main import create_app
from tests.fake_llm import FakeLLM, Reply

from .chat_data import AUTH, llm_settings, seed
from .servers import hang_up_while_waiting, serve, sse_events


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


def app_for(settings, engine, **update):
    return create_app(settings.model_copy(update={"run_worker": False, "backfill_on_startup": False, **update}),
                      engine=engine)


def test_tokens_then_one_done_event_with_the_chat_fields(sqlite_engine, sqlite_settings, ids):
    login = f"[TASK #{ids['login']}]"
    loose = login.lower().replace("#", "# ")  # "[task # 1]": the check reads it, done carries it canonical
    with FakeLLM(Reply.stream("Ana ", "fixes it ", f"{loose}.")) as llm:
        app = app_for(sqlite_settings, sqlite_engine, **llm_settings(llm, chat_max_tool_rounds=0))
        with serve(app) as url, httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
            with c.stream("POST", "/api/v1/chat/stream", json={"employee_id": ids["boss"],
                                                               "message": "who fixes the login bug?"}) as r:
                assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
                got = sse_events(r)
            plain = c.post("/api/v1/chat", json={"employee_id": ids["boss"], "message": "login bug"}).json()
            stored = c.get(f"/api/v1/conversations/{got[-1][1]['conversation_id']}/messages",
                           params={"employee_id": ids["boss"]}).json()
    names = [name for name, _ in got]
    assert names == ["token", "token", "token", "done"]
    assert "".join(data["text"] for _, data in got[:-1]) == f"Ana fixes it {loose}."
    done = got[-1][1]
    assert set(done) == set(plain) and done["llm_used"] is True
    assert done["answer"] == f"Ana fixes it {login}." and done["citations"] == [login]  # checked in done
    assert [m["content"] for m in stored["items"]] == ["who fixes the login bug?", done["answer"]]
    assert stored["items"][1]["message_id"] == done["message_id"]


def test_with_tools_and_offline_the_answer_still_arrives_as_tokens_then_done(sqlite_engine, sqlite_settings, ids):
    with FakeLLM(Reply.stream_tools(("c1", "set_rag_scope", json.dumps({"scope": "none"}))),
                 Reply.stream("Done.")) as llm:
        app = app_for(sqlite_settings, sqlite_engine, **llm_settings(llm))
        with serve(app) as url, httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
            with c.stream("POST", "/api/v1/chat/stream",
                          json={"employee_id": ids["boss"], "message": "org-wide documents only"}) as r:
                tooled = sse_events(r)
    offline_app = app_for(sqlite_settings, sqlite_engine)
    with serve(offline_app) as url, httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        with c.stream("POST", "/api/v1/chat/stream", json={"employee_id": ids["ana"], "message": "login bug"}) as r:
            offline = sse_events(r)
        bad = c.post("/api/v1/chat/stream", json={"employee_id": ids["ana"], "message": "hi", "conversation_id": 77})
    assert [n for n, _ in tooled] == ["token", "done"] and tooled[1][1]["new_rag_scope"] == "none"
    assert tooled[1][1]["new_rag_scope_label"] == "No project" and tooled[0][1]["text"] == "Done."
    assert [n for n, _ in offline] == ["token", "done"] and offline[1][1]["llm_used"] is False
    assert offline[0][1]["text"] == offline[1][1]["answer"] and "Fix login bug" in offline[1][1]["answer"]
    assert bad.status_code == 404 and bad.headers["content-type"] == "application/json"


def test_with_tools_the_answer_after_a_tool_round_streams_token_by_token(sqlite_engine, sqlite_settings, ids):
    login = f"[TASK #{ids['login']}]"
    chunks = ("Ana ", "is fixing ", "the login bug ", f"{login.lower()} ", "this week.")
    scope_call = ("c1", "set_rag_scope", json.dumps({"scope": ids["mobile"]}))
    with FakeLLM(Reply.stream_tools(scope_call, pieces=4), Reply.stream(*chunks)) as llm:
        app = app_for(sqlite_settings, sqlite_engine, **llm_settings(llm))  # tools on (the default rounds)
        with serve(app) as url, httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
            with c.stream("POST", "/api/v1/chat/stream",
                          # the asker asks for the scope: set_rag_scope runs only then (issue 26, point 8)
                          json={"employee_id": ids["boss"],
                                "message": "only the mobile app project from now on: who fixes the login bug?"}) as r:
                got = sse_events(r)
            stored = c.get(f"/api/v1/conversations/{got[-1][1]['conversation_id']}/messages",
                           params={"employee_id": ids["boss"]}).json()
    names = [name for name, _ in got]
    assert names == ["token"] * len(chunks) + ["done"]  # one token event per streamed chunk
    assert "".join(data["text"] for _, data in got[:-1]) == "".join(chunks)  # the raw answer
    done = got[-1][1]
    assert done["llm_used"] is True and done["new_rag_scope"] == str(ids["mobile"])
    assert done["new_rag_scope_label"] == "Mobile App"
    assert done["answer"] == f"Ana is fixing the login bug {login} this week." and done["citations"] == [login]
    assert [r["body"]["stream"] for r in llm.requests] == [True, True]
    assert "tools" in llm.requests[1]["body"]  # the second round could still call a tool
    assistant, result = llm.requests[1]["body"]["messages"][-2:]  # the assembled call, then its result
    assert assistant["tool_calls"][0]["function"] == {"name": "set_rag_scope",
                                                      "arguments": json.dumps({"scope": ids["mobile"]})}
    assert result["role"] == "tool" and result["tool_call_id"] == "c1"
    assert stored["items"][1]["content"] == done["answer"]


@pytest.mark.parametrize("rounds", [0, 3], ids=["tools-off", "tools-on"])
def test_a_disconnect_mid_stream_stops_the_chat_and_stores_nothing(sqlite_engine, sqlite_settings, ids, rounds):
    slow = Reply.stream(*[f"word{i} " for i in range(40)], delay_s=0.25)  # 10 s if read to the end
    with FakeLLM(slow) as llm:
        app = app_for(sqlite_settings, sqlite_engine,
                      **llm_settings(llm, chat_max_tool_rounds=rounds, llm_timeout_s=30))
        with serve(app) as url, httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
            with c.stream("POST", "/api/v1/chat/stream", json={"employee_id": ids["boss"], "message": "login"}) as r:
                for line in r.iter_lines():
                    if line.startswith("event: token"):
                        break  # the first token arrived: hang up
            deadline = time.monotonic() + 3
            while app.state.chat_slots.in_use and time.monotonic() < deadline:
                time.sleep(0.05)
            listed = c.get("/api/v1/conversations", params={"employee_id": ids["boss"]}).json()
    assert app.state.chat_slots.in_use == 0  # the chat ended within 3 s, long before the LLM would have
    assert listed["items"] == [] and len(llm.requests) == 1


def test_a_plain_chat_whose_client_hangs_up_stops_frees_its_slot_and_stores_nothing(sqlite_engine, sqlite_settings,
                                                                                    ids):
    """The same for POST /chat (issue 20, point 8): a real client closes its socket while the loopback LLM
    is still thinking; the chat is cancelled at once, not when the LLM answers 10 s later."""
    with FakeLLM(Reply.plain("Ana fixes it.", delay_s=10)) as llm:
        app = app_for(sqlite_settings, sqlite_engine, **llm_settings(llm, chat_max_tool_rounds=0, llm_timeout_s=30))
        with serve(app) as url, httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
            body = json.dumps({"employee_id": ids["boss"], "message": "who fixes the login bug?"}).encode()
            freed_after = hang_up_while_waiting(app, url, "/api/v1/chat", body, AUTH["Authorization"], llm)
            listed = c.get("/api/v1/conversations", params={"employee_id": ids["boss"]}).json()
    assert app.state.chat_slots.in_use == 0 and freed_after < 3  # long before the LLM's 10 s
    assert listed["items"] == [] and len(llm.requests) == 1
