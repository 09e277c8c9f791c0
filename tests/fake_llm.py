"""A real loopback HTTP server speaking the OpenAI chat-completions protocol, with scripted replies.

Each request takes the next scripted ``Reply`` (the last one repeats), and is recorded (path,
Authorization header, JSON body) so a test can inspect the prompt it got. Replies: plain text, tool
calls, a streamed answer (SSE ``data:`` chunks, ``[DONE]`` optional), a streamed tool-call round
(fragments split across chunks, as OpenAI sends them), slow, silent, any HTTP status,
raw bytes (malformed JSON), and a model that does not stop (``endless``: streamed or plain, it goes on
until the client hangs up, which the server notices and records). ``one_at_a_time`` makes it answer one
request at a time, as llama.cpp's server does, so an abandoned request that is not closed holds the next.
``events`` records, in order, each request's arrival, start, the client's hang-up and its end.
Real sockets, no patched functions.

    with FakeLLM(Reply.plain("Hi [TASK #1]"), Reply.status(500)) as llm:
        settings = settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny"})
"""

from __future__ import annotations

import json
import select
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.loopback import LoopbackHTTPServer


@dataclass(frozen=True)
class Reply:
    kind: str  # text | tools | stream | status | raw | silent | endless
    text: str | None = None
    tool_calls: tuple[tuple[str, str, str], ...] = ()  # (id, name, arguments as the JSON *string* sent)
    chunks: tuple[str, ...] = ()
    done: bool = True  # stream: end with data: [DONE]
    code: int = 200
    raw: bytes = b""
    delay_s: float = 0.0  # before the reply (slow), or between stream chunks
    tool_deltas: tuple[dict[str, Any], ...] = ()  # stream: one delta.tool_calls fragment per chunk, after the text
    extra: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def plain(text: str | None, delay_s: float = 0.0) -> Reply:
        return Reply("text", text=text, delay_s=delay_s)

    @staticmethod
    def tools(*calls: tuple[str, str, str], text: str | None = None) -> Reply:
        return Reply("tools", text=text, tool_calls=tuple(calls))

    @staticmethod
    def stream(*chunks: str, done: bool = True, delay_s: float = 0.0) -> Reply:
        return Reply("stream", chunks=chunks, done=done, delay_s=delay_s)

    @staticmethod
    def stream_tools(*calls: tuple[str, str, str], pieces: int = 3, text: tuple[str, ...] = (),
                     done: bool = True) -> Reply:
        """A streamed tool-call round as OpenAI sends it: per call, a first fragment with its index, id
        and name, then its arguments string cut into `pieces` fragments, the calls interleaved (so
        only the index says which call a piece belongs to); optional text chunks before them."""
        fragments: list[dict[str, Any]] = [
            {"index": i, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
            for i, (call_id, name, _) in enumerate(calls)]
        for piece in range(pieces):
            for i, (_, _, arguments) in enumerate(calls):
                size = -(-len(arguments) // pieces)
                fragments.append({"index": i, "function": {"arguments": arguments[piece * size:(piece + 1) * size]}})
        return Reply("stream", chunks=text, tool_deltas=tuple(fragments), done=done)

    @staticmethod
    def status(code: int) -> Reply:
        return Reply("status", code=code)

    @staticmethod
    def raw_body(raw: bytes, content_type: str = "application/json") -> Reply:
        return Reply("raw", raw=raw, extra={"content_type": content_type})

    @staticmethod
    def endless(streamed: bool = True, delay_s: float = 0.05) -> Reply:
        """A model that does not stop: streamed, a word every ``delay_s`` until the client hangs up; plain, no
        answer until the client hangs up (watched every ``delay_s``)."""
        return Reply("endless", delay_s=delay_s, extra={"streamed": streamed})

    @staticmethod
    def silent() -> Reply:
        """Reads the request, then never answers (until the server stops)."""
        return Reply("silent")


def completion(model: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-x", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}


class FakeLLM:
    """ThreadingHTTPServer on 127.0.0.1 (a free port); ``url`` is its OpenAI-style base URL (…/v1)."""

    def __init__(self, *replies: Reply | str | None, status: int | None = None, one_at_a_time: bool = False) -> None:
        script = [r if isinstance(r, Reply) else Reply.plain(r) for r in replies]
        if status is not None and status != 200:
            script = [Reply.status(status)]
        self.script = script or [Reply.plain("ok")]
        self.requests: list[dict[str, Any]] = []
        self.events: list[tuple[str, int]] = []  # ("arrived" | "started" | "hung_up" | "ended", request number)
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._serial = threading.Lock() if one_at_a_time else None
        self.server = LoopbackHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def _next(self, request: dict[str, Any]) -> tuple[int, Reply]:
        with self._lock:
            self.requests.append(request)
            self.events.append(("arrived", len(self.requests)))
            return len(self.requests), self.script[min(len(self.requests), len(self.script)) - 1]

    def _event(self, what: str, number: int) -> None:
        with self._lock:
            self.events.append((what, number))

    def _handler(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                number, reply = outer._next({"path": self.path, "auth": self.headers.get("Authorization"),
                                             "body": body})
                if outer._serial is None:
                    self._answer(number, reply, body)
                    return
                with outer._serial:
                    self._answer(number, reply, body)

            def _answer(self, number: int, reply: Reply, body: dict[str, Any]) -> None:
                outer._event("started", number)
                try:
                    if reply.kind == "endless":
                        outer._endless(self, reply, body.get("model"), number)
                    elif reply.kind == "silent" or outer.stopping.wait(reply.delay_s if reply.kind != "stream" else 0):
                        outer.stopping.wait()
                    else:
                        outer._send(self, reply, body.get("model"))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away (a timeout, a closed stream): nothing to tell it
                finally:
                    outer._event("ended", number)

            def log_message(self, *args):  # keep test output clean
                pass

        return Handler

    def _send(self, handler: BaseHTTPRequestHandler, reply: Reply, model: str | None) -> None:
        if reply.kind == "stream":
            self._send_stream(handler, reply, model)
            return
        content_type = "application/json"
        if reply.kind == "text":
            data = json.dumps(completion(model, {"role": "assistant", "content": reply.text})).encode()
        elif reply.kind == "tools":
            calls = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                     for i, n, a in reply.tool_calls]
            data = json.dumps(completion(model, {"role": "assistant", "content": reply.text,
                                                 "tool_calls": calls})).encode()
        elif reply.kind == "status":
            data = json.dumps({"error": {"message": "boom", "type": "server_error"}}).encode()
        else:
            data, content_type = reply.raw, reply.extra.get("content_type", content_type)
        handler.send_response(reply.code)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _endless(self, handler: BaseHTTPRequestHandler, reply: Reply, model: str | None, number: int) -> None:
        """Generate until the client hangs up (or the server stops), and record the hang-up when it is seen."""
        conn: socket.socket = handler.connection
        if reply.extra.get("streamed", True):
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.end_headers()
        while not self.stopping.wait(reply.delay_s):
            try:
                if reply.extra.get("streamed", True):
                    event = {"id": "c", "object": "chat.completion.chunk", "model": model,
                             "choices": [{"index": 0, "delta": {"content": "and "}, "finish_reason": None}]}
                    handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    handler.wfile.flush()
                if select.select([conn], [], [], 0)[0] and not conn.recv(1, socket.MSG_PEEK):
                    break  # end of the client's side: it closed the connection
            except (BrokenPipeError, ConnectionResetError):
                break
        else:
            return
        self._event("hung_up", number)

    def _send_stream(self, handler: BaseHTTPRequestHandler, reply: Reply, model: str | None) -> None:
        """HTTP/1.0: the body ends when the connection closes, as an SSE stream may."""
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        first = {"id": "c", "object": "chat.completion.chunk", "model": model,
                 "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}
        handler.wfile.write(f"data: {json.dumps(first)}\n\n".encode())
        for chunk in reply.chunks:
            if reply.delay_s and self.stopping.wait(reply.delay_s):
                return
            event = {"id": "c", "object": "chat.completion.chunk", "model": model,
                     "choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}]}
            handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            handler.wfile.flush()
        for fragment in reply.tool_deltas:
            event = {"id": "c", "object": "chat.completion.chunk", "model": model,
                     "choices": [{"index": 0, "delta": {"tool_calls": [fragment]}, "finish_reason": None}]}
            handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        last = {"id": "c", "object": "chat.completion.chunk", "model": model, "choices": [
            {"index": 0, "delta": {}, "finish_reason": "tool_calls" if reply.tool_deltas else "stop"}]}
        handler.wfile.write(f"data: {json.dumps(last)}\n\n".encode())
        if reply.done:
            handler.wfile.write(b"data: [DONE]\n\n")

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()  # releases silent and slow handlers
        self.server.shutdown()
        self.server.server_close()
