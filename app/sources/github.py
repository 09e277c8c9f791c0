"""GitHub Issues over REST: one repository's issues (pull requests skipped), their comments and milestones,
mapped to neutral records. Keys are ``OWNER/REPO#123``; people are GitHub accounts (by numeric id, so a
renamed login stays the same person).

Pages follow the ``Link: <…>; rel="next"`` header. Statuses: closed → DONE, open → TODO unless a label says
in progress / in review. Priority and issue type come from labels by a map (RAG_GITHUB_LABEL_MAP, else
``mapping.GITHUB_LABELS``). Comments: each issue that has some reads its own list, complete (so an edited or
deleted comment is seen), and issues go to the pipeline in small pages once their comments add up: a
repository's comments are never all held at once (issue 33).

Bounded: a ``rel="next"`` link to a page already read, or to another origin, ends the pass with a clear error
(a token never follows a link elsewhere: the client sends it only to its own origin in any case); an issue's
comments stop at the per-issue cap.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from typing import Any

from app.sources import mapping
from app.sources.bounds import SourceBoundError, no_progress, origin
from app.sources.http import SourceClient
from app.sources.model import FailedIssue, SourceComment, SourceIssue, SourcePerson, SourceProject, SourceSprint, \
    by_comments

REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
PAGE_SIZE = 100
COMMENT_FLUSH = 1000  # comments held before the issues mapped so far go to the pipeline
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')
_STATUS_LABELS = {"in progress": "IN_PROGRESS", "in-progress": "IN_PROGRESS", "doing": "IN_PROGRESS",
                  "in review": "IN_REVIEW", "in-review": "IN_REVIEW", "review": "IN_REVIEW"}


def check_repo(repo: str) -> str:
    if not REPO.fullmatch(repo or "") or ".." in repo:
        raise ValueError(f"a GitHub repository is OWNER/REPO, got {repo!r}")
    return repo


def github_client(token: str | None, api_url: str = "https://api.github.com", **retry: Any) -> SourceClient:
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    return SourceClient(api_url, headers, authorization=f"Bearer {token}" if token else None, **retry)


def person_of(user: Any) -> SourcePerson | None:
    if not isinstance(user, Mapping) or user.get("id") is None:
        return None
    return SourcePerson(f"github:{user['id']}", user.get("name") or user.get("login"), user.get("email") or None)


def comment_of(raw: Mapping[str, Any]) -> SourceComment:
    return SourceComment(str(raw["id"]), (raw.get("body") or "").strip(), person_of(raw.get("user")),
                         mapping.parse_datetime(raw.get("created_at")))


def issue_of(raw: Mapping[str, Any], repo: str, comments: list[Mapping[str, Any]],
             labels_map: Mapping[str, Mapping[str, str]] | None = None) -> SourceIssue:
    labels_map = labels_map or mapping.GITHUB_LABELS
    labels = tuple(str(lab.get("name")) for lab in raw.get("labels") or ()
                   if isinstance(lab, Mapping) and lab.get("name"))
    lowered = [lab.lower() for lab in labels]
    by_priority, by_type = labels_map.get("priority", {}), labels_map.get("type", {})
    priority = next((by_priority[lab] for lab in lowered if lab in by_priority), mapping.DEFAULT_PRIORITY)
    issue_type = next((by_type[lab] for lab in lowered if lab in by_type), "Issue")
    if raw.get("state") == "closed":
        status, name = "DONE", ("Closed as not planned" if raw.get("state_reason") == "not_planned" else None)
    else:
        status = next((_STATUS_LABELS[lab] for lab in lowered if lab in _STATUS_LABELS), "TODO")
        name = None
    assignees = raw.get("assignees") or ([raw["assignee"]] if raw.get("assignee") else [])
    sprint = milestone_of(raw.get("milestone"))
    return SourceIssue(
        key=f"{repo}#{raw['number']}", project=SourceProject(repo, repo),
        title=str(raw.get("title") or "")[:500] or f"#{raw['number']}",
        description=(raw.get("body") or "").strip(), issue_type=issue_type, status=status, status_name=name,
        priority=priority, due=None, story_points=None,
        assignee=person_of(assignees[0]) if assignees else None, reporter=person_of(raw.get("user")), sprint=sprint,
        updated=mapping.parse_datetime(raw.get("updated_at")) or dt.datetime(1970, 1, 1),
        comments=tuple(comment_of(c) for c in comments), labels=tuple(lab.strip()[:200] for lab in labels),
        fix_versions=(sprint.name,) if sprint is not None else (), **closing_of(raw))


def milestone_of(milestone: Any) -> SourceSprint | None:
    """The issue's milestone: its sprint, and (by its title) its fix version."""
    if not isinstance(milestone, Mapping) or milestone.get("number") is None:
        return None
    return SourceSprint(str(milestone["number"]), str(milestone.get("title") or milestone["number"]).strip()[:200],
                        "ACTIVE" if milestone.get("state") == "open" else "CLOSED",
                        mapping.parse_date(milestone.get("created_at")), mapping.parse_date(milestone.get("due_on")),
                        (milestone.get("description") or None))


