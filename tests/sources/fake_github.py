"""A real loopback HTTP server speaking GitHub's REST API for one repository's issues, over scripted data.

Answers ``/repos/{o}/{r}/issues`` (state, since, sort=updated, direction, per_page; pull requests listed like
issues, with a ``pull_request`` key, as GitHub does), ``/repos/{o}/{r}/issues/comments`` and
``/repos/{o}/{r}/issues/{n}/comments``, pages linked by ``Link: <…>; rel="next"``. Every answer carries an
ETag; a request with a matching ``If-None-Match`` gets 304 (counted). Failures are scripted per path.
Shapes from GitHub's documented examples (octocat, "Found a bug"). As GitHub, a listed issue carries no
``closed_by`` (only ``GET /repos/{o}/{r}/issues/{n}`` has it: golang/go#28745, octokit.net#1353); a test that gives
``closed_by`` gets it in the listing, to stand for an object that has it (an export of single issues).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.sources.fake_server import FakeServer

BASE = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.timezone.utc)


def at(minutes: int) -> str:
    return (BASE + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def account(login: str, uid: int) -> dict:
    return {"login": login, "id": uid, "type": "User", "site_admin": False}


OCTOCAT = account("octocat", 1)
HUBOT = account("hubot", 2)


class FakeGitHub(FakeServer):
    def __init__(self, repo: str = "octo-org/octo-repo", token: str = "ghp-secret") -> None:
        self.repo, self.token = repo, token
        self.issues: dict[int, dict] = {}
        self.comments: dict[int, dict] = {}  # comment id → comment (issue_url says whose)
        self.not_modified = 0
        super().__init__(self._handler())

    def issue(self, number: int, title: str, minutes: int, *, state: str = "open", labels=(), assignee=None,
              milestone=None, pull: bool = False, body: str = "", user: dict | None = None,
              state_reason: str | None = None, closed_by: dict | None = None) -> dict:
        raw = {"id": 1000 + number, "number": number, "title": title, "body": body, "state": state,
               "user": user or OCTOCAT,
               "labels": [{"name": name} for name in labels], "assignee": assignee,
               "assignees": [assignee] if assignee else [], "milestone": milestone, "comments": 0,
               "created_at": at(0), "updated_at": at(minutes), "closed_at": at(minutes) if state == "closed" else None,
               "state_reason": state_reason or ("completed" if state == "closed" else None),
               "url": f"{self.url}/repos/{self.repo}/issues/{number}"}
        if closed_by is not None:
            raw["closed_by"] = closed_by
        if pull:
            raw["pull_request"] = {"url": f"{self.url}/repos/{self.repo}/pulls/{number}"}
        with self.lock:
            raw["comments"] = sum(1 for c in self.comments.values() if c["issue_url"].endswith(f"/issues/{number}"))
            self.issues[number] = raw
        return raw

    def comment(self, cid: int, number: int, who: dict, body: str, minutes: int) -> None:
        with self.lock:
            self.comments[cid] = {"id": cid, "issue_url": f"{self.url}/repos/{self.repo}/issues/{number}",
                                  "user": who, "body": body, "created_at": at(minutes), "updated_at": at(minutes)}
            issue = self.issues[number]
            issue["comments"] = sum(1 for c in self.comments.values() if c["issue_url"].endswith(f"/issues/{number}"))
            issue["updated_at"] = max(issue["updated_at"], at(minutes))  # a comment bumps the issue, as on GitHub

    def _listing(self, path: str, query: dict[str, str]):
        prefix = f"/repos/{self.repo}/issues"
        since = query.get("since")
        if path == prefix:
            items = [i for i in self.issues.values() if since is None or i["updated_at"] >= since]
            items.sort(key=lambda i: (i["updated_at"], i["number"]), reverse=query.get("direction") == "desc")
            return items
        if path == prefix + "/comments":
            items = [c for c in self.comments.values() if since is None or c["updated_at"] >= since]
            return sorted(items, key=lambda c: (c["created_at"], c["id"]))
        match = re.fullmatch(re.escape(prefix) + r"/(\d+)/comments", path)
        if match:
            number = int(match.group(1))
            if number not in self.issues:
                return None
            return sorted((c for c in self.comments.values() if c["issue_url"].endswith(f"/issues/{number}")),
                          key=lambda c: (c["created_at"], c["id"]))
        return None

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _send(self, status: int, body, headers: dict) -> None:
                data = b"" if status == 304 else json.dumps(body).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                with fake.lock:
                    fake.requests.append((url.path, query))
                    scripted = fake.scripted_failure(url.path)
                    if scripted is not None:
                        return self._send(scripted[0], {"message": "scripted"}, scripted[1])
                    if self.headers.get("Authorization") != f"Bearer {fake.token}":
                        return self._send(401, {"message": "Bad credentials"}, {})
                    items = fake._listing(url.path, query)
                    if items is None:
                        return self._send(404, {"message": "Not Found"}, {})
                    size = int(query.get("per_page", "30"))
                    page = int(query.get("page", "1"))
                    body = items[(page - 1) * size:page * size]
                    headers = {"x-ratelimit-remaining": "4999", "x-ratelimit-reset": "0"}
                    if page * size < len(items):
                        headers["Link"] = (f'<{fake.url}{url.path}?{urlencode({**query, "page": page + 1})}>; rel="next"')
                    etag = '"' + hashlib.sha1(json.dumps([body, headers.get("Link")]).encode()).hexdigest() + '"'
                    headers["ETag"] = etag
                    if self.headers.get("If-None-Match") == etag:
                        fake.not_modified += 1
                        return self._send(304, None, {"ETag": etag})
                return self._send(200, body, headers)

        return Handler
