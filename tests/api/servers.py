"""Real loopback servers for the API tests: the app under uvicorn, and an LLM that never answers."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn


@contextmanager
def serve(app, **config) -> Iterator[str]:
    """Run `app` under uvicorn on 127.0.0.1 (a free port) in a thread; yield its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


class BlackHoleLLM:
    """A TCP server on 127.0.0.1 that accepts every connection, reads nothing and never answers."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=256)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.listener.settimeout(0.1)  # so the accept loop notices the stop flag
        self.accepted: list[socket.socket] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.accepted.append(conn)

    def __enter__(self) -> BlackHoleLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.listener.close()
        for conn in self.accepted:
            conn.close()


def sse_events(response) -> list[tuple[str, dict]]:
    """The (event, JSON data) pairs of a Server-Sent Events response (an httpx streamed response)."""
    import json

    out, name = [], None
    for line in response.iter_lines():
        if line.startswith("event:"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and name:
            out.append((name, json.loads(line.split(":", 1)[1])))
            name = None
    return out


def hang_up_while_waiting(app, url: str, path: str, body: bytes, authorization: str, llm) -> float:
    """POST ``body`` over a raw socket, close it once the loopback ``llm`` has the request (the turn holds a
    chat slot meanwhile), and return how long the app took to free the slot after the hang-up (at most 10 s)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                    f"Authorization: {authorization}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        deadline = time.monotonic() + 10
        while not llm.requests:  # the turn is waiting for the LLM
            assert time.monotonic() < deadline, "the turn never reached the LLM"
            time.sleep(0.05)
        assert app.state.chat_slots.in_use == 1
    hung_up = time.monotonic()
    while app.state.chat_slots.in_use and time.monotonic() < hung_up + 10:
        time.sleep(0.05)
    return time.monotonic() - hung_up