def closing_of(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Created, and for a closed issue when, why (state_reason, mapping.GITHUB_RESOLUTIONS) and by whom."""
    closed = raw.get("state") == "closed"
    reason = mapping.GITHUB_RESOLUTIONS.get(str(raw.get("state_reason") or "")) if closed else None
    return {"created": mapping.parse_datetime(raw.get("created_at")),
            "resolved": mapping.parse_datetime(raw.get("closed_at")) if closed else None,
            "resolution": reason or ("Closed" if closed else None),
            "resolved_by": person_of(raw.get("closed_by")) if closed else None}


class GitHubIssues:
    def __init__(self, client: SourceClient, repo: str, labels_map: Mapping[str, Mapping[str, str]] | None = None,
                 page_size: int = PAGE_SIZE) -> None:
        self.client, self.repo, self.labels_map, self.page_size = client, check_repo(repo), labels_map, page_size

    @property
    def source(self) -> str:
        return f"github:{self.repo}"

    def pages(self, since: dt.datetime | None) -> Iterator[list[SourceIssue | FailedIssue]]:
        params = {"state": "all", "sort": "updated", "direction": "asc"}
        if since is not None:
            params["since"] = since.replace(microsecond=0).isoformat() + "Z"
        for page in self._pages(f"/repos/{self.repo}/issues", params):
            issues = (self._issue(raw) for raw in page if not (isinstance(raw, Mapping) and "pull_request" in raw))
            yield from by_comments(issues, COMMENT_FLUSH)

    def _issue(self, raw: Any) -> SourceIssue | FailedIssue:
        """One issue of a page, or a FailedIssue when its shape is not GitHub's (it fails alone: counted, named and
        read again next pass, while the rest of its page lands). A bound is no malformed issue: it ends the pass."""
        try:
            comments = self._comments(raw) if raw.get("comments") else []
            return issue_of(raw, self.repo, comments, self.labels_map)
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            number = raw.get("number") if isinstance(raw, Mapping) else None
            updated = raw.get("updated_at") if isinstance(raw, Mapping) else None
            try:
                when = mapping.parse_datetime(updated) if isinstance(updated, str) else None
            except ValueError:
                when = None
            return FailedIssue(f"{self.repo}#{number}", when, f"not a GitHub issue's shape ({type(exc).__name__}: {exc})")

    def _comments(self, raw: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        key, comments = f"{self.repo}#{raw['number']}", []
        for comment in self._listing(f"/repos/{self.repo}/issues/{raw['number']}/comments", {}):
            comments.append(comment)
            if self.client.meter.comments_full(len(comments), key):
                break
        return comments

    def all_keys(self) -> set[str]:
        return {f"{self.repo}#{raw['number']}" for raw in self._listing(f"/repos/{self.repo}/issues", {"state": "all"})
                if "pull_request" not in raw}

    def _listing(self, path: str, params: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
        for page in self._pages(path, params):
            yield from page

    def _pages(self, path: str, params: Mapping[str, Any]) -> Iterator[list[Mapping[str, Any]]]:
        url: str | None = path
        query: Mapping[str, Any] | None = {**params, "per_page": self.page_size}
        read: set[str] = set()
        while url:
            read.add(str(self.client.url_of(url, query)))
            body, headers = self.client.get(url, query)
            if not isinstance(body, list):
                raise ValueError(f"GitHub answered {path} with {type(body).__name__}, expected a list")
            yield body
            match = _NEXT.search(headers.get("Link", ""))
            url, query = (match.group(1), None) if match else (None, None)
            if url is not None:
                self._check_next(path, url, read)

    def _check_next(self, path: str, url: str, read: set[str]) -> None:
        """A next link is followed only to a page of this origin not read yet in this listing."""
        target = self.client.url_of(url, None)
        if origin(target) != origin(self.client.base_url):
            raise SourceBoundError(f"GET {self.client.base_url}{path}: its Link header points at another origin "
                                   f"({target.scheme}://{target.host}); not followed (the pages already written "
                                   "stay)")
        if str(target) in read:
            raise no_progress(f"GET {self.client.base_url}{path}", f"its Link rel=next points at a page already "
                                                                   f"read ({target.copy_with(query=None)})")
