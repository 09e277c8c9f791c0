"""Loopback servers that behave badly (issue 33), on real sockets: a route function answers each GET with a status,
headers and a body given in chunks, each chunk after a pause (a trickle), so a test can serve a body that never
ends, pages that never end, a Link to a page already read or to another host, a redirect elsewhere. Every request
is recorded with its Authorization header, so a test can see where a token went.

``HostileJira`` is the loopback Jira (fake_jira.py) with a misbehaviour switched on: a v3 ``nextPageToken`` that
repeats, a v2 search or comment list that ignores ``startAt``, a comment ``total`` of 1e9 (pages repeated, or
fresh comments without end)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.loopback import LoopbackHTTPServer
from tests.sources import jira_data
from tests.sources.fake_jira import FakeJira


@dataclass
class Reply:
    status: int = 200
    headers: dict = field(default_factory=dict)
    chunks: Iterable[bytes] = ()
    pause_s: float = 0.0  # before each chunk
    length: int | None = None  # Content-Length (None: the body is sent chunked… by closing the connection)


class ScriptedServer:
    def __init__(self, route: Callable[[str, dict, "ScriptedServer"], Reply]) -> None:
        self.route = route
        self.requests: list[tuple[str, dict, str | None]] = []  # path, query, Authorization
        self.sent_bytes = 0
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # a body without Content-Length ends when the connection closes

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                server.requests.append((url.path, query, self.headers.get("Authorization")))
                reply = server.route(url.path, query, server)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.length is not None:
                    self.send_header("Content-Length", str(reply.length))
                self.end_headers()
                try:
                    for chunk in reply.chunks:
                        if reply.pause_s and server.stopping.wait(reply.pause_s):
                            return
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        server.sent_bytes += len(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client cut the response: what a bound does

        self.server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def json_reply(data: bytes, headers: dict | None = None) -> Reply:
    return Reply(200, {"Content-Type": "application/json", **(headers or {})}, [data], length=len(data))


def endless(chunk: bytes) -> Iterable[bytes]:
    while True:
        yield chunk


def github_issue(number: int, comments: int = 0) -> dict:
    return {"id": 1000 + number, "number": number, "title": f"Issue {number}", "body": "", "state": "open",
            "user": {"login": "octocat", "id": 1}, "labels": [], "assignee": None, "assignees": [],
            "milestone": None, "comments": comments, "created_at": "2026-11-02T09:00:00Z",
            "updated_at": "2026-11-02T09:00:00Z", "closed_at": None, "state_reason": None}


def github_comment(cid: int, number: int) -> dict:
    return {"id": cid, "issue_url": f"https://x/repos/o/r/issues/{number}", "user": {"login": "hubot", "id": 2},
            "body": f"comment {cid} " + "x" * 200, "created_at": "2026-11-02T09:00:00Z",
            "updated_at": "2026-11-02T09:00:00Z"}


def endless_github_route(comments: bool = False) -> Callable[[str, dict, ScriptedServer], Reply]:
    """A GitHub whose every listing page links to a fresh next page, for ever: the issues (100 a page, none with
    comments), or with ``comments`` one issue whose comment pages (100 a page) never end."""
    def route(path: str, query: dict, server: ScriptedServer) -> Reply:
        page = int(query.get("page", "1"))
        if path.endswith("/comments"):
            number = int(path.split("/")[-2])
            items = [github_comment(number * 10**6 + page * 100 + n, number) for n in range(100)]
        elif comments:
            return json_reply(json.dumps([github_issue(1, comments=10**9)]).encode())
        else:
            items = [github_issue(page * 100 + n) for n in range(100)]
        link = f'<{server.url}{path}?page={page + 1}&per_page=100>; rel="next"'
        return json_reply(json.dumps(items).encode(), {"Link": link})

    return route


class HostileJira(FakeJira):
    """``mode``: "repeat_token" (v3: every page names the same next token), "ignore_start" (v2: the search and the
    key listing answer startAt=0 whatever is asked, total 1e9), "short_total" (v2: total 1e9, pages that end), "comments_repeat" (every comment page the same,
    total 1e9), "comments_endless" (fresh comments on every page, total 1e9)."""

    def __init__(self, api: str, mode: str, **kwargs) -> None:
        self.mode = mode
        self.comment_pages = 0
        super().__init__(api, **kwargs)

    def _answer(self, path: str, query: dict[str, list[str]]):
        if self.mode.startswith("comments") and path.endswith("/comment"):
            return self._comments(query)
        status, body = super()._answer(path, query)
        if self.mode == "repeat_token" and "issues" in body and body["issues"]:
            body["isLast"], body["nextPageToken"] = False, "same-token"
        return status, body

    def _search(self, query: dict[str, list[str]]):
        if self.mode == "repeat_token" and query.get("nextPageToken") == ["same-token"]:
            query = {**query, "nextPageToken": [query.get("maxResults", ["50"])[0]]}  # the second page, then again
        if self.mode == "ignore_start":
            query = {**query, "startAt": ["0"]}
        status, body = super()._search(query)
        if self.mode in ("ignore_start", "short_total") and status == 200:
            body["total"] = 10**9
        return status, body

    def _comments(self, query: dict[str, list[str]]):
        size = int(query.get("maxResults", ["50"])[0])
        self.comment_pages += 1
        first = 0 if self.mode == "comments_repeat" else self.comment_pages * size
        comments = [jira_data.comment(first + n, "emma", f"comment {first + n} " + "x" * 200, 1) for n in range(size)]
        return 200, {"startAt": int(query.get("startAt", ["0"])[0]), "maxResults": size, "total": 10**9,
                     "comments": comments}


def seeded(fake: FakeJira, count: int, *, minutes: Callable[[int], int] = lambda n: n, comments: int = 3) -> FakeJira:
    """``count`` issues PAY-1…, each with ``comments`` comments (the search embeds fewer: the client pages them)."""
    for n in range(1, count + 1):
        fake.put(jira_data.issue(f"PAY-{n}", f"Issue {n}", api=fake.api, minutes=minutes(n),
                                 comments=[jira_data.comment(n * 100 + c, "mia", f"c{c}", minutes(n), fake.api)
                                           for c in range(comments)]))
    return fake
