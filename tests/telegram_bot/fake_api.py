"""A real loopback HTTP server speaking OUR API's bot contract (/tmp issue 8, docs/TELEGRAM.md).

Implements what the bot uses, with the contract's rules:

* ``POST /api/v1/chat/stream`` {telegram_id, message (1..2000), conversation_id?, rag_scope? (only when
  creating)} → ``text/event-stream``: ``event: token`` {"text"} …, then one ``event: done`` with the
  POST /chat fields; before the stream: 401 bad token, 404 unknown telegram id or a conversation that is
  unknown or someone else's, 422 bad body or scope, or a scripted status (503, 502); a scripted failure
  after the stream began is ``event: error`` {"detail"} and nothing is stored; a scripted LLM failure
  mid-answer is ``event: reset`` {"reason": "llm_error", "llm_error"}, then the tokens of the answer
  from its start.
* ``PATCH /api/v1/conversations/{id}?telegram_id=…`` {rag_scope} → the conversation; 404 / 422 as above.
* ``GET /api/v1/chat/caller?telegram_id=…`` → {employee_id, role, first_name}; 404 unknown.
* ``GET /api/v1/chat/projects?telegram_id=…[&query=…]`` → {items: [{project_id, name, score}], total,
  next_cursor}: by name, or ranked
  by a stand-in for search_projects' score (1.0 the exact name, 0.8 every query word in the name, else
  0.1; the real ranking is the real API's, tests/telegram_bot/test_against_the_real_api.py).
* ``GET /api/v1/token`` → the token's {name, scope, employee_ids, roles}.

Each chat takes the next scripted ``ChatReply`` (the last one repeats), from the asker's own script when
``per_user`` gives one (chats run at once, so which chat asks first is not scripted); every request is
recorded, with its ``X-Request-ID``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.loopback import LoopbackHTTPServer

BACKEND_TOKEN = "bot-token-for-tests"


@dataclass(frozen=True)
class ChatReply:
    tokens: tuple[str, ...] = ("Hello",)
    answer: str | None = None  # the done event's answer; default: the tokens joined
    citations: tuple[str, ...] = ()
    delay_s: float = 0.0  # between tokens
    status: int | None = None  # answer this status (JSON detail) instead of a stream
    fail_after: int | None = None  # send `event: error` after this many tokens
    fail_code: int = 500  # the error event's code: the status POST /chat would answer (503: retry later)
    new_rag_scope: str | None = None  # as if a model tool had switched the scope
    llm_error: str | None = None
    reset_after: int | None = None  # send `event: reset` after this many tokens, then `after_reset`
    after_reset: tuple[str, ...] = ()
    hold_after: int | None = None  # after this many tokens, wait (up to 30 s) until `hold_until()` holds
    hold_until: Callable[[], bool] | None = None


@dataclass
class Conversation:
    id: int
    employee_id: int
    rag_scope: str
    messages: list[tuple[str, str]] = field(default_factory=list)


class FakeAPI:
    def __init__(self, *replies: ChatReply, employees: dict[str, int] | None = None,
                 projects: dict[int, str] | None = None, token: str = BACKEND_TOKEN,
                 people: dict[int, tuple[str, str]] | None = None,
                 per_user: dict[str, list[ChatReply]] | None = None) -> None:
        self.script = list(replies) or [ChatReply()]
        self.per_user = per_user or {}  # telegram id -> that person's own script
        self.employees = employees if employees is not None else {"7": 1}  # telegram id -> employee id
        self.people = people if people is not None else {1: ("Ana", "DEVELOPER")}  # employee id -> name, role
        self.projects = projects if projects is not None else {3: "Login revamp"}
        self.token = token
        self.conversations: dict[int, Conversation] = {}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._next_id = 40
        self.server = LoopbackHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FakeAPI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def asked(self) -> list[dict[str, Any]]:
        """The requests besides the bot's start-up check of its token."""
        return [r for r in self.requests if r["path"] != "/api/v1/token"]

    def chats(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"] == "/api/v1/chat/stream"]

    def label(self, scope: str) -> str:
        return {"all": "All projects", "none": "No project"}.get(scope) or self.projects[int(scope)]

    def _valid_scope(self, scope: Any) -> bool:
        return scope in ("all", "none") or (isinstance(scope, str) and scope.isdigit() and int(scope) in self.projects)

    def _next_reply(self, telegram_id: str) -> ChatReply:
        with self._lock:
            script = self.per_user.get(telegram_id, self.script)
            return script.pop(0) if len(script) > 1 else script[0]

    def _describe(self, c: Conversation) -> dict[str, Any]:
        return {"conversation_id": c.id, "title": c.messages[0][1][:60] if c.messages else "",
                "rag_scope": c.rag_scope, "rag_scope_label": self.label(c.rag_scope), "pinned_project_id": None,
                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}

    def _ranked(self, query: str) -> list[dict[str, Any]]:
        def score(name: str) -> float:
            if name.casefold() == query.casefold():
                return 1.0
            return 0.8 if set(query.casefold().split()) <= set(name.casefold().split()) else 0.1

        found = [{"project_id": i, "name": n, "score": score(n)} for i, n in self.projects.items()]
        return sorted(found, key=lambda p: (-p["score"], p["project_id"]))[:5]

    def _conversation(self, conversation_id: Any, employee_id: int) -> Conversation | None:
        c = self.conversations.get(conversation_id) if isinstance(conversation_id, int) else None
        return c if c is not None and c.employee_id == employee_id else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # a streamed body ends when the connection closes

            def log_message(self, *args: Any) -> None:
                pass

            def _body(self) -> Any:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    return json.loads(raw or b"null")
                except ValueError:
                    return None

            def _json(self, code: int, payload: Any) -> None:
                body = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _start(self) -> tuple[str, dict[str, list[str]], Any] | None:
                url = urlsplit(self.path)
                body = self._body()
                fake.requests.append({"method": self.command, "path": url.path, "query": url.query, "body": body,
                                      "authorization": self.headers.get("Authorization"),
                                      "request_id": self.headers.get("X-Request-ID")})
                if self.headers.get("Authorization") != f"Bearer {fake.token}":
                    self._json(401, {"detail": "missing or invalid bearer token"})
                    return None
                return url.path, parse_qs(url.query), body

            def do_POST(self) -> None:
                started = self._start()
                if started is None:
                    return
                path, _, body = started
                if path != "/api/v1/chat/stream":
                    return self._json(404, {"detail": "Not Found"})
                self._chat(body if isinstance(body, dict) else {})

            def do_GET(self) -> None:
                started = self._start()
                if started is None:
                    return
                path, query, _ = started
                if path == "/api/v1/token":
                    return self._json(200, {"name": "telegram", "scope": "bot", "employee_ids": None, "roles": None})
                employee = fake.employees.get((query.get("telegram_id") or [""])[0])
                if path not in ("/api/v1/chat/caller", "/api/v1/chat/projects"):
                    return self._json(404, {"detail": "Not Found"})
                if employee is None:
                    return self._json(404, {"detail": "employee not found"})
                if path == "/api/v1/chat/caller":
                    first_name, role = fake.people[employee]
                    return self._json(200, {"employee_id": employee, "role": role, "first_name": first_name})
                if "query" in query:
                    found = fake._ranked(query["query"][0])
                else:
                    listed = sorted(fake.projects.items(), key=lambda p: p[1].casefold())
                    found = [{"project_id": i, "name": n, "score": None} for i, n in listed]
                self._json(200, {"items": found, "total": len(found), "next_cursor": None})

            def do_PATCH(self) -> None:
                started = self._start()
                if started is None:
                    return
                path, query, body = started
                match = re.fullmatch(r"/api/v1/conversations/(\d+)", path)
                employee = fake.employees.get((query.get("telegram_id") or [""])[0])
                conversation = fake._conversation(int(match[1]), employee) if match and employee else None
                if conversation is None:
                    return self._json(404, {"detail": "conversation not found"})
                scope = body.get("rag_scope") if isinstance(body, dict) else None
                if not fake._valid_scope(scope):
                    return self._json(422, {"detail": [{"loc": ["body", "rag_scope"], "msg": "unknown project"}]})
                conversation.rag_scope = scope
                self._json(200, fake._describe(conversation))

            def _chat(self, body: dict[str, Any]) -> None:
                employee = fake.employees.get(body.get("telegram_id"))
                if employee is None:
                    return self._json(404, {"detail": "employee not found"})
                message = body.get("message")
                if not isinstance(message, str) or not 1 <= len(message) <= 2000:
                    return self._json(422, {"detail": [{"loc": ["body", "message"], "msg": "1 to 2000 characters"}]})
                conversation = None
                if body.get("conversation_id") is not None:
                    conversation = fake._conversation(body["conversation_id"], employee)
                    if conversation is None:
                        return self._json(404, {"detail": "conversation not found"})
                    if "rag_scope" in body:
                        return self._json(422, {"detail": "rag_scope is only accepted when creating a conversation"})
                scope = body.get("rag_scope", "all")
                if not fake._valid_scope(scope):
                    return self._json(422, {"detail": [{"loc": ["body", "rag_scope"], "msg": "unknown project"}]})
                reply = fake._next_reply(body["telegram_id"])
                if reply.status is not None:
                    return self._json(reply.status, {"detail": f"scripted {reply.status}"})
                self._stream(reply, employee, message, conversation, scope)

            def _event(self, name: str, data: dict[str, Any]) -> None:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def _stream(self, reply: ChatReply, employee: int, message: str,
                        conversation: Conversation | None, scope: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                for i in range(len(reply.tokens) + 1):  # i: how many tokens were sent
                    if i == reply.fail_after:
                        return self._event("error", {  # nothing stored
                            "detail": "the database cannot store the turn" if reply.fail_code == 503 else "internal error",
                            "code": reply.fail_code, "retry_after_s": 30 if reply.fail_code == 503 else None})
                    if i == reply.hold_after:
                        deadline = time.monotonic() + 30  # only a failing test waits this long
                        while not reply.hold_until() and time.monotonic() < deadline:
                            time.sleep(0.01)
                    if i == reply.reset_after:
                        self._event("reset", {"reason": "llm_error", "llm_error": reply.llm_error or "timeout"})
                        break
                    if i == len(reply.tokens):
                        break
                    self._event("token", {"text": reply.tokens[i]})
                    time.sleep(reply.delay_s)
                for token in reply.after_reset:
                    self._event("token", {"text": token})
                    time.sleep(reply.delay_s)
                streamed = reply.after_reset if reply.reset_after is not None else reply.tokens
                answer = reply.answer if reply.answer is not None else "".join(streamed)
                with fake._lock:  # both turns stored only now that the answer exists
                    if conversation is None:
                        fake._next_id += 1
                        conversation = Conversation(fake._next_id, employee, scope)
                        fake.conversations[conversation.id] = conversation
                    if reply.new_rag_scope is not None:
                        conversation.rag_scope = reply.new_rag_scope
                    conversation.messages += [("user", message), ("assistant", answer)]
                done = {"conversation_id": conversation.id, "message_id": len(conversation.messages) * 10,
                        "answer": answer, "citations": list(reply.citations), "results": [],
                        "llm_used": reply.llm_error is None, "llm_error": reply.llm_error,
                        "rag_scope": conversation.rag_scope, "rag_scope_label": fake.label(conversation.rag_scope),
                        "caller": {"employee_id": employee, "role": "DEVELOPER"}, "timings_ms": {"total": 1.0}}
                if reply.new_rag_scope is not None:
                    done |= {"new_rag_scope": reply.new_rag_scope, "new_rag_scope_label": fake.label(reply.new_rag_scope)}
                self._event("done", done)

        return Handler
