"""Jira issues in the shapes of Atlassian's documented REST examples (the ED / EX projects, the fictional
"Mia Krystof" of the docs' user objects): no real person's data. v2 bodies are wiki markup, v3 bodies ADF."""

from __future__ import annotations

import datetime as dt
import zlib

BASE = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.timezone.utc)

PEOPLE = {
    "mia": {"accountId": "5b10a2844c20165700ede21g", "key": "JIRAUSER10100", "name": "mia",
            "displayName": "Mia Krystof", "emailAddress": "mia@example.com"},
    "emma": {"accountId": "5b10ac8d82e05b22cc7d4ef5", "key": "JIRAUSER10101", "name": "emma",
             "displayName": "Emma Richards", "emailAddress": "emma@example.com"},
    "chen": {"accountId": "5b109f2e9729b51b54dc274d", "key": "JIRAUSER10102", "name": "chen",
             "displayName": "Chen Wei", "emailAddress": "chen@example.com"},
}


# Jira's default priorities have ids in their order (Server/Data Center: Blocker 1 … Trivial 5; Cloud: Highest 1 …
# Lowest 5); a priority an admin adds gets a high id wherever it is placed in the order.
PRIORITY_IDS = {"Blocker": "1", "Critical": "2", "Major": "3", "Minor": "4", "Trivial": "5",
                "Highest": "1", "High": "2", "Medium": "3", "Low": "4", "Lowest": "5"}


def priority_object(name: str) -> dict:
    return {"self": f"https://example/rest/api/2/priority/{PRIORITY_IDS.get(name, '10000')}",
            "id": PRIORITY_IDS.get(name, "10000"), "name": name}


def priorities(*names: str) -> list[dict]:
    """GET /rest/api/{2|3}/priority: the site's priorities in the tracker's order (Server's defaults when none named)."""
    return [priority_object(n) for n in names or ("Blocker", "Critical", "Major", "Minor", "Trivial")]


