"""A real loopback HTTP server speaking Jira's REST API (v2 Server/Data Center and v3 Cloud) over scripted data.

It keeps issues as Jira returns them (the shapes of Atlassian's documented examples, see jira_data.py) and
answers: ``/rest/api/{2,3}/myself``, ``/project``, ``/priority`` (the site's order), ``/rest/api/2/search`` (jql, startAt, maxResults, fields),
``/rest/api/3/search/jql`` (nextPageToken), ``/issue/{key}/comment`` (startAt, maxResults). The JQL it reads
is the one the sync writes (project in (...) [AND updated >= "yyyy-MM-dd HH:mm"] ORDER BY updated ASC, key ASC),
dates in the account's time zone. A search embeds at most ``embedded_comments`` comments (with the real total)
so the client must page the rest. Failures are scripted per path (``fail``), requests are recorded, and
``crash_after_pages`` makes the search answer 500 forever after so many pages; ``hold_after_pages`` makes it
never answer after so many (until the server stops), so a test can kill the syncing process mid-pass.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import threading
import zoneinfo
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.sources import jira_data
from tests.sources.fake_server import FakeServer

_JQL = re.compile(r'^project in \((?P<projects>[^)]*)\)(?: AND updated >= "(?P<since>[^"]+)")? ORDER BY updated ASC, key ASC$')


class FakeJira(FakeServer):
    def __init__(self, api: str = "2", *, pat: str = "pat-secret", email: str = "bot@example.com",
                 api_token: str = "api-secret", embedded_comments: int = 2, time_zone: str = "UTC") -> None:
        self.api, self.pat, self.email, self.api_token = api, pat, email, api_token
        self.embedded_comments, self.time_zone = embedded_comments, time_zone
        self.issues: dict[str, dict] = {}  # key → issue (fields.comment holds every comment)
        self.projects: dict[str, dict] = {}
        self.priorities: list[dict] = jira_data.priorities()  # GET /priority: the site's order
        self.search_pages_served = 0
        self.crash_after_pages: int | None = None
        self.hold_after_pages: int | None = None
        self.held = 0  # searches being held (the request arrived and gets no answer)
        self.stopping = threading.Event()
        super().__init__(self._handler())

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        super().__exit__(*exc)

    # --- scripting ------------------------------------------------------------------------------
    def put(self, issue: dict) -> None:
        with self.lock:
            self.issues[issue["key"]] = issue
            key = issue["fields"]["project"]["key"]
            self.projects.setdefault(key, jira_data.project(key, issue["fields"]["project"].get("name", key)))

    def searches(self) -> list[dict[str, list[str]]]:
        return [q for p, q in self.requests if p.endswith("/search") or p.endswith("/search/jql")]

    # --- the protocol ---------------------------------------------------------------------------
    def _authorized(self, header: str | None) -> bool:
        if self.api == "2":
            return header == f"Bearer {self.pat}"
        expected = base64.b64encode(f"{self.email}:{self.api_token}".encode()).decode()
        return header == f"Basic {expected}"

    def _answer(self, path: str, query: dict[str, list[str]]):
        prefix = f"/rest/api/{self.api}/"
        if not path.startswith(prefix):
            return 404, {"errorMessages": ["no such API"]}
        tail = path[len(prefix):]
        if tail == "myself":
            return 200, {"accountId": "bot", "displayName": "Sync Bot", "timeZone": self.time_zone}
        if tail == "project":
            return 200, list(self.projects.values())
        if tail == "priority":
            return 200, list(self.priorities)
        match = re.fullmatch(r"issue/([A-Z][A-Z0-9_]*-\d+)/comment", tail)
        if match:
            issue = self.issues.get(match.group(1))
            if issue is None:
                return 404, {"errorMessages": ["Issue does not exist or you do not have permission to see it."]}
            comments = issue["fields"]["comment"]["comments"]
            start, size = int(query.get("startAt", ["0"])[0]), int(query.get("maxResults", ["50"])[0])
            return 200, {"startAt": start, "maxResults": size, "total": len(comments),
                         "comments": comments[start:start + size]}
        if (self.api == "2" and tail == "search") or (self.api == "3" and tail == "search/jql"):
            return self._search(query)
        return 404, {"errorMessages": [f"no route {path}"]}

    def _search(self, query: dict[str, list[str]]):
        parsed = _JQL.match(query.get("jql", [""])[0])
        if parsed is None:
            return 400, {"errorMessages": [f"Error in the JQL Query: {query.get('jql')}"]}
        if self.crash_after_pages is not None and self.search_pages_served >= self.crash_after_pages:
            return 500, {"errorMessages": ["scripted crash"]}
        projects = {p.strip().strip('"') for p in parsed.group("projects").split(",")}
        since = None
        if parsed.group("since"):
            local = dt.datetime.strptime(parsed.group("since"), "%Y-%m-%d %H:%M")
            since = local.replace(tzinfo=zoneinfo.ZoneInfo(self.time_zone)).astimezone(dt.timezone.utc)
        matching = sorted((i for i in self.issues.values() if i["fields"]["project"]["key"] in projects
                           and (since is None or jira_data.updated_of(i) >= since)),
                          key=lambda i: (jira_data.updated_of(i), i["key"]))
        size = int(query.get("maxResults", ["50"])[0])
        if self.api == "2":
            start = int(query.get("startAt", ["0"])[0])
        else:
            start = int(query.get("nextPageToken", ["0"])[0])
        page = matching[start:start + size]
        fields = query.get("fields", ["*all"])[0]
        issues = [{"id": i["id"], "key": i["key"], "fields": {}} if fields == "key" else self._embedded(i, fields)
                  for i in page]
        self.search_pages_served += fields != "key"
        if self.api == "2":
            return 200, {"startAt": start, "maxResults": size, "total": len(matching), "issues": issues}
        last = start + size >= len(matching)
        body = {"issues": issues, "isLast": last}
        if not last:
            body["nextPageToken"] = str(start + size)
        return 200, body

    def _embedded(self, issue: dict, fields: str = "*all") -> dict:
        """The issue as a search returns it: only the system fields asked for (as Jira; custom fields are always
        left in here, so a test need not name them), its first comments embedded."""
        out = json.loads(json.dumps(issue))
        if fields != "*all":
            wanted = set(fields.split(","))
            out["fields"] = {k: v for k, v in out["fields"].items() if k in wanted or k.startswith("customfield_")}
        comments = out["fields"]["comment"]["comments"]
        out["fields"]["comment"] = {"comments": comments[:self.embedded_comments], "maxResults": self.embedded_comments,
                                    "total": len(comments), "startAt": 0}
        return out

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                if url.path.endswith("/search") and fake.hold_after_pages is not None \
                        and fake.search_pages_served >= fake.hold_after_pages and query.get("fields") != ["key"]:
                    with fake.lock:
                        fake.held += 1
                    fake.stopping.wait()  # a tracker that stops answering mid-pass
                    return
                with fake.lock:
                    fake.requests.append((url.path, query))
                    headers: dict = {}
                    scripted = fake.scripted_failure(url.path)
                    if scripted is not None:
                        (status, headers), body = scripted, {"errorMessages": ["scripted"]}
                    else:
                        if not fake._authorized(self.headers.get("Authorization")):
                            status, body = 401, {"errorMessages": ["You are not authenticated."]}
                        else:
                            status, body = fake._answer(url.path, query)
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json;charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
