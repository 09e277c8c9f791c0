"""A generated export shaped like a real Jira (issue 31): ~2,100 issues of three projects, as the REST API
returns them (the JSON ``ragctl import jira`` reads). Pure: the same seed and ``today`` give the same export.

What it imitates of a real open-source tracker: several versions per project (released and not), 6-11
components, 30 labels (some with hyphens and dots), the issue types Bug / Improvement / New Feature / Task /
Sub-task / Epic / Story, the tracker's own status names (Open, In Progress, Patch Available, Reopened, In QE
Test, Resolved, Closed) with their status categories, seven resolutions with many issues closed as not fixed,
Jira's priorities, reporters, created / updated / resolved dates over three years, affects and fix versions,
environments, due dates for some, parents of sub-tasks, links of the five standard types written on both
issues (inward and outward), the sprint custom field with two-week sprints over three years (and
``closedSprints``), comments with authors and dates. 60 invented people with multi-word names (three-word
names, accents, "van der", hyphens, first names several people share) whose activity is skewed: a few do
most of the work. Nothing here is a real person's data.

``build()`` → Export; ``pages(export)`` → {file name: JSON value} for the runner to write.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SEED = 31
TODAY = dt.date(2026, 12, 1)  # the benchmark's fixed "today" (a Tuesday): every date is relative to it
SITE = "https://tracker.example.org"
SPRINT_FIELD = "customfield_10020"
POINTS_FIELD = "customfield_10016"
PAGE = 100  # issues per search-page file

# (display name): invented; first names several people share (Maria, Chris, Alex, Sam) on purpose.
PEOPLE = (
    "Ana María Quintero", "Pieter van der Berg", "Jean-Luc Moreau", "Chen Wei", "María Fernanda Ortiz",
    "María Castillo", "Chris Okafor", "Chris Lindqvist", "Alex Novak", "Alex Romero-Díaz", "Sam Patel",
    "Sam Whitfield", "Lotte van der Meer", "Anne-Sophie Richter", "José Ángel Núñez", "Björn Åkesson",
    "Priya Raghunathan", "Tomás Ibarra", "Noor El-Amin", "Kenji Watanabe", "Zoë Hartmann", "Luis Alberto Pérez",
    "Mei Lin Zhou", "Olusegun Adebayo", "Hanna Kowalczyk", "Ibrahim Haddad", "Sofía Valentina Ruiz",
    "Dmitri Volkov", "Fatima Zahra Benali", "Rafael Duarte", "Ingrid Solberg", "Marco De Luca", "Yuki Tanaka",
    "Gabriel Fontaine", "Aisha Mensah", "Erik Johansson", "Camila Rojas", "Viktor Horvath", "Nadia Petrova",
    "Oscar Lindgren", "Elena Bianchi", "Hugo Lefèvre", "Tariq Aziz", "Leonie Brandt", "Mateo Giménez",
    "Ravi Shankar Iyer", "Clara Esteves", "Jonas Weber", "Amara Nwosu", "Felipe Andrade", "Greta Nilsson",
    "Kwame Asante", "Irene Castellanos", "Pavel Novotný", "Lucía Herrera", "Daan de Vries", "Siobhán Kelly",
    "Arjun Mehta", "Beatriz Soto", "Mikael Virtanen",
)
LABELS = (
    "newbie", "performance", "security", "flaky-test", "release-notes", "java17", "kerberos", "docs",
    "api-compat", "pull-request-available", "ui", "sql", "metrics", "hadoop-3.3", "log4j2", "windows", "arm64",
    "build", "ci", "regression", "usability", "backport-2.x", "dependency-upgrade", "cve", "memory-leak",
    "timeout", "test", "cleanup", "refactoring", "scala-2.13",
)
TYPES = (("Bug", 40), ("Improvement", 22), ("New Feature", 8), ("Task", 10), ("Sub-task", 10), ("Epic", 2),
         ("Story", 8))
PRIORITIES = (("Blocker", 4), ("Critical", 9), ("Major", 55), ("Minor", 22), ("Trivial", 10))


def _priority(name: str) -> dict[str, str]:
    """A priority as Jira exports it: its id (Jira's defaults have ids in their order, Blocker 1 … Trivial 5) and
    its name."""
    return {"id": str(1 + [n for n, _ in PRIORITIES].index(name)), "name": name}
OPEN_STATUSES = (("Open", 45, "new"), ("In Progress", 20, "indeterminate"), ("Patch Available", 14, "indeterminate"),
                 ("Reopened", 8, "new"), ("In QE Test", 13, "indeterminate"))
CATEGORY_NAMES = {"new": "To Do", "indeterminate": "In Progress", "done": "Done"}
RESOLUTIONS = (("Fixed", 58), ("Won't Fix", 10), ("Duplicate", 9), ("Cannot Reproduce", 7), ("Incomplete", 5),
               ("Invalid", 5), ("Done", 6))
LINK_TYPES = {  # Jira's standard link types: name, inward phrase, outward phrase
    "Blocks": ("is blocked by", "blocks"), "Dependency": ("is depended on by", "depends on"),
    "Duplicate": ("is duplicated by", "duplicates"), "Cloners": ("is cloned by", "clones"),
    "Relates": ("relates to", "relates to"),
}
ENVIRONMENTS = ("Ubuntu 22.04, OpenJDK 17", "CentOS 7, JDK 8u292", "macOS 14 (arm64)", "Windows Server 2019",
                "Kubernetes 1.28 on AWS", "RHEL 9, OpenJDK 21", "Docker 24, Alpine 3.18")
# (key, name, issues, components, versions: (name, release date as days before TODAY, None: unreleased))
PROJECTS = (
    ("HRB", "Harbor Storage", 900,
     ("namenode", "datanode", "balancer", "client", "erasure-coding", "webhdfs", "snapshots", "security",
      "documentation", "build", "tools"),
     (("2.8.0", 1000), ("2.8.1", 880), ("2.9.0", 700), ("3.0.0", 480), ("3.0.1", 300), ("3.1.0", 120),
      ("3.1.1", None), ("3.2.0", None), ("4.0.0", None))),
    ("LMN", "Lumen Query", 700,
     ("planner", "optimizer", "executor", "jdbc-driver", "web-ui", "connectors", "catalog", "docs"),
     (("1.4.0", 950), ("1.5.0", 720), ("1.6.0", 500), ("1.7.0", 260), ("1.8.0", 60), ("1.9.0", None),
      ("2.0.0", None))),
    ("TLY", "Tally Metrics", 520,
     ("ingest", "alerting", "dashboards", "storage-engine", "api", "packaging"),
     (("0.9.0", 900), ("0.10.0", 610), ("0.11.0", 330), ("0.12.0", 90), ("0.13.0", None), ("1.0.0", None))),
)
SUBJECTS = ("NPE", "Race condition", "Memory leak", "Timeout", "Wrong result", "Deadlock", "Slow scan",
            "Flaky test", "Incorrect metric", "Crash", "Stale cache", "Missing permission check", "Log spam",
            "Off-by-one error", "Connection leak", "Data loss", "Unclear error message", "Retry storm")
OBJECTS = ("lease renewal", "block report", "checkpoint", "replica placement", "token renewal", "audit log",
           "quota check", "rolling upgrade", "partition pruning", "join reordering", "spill to disk",
           "type coercion", "prepared statements", "schema refresh", "retention policy", "downsampling",
           "alert routing", "label index", "write-ahead log", "compaction", "TLS handshake", "config reload",
           "shutdown hook", "metrics exporter", "bulk import", "query cancel", "session expiry", "rate limiter")
CONTEXTS = ("after failover", "under heavy load", "on restart", "with Kerberos enabled", "on Windows",
            "when the disk is full", "during decommission", "with IPv6", "after upgrade", "in secure mode",
            "for empty input", "with many small files", "on ARM", "when the clock skews", "in the web UI")
FEATURES = ("Support", "Add", "Expose", "Allow configuring", "Document", "Deprecate", "Make pluggable",
            "Improve", "Speed up", "Simplify")
BODIES = ("I can reproduce this on trunk.", "Attached a patch, please review.", "This looks like a duplicate.",
          "Can we backport this to the maintenance branch?", "The test fails about one run in ten.",
          "Thanks for the report, looking into it.", "Profiling shows most time spent in the lock.",
          "LGTM, +1 once the checkstyle warnings are fixed.", "Is this still an issue on the latest release?",
          "Moving this to the next release.", "I think the root cause is the retry loop.")


@dataclass(frozen=True)
class Export:
    today: dt.date
    people: tuple[dict[str, Any], ...]  # Jira user objects (accountId, displayName, emailAddress)
    projects: tuple[dict[str, Any], ...]  # /rest/api/2/project/{key} objects (versions, components)
    sprints: tuple[dict[str, Any], ...]  # sprint objects (id, name, state, boardId, dates)
    issues: tuple[dict[str, Any], ...]  # REST issue objects


def build(seed: int = SEED, today: dt.date = TODAY, scale: float = 1.0) -> Export:
    """The export; ``scale`` shrinks every project's issue count (a smaller export for quick tests)."""
    rng = random.Random(seed)
    people = tuple(_person(name, rng) for name in PEOPLE)
    busy = list(people)
    rng.shuffle(busy)
    reporters = list(people)
    rng.shuffle(reporters)
    gen = _Generator(rng, today, busy, reporters)
    projects, sprints, issues = [], [], []
    for pid, (key, name, count, components, versions) in enumerate(PROJECTS, start=1):
        project = gen.project(pid, key, name, components, versions)
        board = gen.sprints(pid, key)
        projects.append(project)
        sprints.extend(board)
        issues.extend(gen.issues(project, board, max(8, int(count * scale))))
    gen.link(issues)
    return Export(today, people, tuple(projects), tuple(sprints), tuple(issues))


def pages(export: Export) -> dict[str, Any]:
    """The files of the export: projects.json (the /rest/api/2/project list) and search pages of PAGE issues."""
    out: dict[str, Any] = {"projects.json": list(export.projects)}
    for start in range(0, len(export.issues), PAGE):
        chunk = list(export.issues[start:start + PAGE])
        out[f"issues-{start // PAGE:03d}.json"] = {"startAt": start, "maxResults": PAGE,
                                                   "total": len(export.issues), "issues": chunk}
    return out


def stamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _person(name: str, rng: random.Random) -> dict[str, Any]:
    mail = ".".join(_ascii(name).lower().replace("-", "").split())
    return {"accountId": f"{rng.getrandbits(96):024x}", "displayName": name, "emailAddress": f"{mail}@example.org",
            "active": True}


def _weighted(rng: random.Random, pairs: Sequence[tuple]) -> tuple:
    return rng.choices(pairs, weights=[p[1] for p in pairs])[0]


def _zipf(rng: random.Random, items: Sequence[Any], skew: float = 1.1) -> Any:
    return rng.choices(items, weights=[1 / (i + 1) ** skew for i in range(len(items))])[0]


class _Generator:
    def __init__(self, rng: random.Random, today: dt.date, busy: list, reporters: list) -> None:
        self.rng, self.today, self.busy, self.reporters = rng, today, busy, reporters
        self.now = dt.datetime.combine(today, dt.time(9, 0))
        self.next_id = 10000

    def _id(self) -> str:
        self.next_id += 1
        return str(self.next_id)

    def project(self, pid: int, key: str, name: str, components: Sequence[str], versions: Sequence) -> dict:
        return {
            "self": f"{SITE}/rest/api/2/project/{pid}", "id": str(pid), "key": key, "name": name,
            "description": f"{name}: the {key} project.", "lead": self.busy[pid - 1],
            "components": [{"id": self._id(), "name": c} for c in components],
            "versions": [{"id": self._id(), "name": v, "released": days is not None, "archived": False,
                          **({"releaseDate": (self.today - dt.timedelta(days=days)).isoformat()}
                             if days is not None else {})} for v, days in versions],
        }

    def sprints(self, pid: int, key: str) -> list[dict]:
        """Two-week sprints of the project's board over three years: closed ones, the active one, one future."""
        first = self.today - dt.timedelta(days=3 * 365 - 3 * pid)
        out, n, start = [], 1, first
        while start <= self.today + dt.timedelta(days=14):
            end = start + dt.timedelta(days=13)
            state = "closed" if end < self.today else ("active" if start <= self.today else "future")
            sprint = {"id": pid * 1000 + n, "name": f"{key} Sprint {n}", "state": state, "boardId": pid,
                      "goal": f"{key} sprint {n} goal", "startDate": f"{start.isoformat()}T09:00:00.000Z",
                      "endDate": f"{end.isoformat()}T17:00:00.000Z"}
            if state == "closed":
                sprint["completeDate"] = f"{end.isoformat()}T17:00:00.000Z"
            out.append(sprint)
            n, start = n + 1, start + dt.timedelta(days=14)
        return out

    def issues(self, project: dict, board: list[dict], count: int) -> list[dict]:
        rng = self.rng
        created = sorted(self.now - dt.timedelta(days=3 * 365 * (1 - rng.random() ** 0.6), minutes=rng.randrange(600))
                         for _ in range(count))
        out: list[dict] = []
        for n, moment in enumerate(created, start=1):
            out.append(self.issue(project, board, n, moment, out))
        return out

    def issue(self, project: dict, board: list[dict], n: int, created: dt.datetime, earlier: list[dict]) -> dict:
        rng = self.rng
        kind = _weighted(rng, TYPES)[0]
        if kind == "Sub-task" and not any(e["fields"]["issuetype"]["name"] != "Sub-task" for e in earlier):
            kind = "Task"
        age = (self.now - created).days
        done = rng.random() < (0.88 if age > 365 else 0.72 if age > 120 else 0.5 if age > 30 else 0.2)
        fields: dict[str, Any] = {
            "summary": self.summary(kind, project), "issuetype": {"name": kind, "subtask": kind == "Sub-task"},
            "project": {"id": project["id"], "key": project["key"], "name": project["name"]},
            "priority": _priority(_weighted(rng, PRIORITIES)[0]), "created": stamp(created),
            "reporter": _zipf(rng, self.reporters, 1.0), "description": self.description(kind),
            "labels": sorted({_zipf(rng, LABELS, 0.9) for _ in range(rng.choice((0, 0, 0, 1, 1, 1, 2, 3)))}),
            "components": [{"name": c["name"]} for c in self.components(project)],
            "environment": rng.choice(ENVIRONMENTS) if kind == "Bug" and rng.random() < 0.5 else None,
            "duedate": None, "resolution": None, "resolutiondate": None, "fixVersions": [], "versions": [],
            "issuelinks": [], POINTS_FIELD: rng.choice((1, 2, 3, 5, 8, 13)) if rng.random() < 0.35 else None,
        }
        resolved = self.status(fields, created, done)
        fields["assignee"] = None if rng.random() < (0.06 if done else 0.18) else _zipf(rng, self.busy, 1.0)
        self.versions(fields, project, created, resolved)
        self.plan(fields, board, created, resolved)
        if kind == "Sub-task":
            parent = rng.choice([e for e in earlier if e["fields"]["issuetype"]["name"] != "Sub-task"][-60:])
            fields["parent"] = {"id": parent["id"], "key": parent["key"], "fields": {
                "summary": parent["fields"]["summary"], "issuetype": parent["fields"]["issuetype"]}}
        last = resolved or created
        fields["comment"] = self.comments(created, last)
        stamps = [last, *(dt.datetime.strptime(c["created"][:19], "%Y-%m-%dT%H:%M:%S")
                          for c in fields["comment"]["comments"])]
        fields["updated"] = stamp(min(max(stamps) + dt.timedelta(minutes=rng.randrange(1, 300)), self.now))
        issue_id = self._id()
        return {"id": issue_id, "key": f"{project['key']}-{n}", "self": f"{SITE}/rest/api/2/issue/{issue_id}",
                "fields": fields}

    def summary(self, kind: str, project: dict) -> str:
        rng = self.rng
        if kind in ("Bug",):
            return f"{rng.choice(SUBJECTS)} in {rng.choice(OBJECTS)} {rng.choice(CONTEXTS)}"
        if kind == "Epic":
            return f"{project['name']}: {rng.choice(OBJECTS)} overhaul"
        return f"{rng.choice(FEATURES)} {rng.choice(OBJECTS)} {rng.choice(CONTEXTS)}"

    def description(self, kind: str) -> str:
        rng = self.rng
        if kind == "Bug":
            return (f"Steps to reproduce:\n# start the service\n# trigger the {rng.choice(OBJECTS)}\n\n"
                    f"*Expected*: it completes. *Actual*: {rng.choice(SUBJECTS).lower()}.")
        return f"We should {rng.choice(FEATURES).lower()} the {rng.choice(OBJECTS)}; see the design notes."

    def components(self, project: dict) -> list[dict]:
        rng, comps = self.rng, project["components"]
        k = rng.choices((0, 1, 2), weights=(6, 82, 12))[0]
        names = {_zipf(rng, comps, 0.8)["name"] for _ in range(k)}
        return [c for c in comps if c["name"] in names]

    def status(self, fields: dict, created: dt.datetime, done: bool) -> dt.datetime | None:
        rng = self.rng
        if not done:
            name, _, category = _weighted(rng, OPEN_STATUSES)
            fields["status"] = _status(name, category)
            if rng.random() < 0.22:
                fields["duedate"] = (self.today + dt.timedelta(days=rng.randint(-45, 60))).isoformat()
            return None
        resolved = min(created + dt.timedelta(days=rng.expovariate(1 / 40), minutes=rng.randrange(900)), self.now)
        kind = fields["issuetype"]["name"]
        resolution = _weighted(rng, RESOLUTIONS)[0]
        if resolution == "Done" and kind == "Bug":
            resolution = "Fixed"
        if resolution == "Fixed" and kind in ("Task", "Sub-task", "Story", "Epic") and rng.random() < 0.5:
            resolution = "Done"
        fields["status"] = _status(rng.choice(("Resolved", "Closed", "Closed")), "done")
        fields["resolution"] = {"name": resolution, "description": f"{resolution}."}
        fields["resolutiondate"] = stamp(resolved)
        if rng.random() < 0.1:
            fields["duedate"] = (resolved.date() + dt.timedelta(days=rng.randint(-10, 20))).isoformat()
        return resolved

    def versions(self, fields: dict, project: dict, created: dt.datetime, resolved: dt.datetime | None) -> None:
        rng, versions = self.rng, project["versions"]
        released = [v for v in versions if v["released"]]
        future = [v for v in versions if not v["released"]]
        if fields["issuetype"]["name"] == "Bug" and rng.random() < 0.7:
            before = [v for v in released if v["releaseDate"] <= created.date().isoformat()] or released[:1]
            picks = {before[-1]["name"]} | ({rng.choice(before)["name"]} if rng.random() < 0.2 else set())
            fields["versions"] = [{"name": v} for v in sorted(picks)]
        resolution = (fields["resolution"] or {}).get("name")
        if resolution in ("Fixed", "Done"):
            after = [v for v in released if v["releaseDate"] >= resolved.date().isoformat()]
            fix = after[0] if after else future[0]
            names = [fix["name"]]
            if after and rng.random() < 0.12 and versions.index(fix) > 0:
                names.insert(0, versions[versions.index(fix) - 1]["name"])  # a backport
            fields["fixVersions"] = [{"name": v} for v in names]
        elif resolution is None and rng.random() < 0.45:
            fields["fixVersions"] = [{"name": _zipf(rng, future, 1.0)["name"]}]

    def plan(self, fields: dict, board: list[dict], created: dt.datetime, resolved: dt.datetime | None) -> None:
        """The sprint custom field (every sprint the issue was in) and closedSprints."""
        rng = self.rng
        if rng.random() > 0.55:
            fields[SPRINT_FIELD] = None
            return
        active = next(ix for ix, s in enumerate(board) if s["state"] != "closed")
        if resolved is not None:
            day = resolved.date().isoformat()
            ix = next((i for i, s in enumerate(board) if s["endDate"][:10] >= day), active)
            chosen = [board[ix]]
        else:
            ix = active if rng.random() < 0.75 else min(active + 1, len(board) - 1)
            chosen = [board[ix]]
            if ix > 0 and rng.random() < 0.25 and board[ix - 1]["startDate"][:10] >= created.date().isoformat():
                chosen.insert(0, board[ix - 1])  # carried over from the sprint before
        fields[SPRINT_FIELD] = [dict(s) for s in chosen]
        closed = [dict(s) for s in chosen if s["state"] == "closed"]
        if closed:
            fields["closedSprints"] = closed

    def comments(self, created: dt.datetime, last: dt.datetime) -> dict:
        rng = self.rng
        k = rng.choices((0, 1, 2, 3, 4), weights=(35, 30, 18, 10, 7))[0]
        span = max((last - created).total_seconds(), 3600)
        items = []
        for _ in range(k):
            moment = created + dt.timedelta(seconds=rng.uniform(0, span))
            items.append({"id": self._id(), "author": _zipf(rng, self.busy, 1.0), "body": rng.choice(BODIES),
                          "created": stamp(moment), "updated": stamp(moment)})
        items.sort(key=lambda c: c["created"])
        return {"comments": items, "maxResults": k, "total": k, "startAt": 0}

    def link(self, issues: list[dict]) -> None:
        """Links of the five types, written on both issues as Jira shows them; a Duplicate-resolved issue
        duplicates an earlier one."""
        rng = self.rng
        by_project: dict[str, list[dict]] = {}
        for issue in issues:
            by_project.setdefault(issue["fields"]["project"]["key"], []).append(issue)
        for group in by_project.values():
            for ix, issue in enumerate(group[1:], start=1):
                dup = (issue["fields"]["resolution"] or {}).get("name") == "Duplicate"
                if not dup and rng.random() > 0.13:
                    continue
                kind = "Duplicate" if dup else rng.choices(("Blocks", "Dependency", "Cloners", "Relates"),
                                                           weights=(30, 25, 12, 33))[0]
                other = group[rng.randrange(max(0, ix - 80), ix)]
                self._both(kind, issue, other)

    def _both(self, kind: str, source: dict, target: dict) -> None:
        """``source`` <outward phrase> ``target``: the outward link on the source, the inward one on the target."""
        inward, outward = LINK_TYPES[kind]
        link_type = {"id": self._id(), "name": kind, "inward": inward, "outward": outward}
        ref = lambda issue: {"id": issue["id"], "key": issue["key"],  # noqa: E731
                             "fields": {"summary": issue["fields"]["summary"], "status": issue["fields"]["status"]}}
        source["fields"]["issuelinks"].append({"id": self._id(), "type": link_type, "outwardIssue": ref(target)})
        target["fields"]["issuelinks"].append({"id": self._id(), "type": link_type, "inwardIssue": ref(source)})


def _status(name: str, category: str) -> dict:
    return {"name": name, "statusCategory": {"key": category, "name": CATEGORY_NAMES[category]}}
