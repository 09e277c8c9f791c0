"""Chat: extractive answers offline, and the LLM path against a real loopback chat-completions server
(tests/fake_llm.py)."""

from __future__ import annotations

import datetime as dt
import socket

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.domain import SearchHit
from app.rag import citations, prompting
from app.rag import extractive
from app.worker import Worker
from tests.fake_llm import FakeLLM, Reply
from tests.support import employee, project, task

AUTH = {"Authorization": "Bearer test-token"}


@pytest.fixture
def seeded(sqlite_engine, sqlite_settings):
    boss = employee(sqlite_engine, "Maria", "Lopez", role="MANAGER")
    dev = employee(sqlite_engine, "Ana", "Garcia")
    p = project(sqlite_engine, "Payments Platform")
    t = task(sqlite_engine, "Fix login bug after password reset", "Users are logged out after a reset",
             assignee_id=dev, project_id=p)
    other = task(sqlite_engine, "Refund flow times out", "Adyen refunds time out after 30 s", project_id=p)
    Worker(sqlite_engine, sqlite_settings).run_once()
    return {"boss": boss, "dev": dev, "task": t, "other": other}


def client_for(settings, engine):
    settings = settings.model_copy(update={"run_worker": False, "backfill_on_startup": False})
    return TestClient(create_app(settings, engine=engine))


def test_extractive_answer_without_an_llm(sqlite_engine, sqlite_settings, seeded):
    with client_for(sqlite_settings, sqlite_engine) as c:
        response = c.post("/api/v1/chat", json={"message": "login bug", "employee_id": seeded["boss"],
                                                }, headers=AUTH)
    body = response.json()
    assert response.status_code == 200 and body["llm_used"] is False and isinstance(body["conversation_id"], int)
    assert f"[TASK #{seeded['task']}]" in body["citations"]
    assert f"Fix login bug after password reset [TASK #{seeded['task']}]".split(" [")[0] in body["answer"]
    assert body["results"] and body["caller"]["role"] == "MANAGER"


def test_chat_respects_the_callers_access(sqlite_engine, sqlite_settings, seeded):
    with client_for(sqlite_settings, sqlite_engine) as c:
        body = c.post("/api/v1/chat", json={"message": "refund times out", "employee_id": seeded["dev"]},
                      headers=AUTH).json()
    assert f"[TASK #{seeded['other']}]" not in body["answer"] + " ".join(body["citations"])  # unassigned: managers only
    assert all(not (r["source_type"] == "task" and r["source_id"] == seeded["other"]) for r in body["results"])


def test_llm_answer_via_loopback_server(sqlite_engine, sqlite_settings, seeded):
    anchor = f"[TASK #{seeded['task']}]"
    with FakeLLM(f"Ana is fixing the logout after a password reset {anchor}.") as llm:
        settings = sqlite_settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny", "llm_api_key": SecretStr("sk-test")})
        with client_for(settings, sqlite_engine) as c:
            body = c.post("/api/v1/chat", json={"message": "who fixes the login bug?", "employee_id": seeded["boss"]},
                          headers=AUTH).json()
    assert body["llm_used"] is True and body["llm_error"] is None
    # (A reply that also cites an anchor it was not given is ungrounded as a whole: tests/api/test_answers.py.)
    assert body["answer"] == f"Ana is fixing the logout after a password reset {anchor}."
    assert body["citations"] == [anchor]
    (request,) = llm.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "tiny"
    system, user = request["body"]["messages"]
    assert "ONLY from the context" in system["content"] and anchor in user["content"]
    assert f"Maria Lopez (MANAGER, employee id {seeded['boss']})" in system["content"]
    assert dt.date.today().isoformat() in system["content"]
    assert "All projects" in system["content"]
    assert user["content"].rstrip().endswith("Question: who fixes the login bug?")


def _closed_port_url() -> str:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{closed.getsockname()[1]}/v1"


@pytest.mark.parametrize("reply, reason", [
    (Reply.status(500), "bad_response"), (Reply.raw_body(b"{not json"), "bad_response"),
    (Reply.silent(), "timeout"), (None, "unreachable"),
], ids=["500", "malformed", "silent", "unreachable"])
def test_llm_failure_answers_extractively_and_says_why(sqlite_engine, sqlite_settings, seeded, caplog, reply, reason):
    with FakeLLM(reply or Reply.plain("unused")) as llm:
        url = llm.url if reply is not None else _closed_port_url()
        settings = sqlite_settings.model_copy(update={"llm_url": url, "llm_model": "tiny", "llm_timeout_s": 0.5})
        with client_for(settings, sqlite_engine) as c:
            response = c.post("/api/v1/chat", json={"message": "login bug", "employee_id": seeded["boss"]},
                              headers={**AUTH, "X-Request-ID": f"req-{reason}-1"})
    body = response.json()
    assert response.status_code == 200 and body["llm_used"] is False and body["llm_error"] == reason
    assert f"[TASK #{seeded['task']}]" in body["citations"] and "Fix login bug" in body["answer"]
    if reply is not None:
        assert llm.requests[0]["auth"] is None  # no key configured, no Authorization header
    (line,) = [r for r in caplog.records if "LLM call failed" in r.getMessage()]
    assert f"req-{reason}-1" in line.getMessage() and line.llm_error == reason


def test_off_topic_question_gets_i_dont_know(sqlite_engine, sqlite_settings, seeded):
    with client_for(sqlite_settings, sqlite_engine) as c:
        body = c.post("/api/v1/chat", json={"message": "what is the capital of France?", "employee_id": seeded["boss"]},
                      headers=AUTH).json()
        spanish = c.post("/api/v1/chat", json={"message": "¿cuál es la receta de la paella?",
                                               "employee_id": seeded["boss"]}, headers=AUTH).json()
    assert body["answer"] == extractive.I_DONT_KNOW["en"] and body["citations"] == [] and body["results"]
    assert spanish["answer"] == extractive.I_DONT_KNOW["es"] and spanish["llm_error"] is None


def test_unknown_caller_and_bad_body(sqlite_engine, sqlite_settings, seeded):
    with client_for(sqlite_settings, sqlite_engine) as c:
        assert c.post("/api/v1/chat", json={"message": "hi", "employee_id": 404}, headers=AUTH).status_code == 404
        assert c.post("/api/v1/chat", json={"message": "", "employee_id": 1}, headers=AUTH).status_code == 422
        assert c.post("/api/v1/chat", json={"message": "hi"}, headers=AUTH).status_code == 422


def hit(source_type, source_id, content):
    return SearchHit(source_type, source_id, 0, content, 0.1, 0.9)


def test_anchors_and_citations():
    hits = [hit("task", 1, "[TASK #1] A\nStatus: TODO\nMore"), hit("task", 1, "[TASK #1] A\n- a comment"),
            hit("doc", 2, "no anchor here")]
    assert prompting.unique_anchors(hits) == ["[TASK #1]", "[DOC #2]"]
    cleaned = citations.clean("See [DOC #2] and [TASK #7] and [DOC #2].", prompting.unique_anchors(hits))
    assert (cleaned.text, cleaned.cited, cleaned.removed) == ("See [DOC #2] and [DOC #2].", ["[DOC #2]"], ["[TASK #7]"])
