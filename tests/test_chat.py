"""Chat: extractive answers offline, and the LLM path against a real loopback chat-completions server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.domain import SearchHit
from app.rag import prompting
from app.worker import Worker
from tests.support import employee, project, task

AUTH = {"Authorization": "Bearer test-token"}


class FakeLLM:
    """A threaded HTTP server on 127.0.0.1 speaking the OpenAI chat-completions protocol."""

    def __init__(self, reply: str | None = None, status: int = 200) -> None:
        self.reply, self.status, self.requests = reply, status, []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                payload = {"id": "x", "object": "chat.completion", "model": body["model"],
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": outer.reply}}]}
                data = json.dumps(payload if outer.status == 200 else {"error": "boom"}).encode()
                self.send_response(outer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # keep test output clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


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
                                                "conversation_id": "chat-1"}, headers=AUTH)
    body = response.json()
    assert response.status_code == 200 and body["llm_used"] is False and body["conversation_id"] == "chat-1"
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
    with FakeLLM(reply=f"Ana is fixing the logout after a password reset {anchor}. Also [TASK #999].") as llm:
        settings = sqlite_settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny", "llm_api_key": SecretStr("sk-test")})
        with client_for(settings, sqlite_engine) as c:
            body = c.post("/api/v1/chat", json={"message": "who fixes the login bug?", "employee_id": seeded["boss"]},
                          headers=AUTH).json()
    assert body["llm_used"] is True and body["answer"].startswith("Ana is fixing")
    assert body["citations"] == [anchor]  # [TASK #999] was not in the context: not a citation
    (request,) = llm.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "tiny"
    system, user = request["body"]["messages"]
    assert "ONLY from the context" in system["content"] and anchor in user["content"]
    assert user["content"].rstrip().endswith("Question: who fixes the login bug?")


def test_llm_failure_falls_back_to_extractive(sqlite_engine, sqlite_settings, seeded, caplog):
    with FakeLLM(reply="unused", status=500) as llm:
        settings = sqlite_settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny"})
        with client_for(settings, sqlite_engine) as c:
            body = c.post("/api/v1/chat", json={"message": "login bug", "employee_id": seeded["boss"]},
                          headers=AUTH).json()
    assert body["llm_used"] is False and f"[TASK #{seeded['task']}]" in body["citations"]
    assert llm.requests[0]["auth"] is None  # no key configured, no Authorization header
    assert any("LLM call failed" in r.message for r in caplog.records)


def test_unknown_caller_and_bad_body(sqlite_engine, sqlite_settings, seeded):
    with client_for(sqlite_settings, sqlite_engine) as c:
        assert c.post("/api/v1/chat", json={"message": "hi", "employee_id": 404}, headers=AUTH).status_code == 404
        assert c.post("/api/v1/chat", json={"message": "", "employee_id": 1}, headers=AUTH).status_code == 422
        assert c.post("/api/v1/chat", json={"message": "hi"}, headers=AUTH).status_code == 422


def hit(source_type, source_id, content):
    return SearchHit(source_type, source_id, 0, content, 0.1, 0.9)


def test_prompting_is_pure_and_bounded():
    hits = [hit("task", 1, "[TASK #1] A\nStatus: TODO\nMore"), hit("task", 1, "[TASK #1] A\n- a comment"),
            hit("doc", 2, "no anchor here")]
    assert prompting.unique_anchors(hits) == ["[TASK #1]", "[DOC #2]"]
    answer = prompting.extractive_answer(hits)
    assert answer.count("[TASK #1]") == 1 and "[DOC #2]" in answer and "A; Status: TODO; More" in answer
    assert prompting.extractive_answer([]) == prompting.NO_CONTEXT_ANSWER
    messages = prompting.build_messages("q?", [hit("task", i, "[TASK #%d] " % i + "x" * 100) for i in range(50)],
                                        max_chars=350)
    assert messages[1]["content"].count("[TASK #") == 3
    assert prompting.cited_anchors("see [DOC #2] and [TASK #7] and [DOC #2]", hits) == ["[DOC #2]"]
