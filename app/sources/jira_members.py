"""Jira project membership over REST: each synced project's role actors, groups expanded to their users.

Endpoints (Jira Cloud platform REST API v3, and Jira Server/Data Center REST API v2, same paths):
- ``GET /rest/api/{2|3}/project/{key}/role``: role name -> the role's URL (``…/project/{key}/role/{id}``); only the
  id is taken from it, the request goes to our own site (never to a host a response names).
- ``GET /rest/api/{2|3}/project/{key}/role/{id}``: the role with ``actors``. An ``atlassian-user-role-actor`` names
  a user: ``actorUser.accountId`` on Cloud; on Server/Data Center its ``name`` is the username, whose user key
  (what an issue's user object and so EXTERNAL_ID carry) ``GET /rest/api/2/user?username=`` gives. An
  ``atlassian-group-role-actor`` names a group: ``actorGroup.groupId`` / ``actorGroup.name`` (Cloud), ``name``.
- ``GET /rest/api/3/group/member?groupId=…`` (or ``groupname=`` when a group has no id) and, on Server/Data Center,
  ``GET /rest/api/2/group/member?groupname=…``: a page of ``values`` (user objects) with ``startAt``,
  ``maxResults`` and ``isLast``; read until ``isLast``.
Sources: the Cloud platform REST reference, groups "Project roles", "Project role actors" (RoleActor: actorUser,
actorGroup, type) and "Groups" (Get users from group: PageBeanUserDetails, isLast); the Server/Data Center REST
reference (api/2/project/{key}/role, api/2/group/member, api/2/user). docs/INTEGRATIONS.md lists them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

from app.engines.base import Engine
from app.sources import memberships
from app.sources.http import SourceClient, SourceError, SourceNotFoundError
from app.sources.memberships import MemberCounts, Person

log = logging.getLogger(__name__)

GROUP_PAGE = 50  # Jira's own maximum for group/member
_ROLE_ID = re.compile(r"/role/(\d+)/?$")
USER_ACTOR, GROUP_ACTOR = "atlassian-user-role-actor", "atlassian-group-role-actor"


class JiraMembers:
    """The people of a project as its roles name them. ``api`` is "2" (Server/Data Center) or "3" (Cloud)."""

    def __init__(self, client: SourceClient, api: str, page_size: int = GROUP_PAGE) -> None:
        self.client, self.api, self.page_size = client, api, page_size
        self._user_keys: dict[str, Person] = {}  # Server username -> (key, name), for one reader's life

    def _path(self, tail: str) -> str:
        return f"/rest/api/{self.api}/{tail}"

    def project_people(self, key: str) -> list[Person]:
        """Every user of every role of the project, groups expanded. SourceError (a 403 among them) when any part
        could not be read: then the caller must not write a partial list."""
        project = quote(key, safe="")
        roles = self.client.get_json(self._path(f"project/{project}/role"))
        if not isinstance(roles, Mapping):
            raise SourceError(f"project {key}: the roles answer is not an object")
        people: dict[Person, None] = {}
        groups: dict[tuple[str, str], None] = {}
        for url in roles.values():
            match = _ROLE_ID.search(str(url))
            if match is None:
                continue
            role = self.client.get_json(self._path(f"project/{project}/role/{match.group(1)}"))
            for actor in (role or {}).get("actors") or ():
                if actor.get("type") == USER_ACTOR:
                    person = self._actor_user(actor)
                    if person:
                        people[person] = None
                elif actor.get("type") == GROUP_ACTOR:
                    groups[self._group_of(actor)] = None
        for group in groups:
            if group[1]:
                people.update(dict.fromkeys(self._group_users(group)))
        return list(people)

    def _actor_user(self, actor: Mapping[str, Any]) -> Person:
        account = (actor.get("actorUser") or {}).get("accountId")
        if account:
            return (str(account),)
        name = actor.get("name")
        if not name:
            return ()
        if name not in self._user_keys:
            try:
                user = self.client.get_json(self._path("user"), {"username": name}) or {}
            except SourceNotFoundError:  # a user deleted since: matched by name only
                user = {}
            self._user_keys[name] = user_ids({**user, "name": user.get("name") or name})
        return self._user_keys[name]

    def _group_of(self, actor: Mapping[str, Any]) -> tuple[str, str]:
        """("groupId", id) when Cloud gives the group's id (a name may change), else ("groupname", name)."""
        group = actor.get("actorGroup") or {}
        if self.api == "3" and group.get("groupId"):
            return "groupId", str(group["groupId"])
        return "groupname", str(group.get("name") or actor.get("name") or "")

    def _group_users(self, group: tuple[str, str]) -> Iterator[Person]:
        start = 0
        while True:
            body = self.client.get_json(self._path("group/member"),
                                        {group[0]: group[1], "startAt": start, "maxResults": self.page_size})
            values = list((body or {}).get("values") or [])
            for user in values:
                person = user_ids(user)
                if person:
                    yield person
            start += len(values)
            if not values or body.get("isLast", True):
                return


def user_ids(user: Mapping[str, Any]) -> Person:
    """The ids a Jira user may be stored under, as jira.person_of picks them: accountId, else key, then name."""
    return tuple(dict.fromkeys(str(user[f]) for f in ("accountId", "key", "name") if user.get(f)))


def sync_members(engine: Engine, source: str, client: SourceClient, api: str, projects: list[str],
                 page_size: int = GROUP_PAGE) -> MemberCounts:
    """One pass: the "jira" members of each project replaced by its role actors; a project whose roles could not
    be read is left as it was, with a warning."""
    reader, total = JiraMembers(client, api, page_size), MemberCounts()
    for key in projects:
        try:
            people = reader.project_people(key)
        except SourceError as exc:
            warning = f"{key}: members not read, left as they were ({exc})"
            log.warning("%s: %s", source, warning)
            total.warnings.append(warning)
            continue
        total.add(memberships.apply(engine, source, "jira", key, people))
    return total
