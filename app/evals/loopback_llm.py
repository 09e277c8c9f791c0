"""A loopback OpenAI-compatible chat model for the conversation benchmark: a real HTTP server on
127.0.0.1 whose replies are computed from the prompt it is sent, so every question gets a fitting one.

- ``honest``: answers from the context it is given, as the system prompt asks — when that says the first
  block is the answer computed from the records (prompting.COMPUTED_RULE), it repeats that block alone;
  otherwise the context is the retrieved records the relevance gate passed, and it repeats them all (a
  list question is answered by every record given, not the best one). It cites only anchors in them; with
  no context it says it does not know. A follow-up rewrite request gets the question and the focus.
- ``inventing``: the honest reply plus an anchor that was never in its context and another one that may
  exist but was not given: "[TASK #99999]. See also [SPRINT #1]." (the weak model of issue 23, point 5).

It never calls a tool and never streams (the benchmark asks through the plain chat turn).

    with LoopbackLLM("honest") as llm:
        settings = settings.model_copy(update={"llm_url": llm.url, "llm_model": "loopback"})
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from app.rag.prompting import BLOCK_SEPARATOR, COMPUTED_RULE, NO_CONTEXT

MODES = ("honest", "inventing")
INVENTED = " [TASK #99999]. See also [SPRINT #1]."


def reply_to(messages: list[dict[str, Any]], mode: str) -> str:
    """The reply of the model in ``mode`` to a chat-completions message list."""
    last = next((m for m in reversed(messages) if m.get("role") == "user"), {})
    content = str(last.get("content") or "")
    if "Last question:" in content:  # app/rag/followup.condensation_messages: a standalone query
        question = content.rsplit("Last question:", 1)[1].strip()
        about = content.split("The conversation is about:", 1)[1].split("\n", 1)[0].strip() \
            if "The conversation is about:" in content else ""
        return f"{question} {about}".strip()
    if content.startswith("Context:") and "\n\nQuestion:" in content:
        context = content[len("Context:"):].rsplit("\n\nQuestion:", 1)[0].strip()
        blocks = [b.strip() for b in context.split(BLOCK_SEPARATOR)]
        computed = any(COMPUTED_RULE in str(m.get("content") or "") for m in messages if m.get("role") == "system")
        said = blocks[:1] if computed else blocks
        honest = "I don't know." if not said[0] or said[0] == NO_CONTEXT else "\n\n".join(said)
    else:
        honest = "I don't know."
    return honest + INVENTED if mode == "inventing" else honest


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # a real server's backlog (tests/loopback.py says why)
    daemon_threads = True


class LoopbackLLM:
    """ThreadingHTTPServer on 127.0.0.1 (a free port); ``url`` is its OpenAI-style base URL (…/v1)."""

    def __init__(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        self.mode = mode
        self.requests = 0
        self._lock = threading.Lock()
        self.server = _Server(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def _handler(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: the client reuses one connection per turn

            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer._lock:
                    outer.requests += 1
                text = reply_to(body.get("messages") or [], outer.mode)
                data = json.dumps({"id": "chatcmpl-loopback", "object": "chat.completion",
                                   "model": body.get("model"), "choices": [{
                                       "index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": text}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # keep the benchmark's output clean
                pass

        return Handler

    def __enter__(self) -> LoopbackLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
