"""The loopback fakes of Jira and GitHub, speaking also the membership endpoints (issue 32).

Jira (both APIs; shapes of the Cloud platform reference's RoleActor / PageBeanUserDetails and Server's
api/2 answers): ``/project/{key}/role`` (role name -> its URL), ``/project/{key}/role/{id}`` (``actors``),
``/group/member`` (Cloud: ``groupId`` or ``groupname``; Server: ``groupname`` only) paged by startAt / maxResults
with ``isLast``, and on Server ``/user?username=`` (the user key behind a user actor's name). Cloud user actors carry
``actorUser.accountId`` only; Server ones a ``name``. GitHub: ``/repos/{o}/{r}/collaborators``,
``/repos/{o}/{r}/teams`` and ``/orgs/{org}/teams/{slug}/members``, Link-paged as every listing of FakeGitHub.
"""

from __future__ import annotations

from tests.sources import jira_data
from tests.sources.fake_github import FakeGitHub
from tests.sources.fake_jira import FakeJira


class FakeJiraMembers(FakeJira):
    def __init__(self, api: str = "2", **kwargs) -> None:
        super().__init__(api, **kwargs)
        self.roles: dict[str, dict[int, dict]] = {}  # project key -> role id -> {"name", "actors"}
        self.groups: dict[str, dict] = {}  # group name -> {"groupId", "users": [people keys or raw user objects]}

    # --- scripting ------------------------------------------------------------------------------
    def role(self, project: str, role_id: int, name: str, users=(), groups=()) -> None:
        actors = [self._user_actor(who, n) for n, who in enumerate(users)]
        actors += [self._group_actor(group, 100 + n) for n, group in enumerate(groups)]
        with self.lock:
            self.roles.setdefault(project, {})[role_id] = {"name": name, "actors": actors}

    def group(self, name: str, members: list) -> None:
        """``members``: jira_data.PEOPLE keys, or raw user objects (someone never imported)."""
        with self.lock:
            self.groups[name] = {"groupId": f"952d12c3-5b5b-4d04-bb32-{abs(hash(name)) % 10**12:012d}",
                                 "users": list(members)}

    def _user_actor(self, who: str, n: int) -> dict:
        person = jira_data.PEOPLE[who]
        actor = {"id": 10240 + n, "displayName": person["displayName"], "type": "atlassian-user-role-actor",
                 "avatarUrl": f"{self.url}/secure/useravatar?size=xsmall"}
        if self.api == "3":
            actor["actorUser"] = {"accountId": person["accountId"]}
        else:
            actor["name"] = person["name"]
        return actor

    def _group_actor(self, group: str, n: int) -> dict:
        actor = {"id": 10240 + n, "displayName": group, "type": "atlassian-group-role-actor", "name": group}
        if self.api == "3":
            actor["actorGroup"] = {"name": group, "displayName": group, "groupId": self.groups[group]["groupId"]}
        return actor

    # --- the protocol ---------------------------------------------------------------------------
    def _answer(self, path: str, query: dict[str, list[str]]):
        prefix = f"/rest/api/{self.api}/"
        tail = path[len(prefix):] if path.startswith(prefix) else ""
        parts = tail.split("/")
        if len(parts) in (3, 4) and parts[0] == "project" and parts[2] == "role":
            roles = self.roles.get(parts[1])
            if roles is None:
                return 404, {"errorMessages": [f"No project could be found with key '{parts[1]}'."]}
            if len(parts) == 3:
                return 200, {r["name"]: f"{self.url}/rest/api/{self.api}/project/{parts[1]}/role/{rid}"
                             for rid, r in roles.items()}
            role = roles.get(int(parts[3]))
            if role is None:
                return 404, {"errorMessages": ["no such role"]}
            return 200, {"self": f"{self.url}{path}", "name": role["name"], "id": int(parts[3]),
                         "description": role["name"], "actors": role["actors"]}
        if tail == "group/member":
            return self._group_page(query)
        if tail == "user" and self.api == "2":
            name = query.get("username", [""])[0]
            person = next((p for p in jira_data.PEOPLE.values() if p["name"] == name), None)
            return (200, jira_data.user(next(k for k, v in jira_data.PEOPLE.items() if v is person))) if person else \
                (404, {"errorMessages": [f"The user named '{name}' does not exist"]})
        return super()._answer(path, query)

    def _group_page(self, query: dict[str, list[str]]):
        if self.api == "3" and "groupId" in query:
            group = next((g for g in self.groups.values() if g["groupId"] == query["groupId"][0]), None)
        elif self.api == "2" and "groupId" in query:
            return 400, {"errorMessages": ["groupname is required"]}
        else:
            group = self.groups.get(query.get("groupname", [""])[0])
        if group is None:
            return 404, {"errorMessages": ["The specified group was not found."]}
        users = [jira_data.user(u, self.api) if isinstance(u, str) else u for u in group["users"]]
        start, size = int(query.get("startAt", ["0"])[0]), int(query.get("maxResults", ["50"])[0])
        return 200, {"self": "group/member", "maxResults": size, "startAt": start, "total": len(users),
                     "isLast": start + size >= len(users), "values": users[start:start + size]}


class FakeGitHubMembers(FakeGitHub):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.collaborators: list[dict] = []
        self.teams: dict[str, list[dict]] = {}  # slug -> members

    def _listing(self, path: str, query: dict[str, str]):
        org = self.repo.split("/")[0]
        if path == f"/repos/{self.repo}/collaborators":
            return list(self.collaborators)
        if path == f"/repos/{self.repo}/teams":
            return [{"id": n, "slug": slug, "name": slug, "permission": "push"} for n, slug in enumerate(self.teams)]
        for slug, members in self.teams.items():
            if path == f"/orgs/{org}/teams/{slug}/members":
                return list(members)
        return super()._listing(path, query)
