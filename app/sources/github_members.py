"""GitHub repository membership over REST: its collaborators and the members of its teams.

Endpoints (GitHub REST API 2022-11-28), every listing paged by ``Link: <…>; rel="next"``:
- ``GET /repos/{owner}/{repo}/collaborators`` ("List repository collaborators", affiliation=all: outside
  collaborators, direct members, and organization members with access through a team or the base permission).
- ``GET /repos/{owner}/{repo}/teams`` ("List repository teams") and ``GET /orgs/{org}/teams/{team_slug}/members``
  ("List team members"; the organization is the repository's owner). A 404 on the teams of a repository owned
  by a user (it has none) is an empty list.
People are matched as the importer stores them, ``github:<numeric id>`` (a renamed login stays the same person).
For a public repository whose every imported person should count, RAG_GITHUB_MEMBERS=everyone writes every
employee the repository's import created, with no request.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

from app.engines.base import Engine
from app.sources import memberships
from app.sources.github import _NEXT, PAGE_SIZE
from app.sources.http import SourceClient, SourceError, SourceNotFoundError
from app.sources.memberships import MemberCounts, Person

log = logging.getLogger(__name__)


class GitHubMembers:
    def __init__(self, client: SourceClient, repo: str, page_size: int = PAGE_SIZE) -> None:
        self.client, self.repo, self.page_size = client, repo, page_size

    def repo_people(self) -> list[Person]:
        """Collaborators and team members; SourceError when a listing could not be read."""
        people = dict.fromkeys(_person(u) for u in self._listing(f"/repos/{self.repo}/collaborators",
                                                                 {"affiliation": "all"}))
        org = self.repo.split("/", 1)[0]
        try:
            teams = list(self._listing(f"/repos/{self.repo}/teams", {}))
        except SourceNotFoundError:  # a user's repository has no teams
            teams = []
        for team in teams:
            slug = team.get("slug")
            if slug:
                path = f"/orgs/{quote(org, safe='')}/teams/{quote(str(slug), safe='')}/members"
                people.update(dict.fromkeys(_person(u) for u in self._listing(path, {})))
        return [p for p in people if p]

    def _listing(self, path: str, params: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
        url: str | None = path
        query: Mapping[str, Any] | None = {**params, "per_page": self.page_size}
        while url:
            body, headers = self.client.get(url, query)
            if not isinstance(body, list):
                raise SourceError(f"GitHub answered {path} with {type(body).__name__}, expected a list")
            yield from (u for u in body if isinstance(u, Mapping))
            match = _NEXT.search(headers.get("Link", ""))
            url, query = (match.group(1), None) if match else (None, None)


def _person(user: Mapping[str, Any]) -> Person:
    return (f"github:{user['id']}",) if user.get("id") is not None else ()


def sync_members(engine: Engine, source: str, client: SourceClient, repo: str, mode: str,
                 page_size: int = PAGE_SIZE) -> MemberCounts:
    """One pass for one repository: ``mode`` "collaborators" (read them), "everyone" (every imported person), or
    "off". A repository whose listings could not be read is left as it was, with a warning."""
    if mode == "off":
        return MemberCounts()
    if mode == "everyone":
        return memberships.everyone(engine, source, repo)
    try:
        people = GitHubMembers(client, repo, page_size).repo_people()
    except SourceError as exc:
        counts = MemberCounts(warnings=[f"{repo}: members not read, left as they were ({exc})"])
        log.warning("%s: %s", source, counts.warnings[0])
        return counts
    return memberships.apply(engine, source, "github", repo, people)
