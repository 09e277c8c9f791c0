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
