"""Jira over REST: Server/Data Center (API v2, a personal access token as Bearer) and Cloud (API v3, e-mail
+ API token as basic auth). Each yields pages of issues in update order, and every key for reconciliation.

Incremental: ``project in (…) AND updated >= "<since − overlap>" ORDER BY updated ASC, key ASC``. JQL reads
dates in the sync account's own time zone at minute precision, so the bound is written in the zone
``/myself`` reports, rounded down, and re-reading a few issues is harmless (an unchanged issue writes
nothing). v2 pages by moving the bound forward (keyset) rather than by offset: an issue edited during a pass
jumps to the end of the order, and an offset would skip the issue that slid into its place (an offset is
used only inside one minute holding more than a page of issues).
v3 pages with ``nextPageToken`` as /search/jql requires.

Bounded (issue 33): a server that makes no progress ends the pass with a ``SourceBoundError`` — a
``nextPageToken`` already followed, a full page of issues all read already (``startAt`` ignored), a comment
page whose comments were all read already or a ``total`` that pages never reach; an issue's comments stop at
the per-issue cap. Issues are handed to the pipeline in small pages once their comments add up
(``COMMENT_FLUSH``), so the comments of a page are never all held at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx

from app.sources import jira, mapping
from app.sources.bounds import no_progress
from app.sources.http import SourceAuthError, SourceClient, SourceNotFoundError
from app.sources.model import FailedIssue, SourceIssue, by_comments

log = logging.getLogger(__name__)

PAGE_SIZE = 100
COMMENT_PAGE = 100
COMMENT_FLUSH = 1000  # comments held before the issues mapped so far go to the pipeline


class JiraREST:
    """One Jira site. ``api`` is "2" (Server/Data Center) or "3" (Cloud)."""

    def __init__(self, client: SourceClient, api: str, projects: Sequence[str], *, story_points_field: str | None,
                 sprint_field: str | None = None, page_size: int = PAGE_SIZE) -> None:
        if api not in ("2", "3"):
            raise ValueError(f"Jira REST API version must be 2 or 3, got {api!r}")
        if not projects:
            raise ValueError("name the Jira projects to sync (RAG_JIRA_PROJECTS=PAY,MOB)")
        self.client, self.api, self.projects = client, api, [p.strip() for p in projects if p.strip()]
        self.story_points_field, self.sprint_field, self.page_size = story_points_field, sprint_field, page_size
        self._project_objects: dict[str, Mapping[str, Any]] | None = None
        self._priority_ranks: dict[str, int] = {}

    @property
    def source(self) -> str:
        return f"jira:{self.client.base_url}"

    def _path(self, tail: str) -> str:
        return f"/rest/api/{self.api}/{tail}"

    def _where(self, tail: str) -> str:
        return f"GET {self.client.base_url}{self._path(tail)}"

    def pages(self, since: dt.datetime | None) -> Iterator[list[SourceIssue]]:
        """Issues updated at or after ``since`` (naive UTC; None: all), a page at a time, in update order."""
        zone = self._zone()
        self._priority_ranks = self._priorities()  # once per pass: an admin may reorder them between passes
        fields = ",".join([*jira.SEARCH_FIELDS, *(f for f in (self.story_points_field, self.sprint_field) if f)])
        if self.api == "3":
            yield from self._token_pages(since, zone, fields)
        else:
            yield from self._keyset_pages(since, zone, fields)

    def _keyset_pages(self, since: dt.datetime | None, zone: dt.tzinfo, fields: str) -> Iterator[list[SourceIssue]]:
        lower, skip, seen = since, 0, {}
        while True:
            body = self.client.get_json(self._path("search"), {
                "jql": self._jql(lower, zone), "startAt": skip, "maxResults": self.page_size, "fields": fields})
            raw = list(body.get("issues") or [])
            fresh = [i for i in raw if seen.get(i.get("key")) != (i.get("fields") or {}).get("updated")]
            seen.update({i.get("key"): (i.get("fields") or {}).get("updated") for i in raw})
            if fresh:
                yield from self._map(fresh)
            if len(raw) < self.page_size:
                return
            if not fresh and skip > 0:  # moved on by offset within one minute, and got what it had read: ignored
                raise no_progress(self._where("search"), f"a full page at startAt={skip} held only issues read "
                                                         "already (startAt ignored)")
            last = max(jira.issue_order(i)[0] for i in raw)
            # The next page starts at the newest update of this one (re-reading its minute, whose issues
            # ``seen`` drops); only a page all within one minute moves on by offset.
            same_minute = lower is not None and _minute(lower, zone) == _minute(last, zone)
            skip = skip + len(raw) if same_minute else 0
            lower = last

    def _token_pages(self, since: dt.datetime | None, zone: dt.tzinfo, fields: str) -> Iterator[list[SourceIssue]]:
        params = {"jql": self._jql(since, zone), "maxResults": self.page_size, "fields": fields}
        for raw in self._token_listing(params):
            if raw:
                yield from self._map(raw)

    def _token_listing(self, params: dict[str, Any]) -> Iterator[list[Mapping[str, Any]]]:
        """The pages of a v3 /search/jql, each token followed once."""
        token, followed = None, set()
        while True:
            body = self.client.get_json(self._path("search/jql"), {**params, **({"nextPageToken": token} if token
                                                                               else {})})
            raw = list(body.get("issues") or [])
            yield raw
            token = body.get("nextPageToken")
            if body.get("isLast", not token) or not token or not raw:
                return
            if token in followed:
                raise no_progress(self._where("search/jql"), "it answered a nextPageToken already followed")
            followed.add(token)

    def all_keys(self) -> set[str]:
        """Every issue key of the synced projects now (``fields=key``): what reconciliation keeps."""
        keys: set[str] = set()
        jql = self._jql(None, dt.timezone.utc)
        if self.api == "3":
            for raw in self._token_listing({"jql": jql, "maxResults": 1000, "fields": "key"}):
                keys.update(i["key"] for i in raw)
            return keys
        start = 0
        while True:
            body = self.client.get_json(self._path("search"), {"jql": jql, "startAt": start, "maxResults": 1000,
                                                               "fields": "key"})
            issues = body.get("issues") or []
            before = len(keys)
            keys.update(i["key"] for i in issues)
            start += len(issues)
            if not issues and start < int(body.get("total", 0)):  # a partial listing must not delete the rest
                raise no_progress(self._where("search"), f"the keys ended at {start} of a total of "
                                                         f"{body.get('total')}; nothing deleted")
            if not issues or start >= int(body.get("total", 0)):
                return keys
            if len(keys) == before:  # startAt ignored: the same keys again, towards a total never reached
                raise no_progress(self._where("search"), f"a page at startAt={start - len(issues)} held only keys "
                                                         f"read already (total {body.get('total')})")

    def _map(self, raw: list[Mapping[str, Any]]) -> Iterator[list[SourceIssue | FailedIssue]]:
        """The page's issues mapped, one at a time (a malformed issue is a FailedIssue, never the page's end), in its
        order, handed on in smaller pages once their comments add up."""
        projects = self._projects()
        yield from by_comments((self._map_one(issue, projects) for issue in raw), COMMENT_FLUSH)

    def _map_one(self, issue: Any, projects: Mapping[str, Mapping[str, Any]]) -> SourceIssue | FailedIssue:
        options = {"story_points_field": self.story_points_field, "sprint_field": self.sprint_field,
                   "projects": projects, "priority_ranks": self._priority_ranks}
        try:
            comments = self._comments(issue)
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # a comment listing of the wrong shape
            alone = jira.mapped(issue, **options)  # its key and time, to name it and hold the cursor
            return FailedIssue(alone.key, alone.updated, f"its comments are not readable ({type(exc).__name__}: {exc})")
        return jira.mapped(issue, comments=comments, **options)

    def _comments(self, issue: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """All comments of an issue: the embedded ones, or every page of /issue/{key}/comment when the search
        embedded fewer than its total — each page adding comments not read yet, up to the per-issue cap."""
        embedded = (issue.get("fields") or {}).get("comment") or {}
        comments = list(embedded.get("comments") or [])
        cap = self.client.meter.bounds.issue_comments
        if int(embedded.get("total", len(comments))) <= len(comments):
            self.client.meter.comments_full(len(comments), str(issue.get("key")))
            return comments[:cap]
        comments, start, ids = [], 0, set()
        where = self._where(f"issue/{issue['key']}/comment")
        while True:
            body = self.client.get_json(self._path(f"issue/{issue['key']}/comment"),
                                        {"startAt": start, "maxResults": COMMENT_PAGE, "orderBy": "created"})
            page = [c for c in body.get("comments") or [] if isinstance(c, Mapping)]
            new = [c for c in page if c.get("id") not in ids]
            if page and not new:
                raise no_progress(where, f"the page at startAt={start} held only comments read already "
                                         f"(total {body.get('total')})")
            ids.update(c.get("id") for c in new)
            comments.extend(new)
            if self.client.meter.comments_full(len(comments), str(issue["key"])):
                return comments[:cap]
            start += len(page)
            if not page or start >= int(body.get("total", 0)):
                if start < int(body.get("total", 0)):
                    log.warning("%s: the pages ended at %d of a total of %s comments", where, start, body.get("total"))
                return comments

    def _projects(self) -> dict[str, Mapping[str, Any]]:
        if self._project_objects is None:
            listed = self.client.get_json(self._path("project"))
            self._project_objects = {str(p["key"]): p for p in listed if isinstance(p, Mapping) and p.get("key")}
        return self._project_objects

    def _priorities(self) -> dict[str, int]:
        """The site's priorities in its order (GET /priority lists them so), id → rank from 1; {} when the account may
        not read them (then a priority's rank is its numeric id, as for a file import)."""
        try:
            listed = self.client.get_json(self._path("priority"))
        except (SourceAuthError, SourceNotFoundError) as exc:
            log.warning("%s: the priority order is not readable (%s); ranks follow the priority ids", self.source, exc)
            return {}
        return mapping.priority_ranks(listed if isinstance(listed, list) else [])

    def _zone(self) -> dt.tzinfo:
        """The zone JQL dates are read in: the sync account's own (``/myself``), UTC when unknown."""
        name = (self.client.get_json(self._path("myself")) or {}).get("timeZone")
        try:
            return zoneinfo.ZoneInfo(name) if name else dt.timezone.utc
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return dt.timezone.utc

    def _jql(self, since: dt.datetime | None, zone: dt.tzinfo) -> str:
        keys = ", ".join(_jql_string(p) for p in self.projects)
        where = f"project in ({keys})"
        if since is not None:
            where += f' AND updated >= "{_minute(since, zone).strftime("%Y-%m-%d %H:%M")}"'
        return where + " ORDER BY updated ASC, key ASC"


def _minute(stamp: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """A naive UTC time in ``zone``, rounded down to the minute (JQL's precision)."""
    return stamp.replace(tzinfo=dt.timezone.utc).astimezone(zone).replace(second=0, microsecond=0, tzinfo=None)


def _jql_string(value: str) -> str:
    """A JQL string literal: quoted, with quotes and backslashes escaped (a project key from the settings)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def jira_client(url: str, *, pat: str | None = None, email: str | None = None, api_token: str | None = None,
                **retry: Any) -> tuple[SourceClient, str]:
    """The client and API version for a Jira site: a PAT means Server/Data Center (v2, Bearer); an e-mail +
    API token means Cloud (v3, basic auth)."""
    if pat:
        return SourceClient(url, authorization=f"Bearer {pat}", **retry), "2"
    if email and api_token:
        return SourceClient(url, basic=httpx.BasicAuth(email, api_token), **retry), "3"
    raise ValueError("Jira needs RAG_JIRA_PAT (Server/Data Center) or RAG_JIRA_EMAIL + RAG_JIRA_API_TOKEN (Cloud)")