def stamp(minutes: int) -> str:
    return (BASE + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def updated_of(issue: dict) -> dt.datetime:
    return dt.datetime.strptime(issue["fields"]["updated"], "%Y-%m-%dT%H:%M:%S.000%z")


def user(who: str | None, api: str = "2") -> dict | None:
    if who is None:
        return None
    person = dict(PEOPLE[who])
    if api == "3":  # Cloud names users by accountId only
        person.pop("key"), person.pop("name")
    else:
        person.pop("accountId")
    return person


def body(text: str, api: str):
    if api == "2":
        return text
    return {"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "content": [{"type": "text", "text": line}]} for line in text.split("\n") if line]}


def project(key: str, name: str) -> dict:
    return {"self": f"https://example.atlassian.net/rest/api/2/project/{key}", "id": str(10000 + len(key)),
            "key": key, "name": name, "description": f"The {name} project", "projectTypeKey": "software"}


def comment(cid: int, who: str, text: str, minutes: int, api: str = "2") -> dict:
    return {"id": str(cid), "author": user(who, api), "body": body(text, api), "created": stamp(minutes),
            "updated": stamp(minutes)}


def issue(key: str, summary: str, *, api: str = "2", minutes: int = 0, description: str = "",
          status: tuple[str, str] = ("To Do", "new"), priority: str | None = "Medium", assignee: str | None = None,
          reporter: str | None = "mia", comments: list[dict] | None = None, links: list[dict] | None = None,
          sprint: object = None, issue_type: str = "Task", labels: list[str] | None = None, points: float | None = None,
          due: str | None = None, project_name: str | None = None, created: int = 0,
          resolution: str | None = None, resolved: int | None = None, versions: list[str] | None = None,
          fix_versions: list[str] | None = None, components: list[str] | None = None, environment: str | None = None,
          parent: str | None = None) -> dict:
    project_key = key.rsplit("-", 1)[0]
    fields = {
        "summary": summary, "description": body(description, api) if description else None,
        "issuetype": {"name": issue_type, "subtask": False},
        "status": {"name": status[0], "statusCategory": {"key": status[1]}},
        "priority": priority_object(priority) if priority else None, "duedate": due,
        "assignee": user(assignee, api), "reporter": user(reporter, api),
        "comment": {"comments": comments or [], "total": len(comments or []), "maxResults": 50, "startAt": 0},
        "issuelinks": links or [], "labels": labels or [],
        "fixVersions": [version(v) for v in fix_versions or ()], "components": [{"name": c} for c in components or ()],
        "created": stamp(created), "updated": stamp(minutes),
        "resolution": {"name": resolution, "description": ""} if resolution else None,
        "resolutiondate": stamp(resolved) if resolved is not None else None,
        "versions": [version(v) for v in versions or ()],
        "environment": body(environment, api) if environment else None,
        "project": {"key": project_key, "name": project_name or f"{project_key} project"},
        "customfield_10016": points,
    }
    if sprint is not None:  # one sprint, or every sprint the issue was in (a list)
        fields["customfield_10020"] = list(sprint) if isinstance(sprint, list) else [sprint]
    if parent is not None:
        fields["parent"] = {"key": parent, "fields": {"summary": f"Parent {parent}"}}
    return {"id": str(10000 + zlib.crc32(key.encode()) % 90000), "key": key, "self": f"https://example/rest/api/2/issue/{key}",
            "fields": fields}


def version(name: str) -> dict:
    return {"self": f"https://example/rest/api/2/version/{zlib.crc32(name.encode()) % 90000}", "name": name,
            "archived": False, "released": False}


def link(type_name: str, inward: str, outward: str, key: str, *, outward_issue: bool) -> dict:
    """An issue link as Jira lists it on the issue: ``outward_issue`` True reads "this <outward> key"."""
    return {"id": "10003", "type": {"name": type_name, "inward": inward, "outward": outward},
            ("outwardIssue" if outward_issue else "inwardIssue"): {"key": key}}


def blocked_by(key: str) -> dict:
    return {"id": "10001", "type": {"name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
            "inwardIssue": {"key": key}}


def blocks(key: str) -> dict:
    return {"id": "10002", "type": {"name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
            "outwardIssue": {"key": key}}


def sprint_object(sid: int, name: str, state: str = "active") -> dict:
    return {"id": sid, "name": name, "state": state, "boardId": 1, "goal": "Ship refunds",
            "startDate": "2026-11-02T09:00:00.000Z", "endDate": "2026-11-16T17:00:00.000Z"}


def sprint_string(sid: int, name: str, state: str = "ACTIVE") -> str:
    return (f"com.atlassian.greenhopper.service.sprint.Sprint@1a2b3c[id={sid},rapidViewId=3,state={state},name={name},"
            "goal=<null>,startDate=2026-11-02T09:00:00.000Z,endDate=2026-11-16T17:00:00.000Z,completeDate=<null>,sequence=7]")


def tracker(api: str = "2") -> list[dict]:
    """A small tracker: four PAY issues with comments by three people, a link both ways, both sprint forms."""
    def c(cid: int, who: str, text: str, minutes: int) -> dict:
        return comment(cid, who, text, minutes, api)

    return [
        issue("PAY-1", "Refund fails for EUR", api=api, minutes=10, assignee="chen",
              description="h2. Steps\n* pay\n* refund", status=("In QE Test", "indeterminate"), priority="Blocker",
              issue_type="Bug", labels=["backend", "refunds"], points=5, due="2026-11-30",
              sprint=sprint_string(12, "PAY Sprint 7"), links=[blocked_by("PAY-2")],
              fix_versions=["2026.12", "Release 2.1"], components=["Payments API"], versions=["2026.11"],
              environment="Chrome 130 on macOS",
              comments=[c(1, "emma", "Seen on *prod*", 11), c(2, "chen", "Fix in review", 12), c(3, "mia", "Thanks", 13)]),
        # A sub-task of PAY-4, which comes later in the pass; cloned by an issue that is not imported.
        issue("PAY-2", "Ledger export times out", api=api, minutes=20, assignee="emma", issue_type="Sub-task",
              sprint=sprint_object(12, "PAY Sprint 7"), parent="PAY-4", comments=[c(4, "chen", "Reproduced", 21)],
              links=[blocks("PAY-1"), link("Cloners", "is cloned by", "clones", "OPS-9", outward_issue=False)]),
        issue("PAY-3", "Old flaky test", api=api, minutes=30, status=("Done", "done"), resolution="Won't Fix",
              resolved=29, created=-60, links=[link("Duplicate", "is duplicated by", "duplicates", "PAY-1",
                                                    outward_issue=True)]),
        issue("PAY-4", "Card tokens on mobile", api=api, minutes=40, assignee="chen", reporter="emma",
              comments=[c(5, "emma", "Mobile team owns it", 41)],
              links=[link("Dependency", "is depended on by", "depends on", "PAY-2", outward_issue=True),
                     link("Problem/Incident", "is caused by", "causes", "OPS-1", outward_issue=True)]),
    ]
