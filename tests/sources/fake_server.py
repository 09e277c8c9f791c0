"""What the loopback fakes of a tracker share: a real HTTP server on 127.0.0.1 in a thread, the requests it
got, and failures scripted per path (a status and headers, so many times)."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler

from tests.loopback import LoopbackHTTPServer


class FakeServer:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.requests: list[tuple[str, dict]] = []
        self.failures: list[list] = []  # [path regex, status, headers, times left]
        self.lock = threading.Lock()
        self.server = LoopbackHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def fail(self, path: str, status: int, headers: dict | None = None, times: int = 1) -> None:
        """The next ``times`` requests to a path matching ``path`` answer ``status`` with ``headers``."""
        self.failures.append([re.compile(path), status, headers or {}, times])

    def scripted_failure(self, path: str) -> tuple[int, dict] | None:
        """Call with the lock held: the failure this request takes, if one is scripted."""
        for failure in self.failures:
            if failure[3] > 0 and failure[0].search(path):
                failure[3] -= 1
                return failure[1], failure[2]
        return None
