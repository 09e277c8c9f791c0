"""The HTTP server every loopback fake runs on: a real one, with a real server's listen backlog.

http.server's default backlog is 5: a burst of connections (a bot answering four chats at once, an API
streaming to several clients) overflows it, the kernel drops the SYNs, and the client retries one to
three seconds later, so a fake would add seconds that no production server adds (and tests that judge
time would fail for it). uvicorn's backlog is 2048, tornado's 128.
"""

from __future__ import annotations

from http.server import ThreadingHTTPServer


class LoopbackHTTPServer(ThreadingHTTPServer):
    request_queue_size = 128
