"""Generated tracker rows for tests/sqlite/test_tracker_query.py, written straight into a real SQLite file, and the
independent answer: what each predicate, order and group must give, computed in Python from those rows (never
from the engine). A seeded random tracker: statuses in several cases, NULLs in every column, labels with accents and
spaces, links to open, finished and missing targets, comments that say "blocked" and ones that only contain it
inside a longer word."""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import Any

from app.domain import DONE_STATUSES, Caller
from app.engines.sqlite.engine import SQLiteEngine
from app.rag.understanding.blocked import BLOCKED_WORDS
from app.rag.understanding.query import Predicate, TrackerQuery

TODAY = dt.date(2026, 12, 6)


class _NoModel:
    model_name = "none"
    dimensions = 384


@dataclass
class Task:
    task_id: int
    title: str
    description: str | None
    status: str | None
    priority: str | None
    sprint_id: int | None
    project_id: int | None
    assignee_id: int | None
    reporter_id: int | None
    parent_id: int | None
    story_points: float | None
    due: dt.date | None
    issue_type: str | None
    status_name: str | None
    resolution: str | None
    created: dt.datetime | None
    updated: dt.datetime | None
    resolved: dt.datetime | None
    values: dict[str, list[str]] = field(default_factory=dict)
    links: list[tuple[str, int | None]] = field(default_factory=list)  # (type, target id or None: not imported)
    comments: list[str] = field(default_factory=list)
    priority_name: str | None = None  # the tracker's own ("Major"), and its rank in the tracker's order (V16)
    priority_rank: int | None = None
    sprints: list[int] = field(default_factory=list)  # every sprint it was in (TASK_SPRINTS), besides sprint_id


PEOPLE = {1: ("Maria", "Lopez"), 2: ("Ben", "Okafor"), 3: ("Ana", None), 4: ("Chen", "Wei"), 5: ("Farah", "Iqbal")}
PROJECTS = {1: "Payments", 2: "Mobile", 3: "Data"}
SPRINTS = {1: ("Mobile Sprint 1", 2), 2: ("Mobile Sprint 2", 2), 3: ("Pay Sprint 7", 1)}
STATUSES = ["TODO", "IN_PROGRESS", "IN_REVIEW", "BLOCKED", "DONE", "done", "CLOSED", "Cancelled", None]
PRIORITIES = ["CRITICAL", "HIGH", "High", "MEDIUM", "LOW", "low", "TRIVIAL", None]
VALUES = {"LABEL": ["backend", "refunds", "ui", "Señal débil", "needs review"],
          "COMPONENT": ["Payments API", "iOS", "Android"],
          "FIX_VERSION": ["2.0.0", "2.1.0", "Release 3"], "AFFECTS_VERSION": ["1.9.0", "2.0.0"]}
WORDS = ["export", "refund", "Año", "crash", "ledger"]
SAYS = ["Blocked until the API contract is agreed.", "waiting on design", "Esperando al banco", "it is STUCK",
        "on hold for now"]
PRIORITY_NAMES = ["Blocker", "Critical", "Major", "major", "Minor", "Trivial", "Señal alta"]
SAYS_NOT = ["unblocked yesterday", "this blocks PAY-9", "non-blocking", "stuck-up parser", "pendiente de revisión"]


def _maybe(rng: random.Random, values: list[Any], none: float = 0.2) -> Any:
    return None if rng.random() < none else rng.choice(values)


def _stamp(rng: random.Random) -> dt.datetime | None:
    if rng.random() < 0.15:
        return None
    return dt.datetime(2026, 11, 1, 8) + dt.timedelta(days=rng.randrange(40), minutes=rng.randrange(600))


def generate(seed: int = 31, n: int = 160) -> list[Task]:
    rng = random.Random(seed)
    tasks = []
    for tid in range(1, n + 1):
        words = rng.sample(WORDS, rng.randrange(3))
        description = None if rng.random() < 0.2 else " ".join(
            [*words[1:], rng.choice(SAYS) if rng.random() < 0.15 else rng.choice(SAYS_NOT)])
        t = Task(tid, f"Task {tid} {words[0] if words else 'misc'}", description, _maybe(rng, STATUSES, 0.1),
                 _maybe(rng, PRIORITIES, 0.1), _maybe(rng, list(SPRINTS)), _maybe(rng, list(PROJECTS)),
                 _maybe(rng, [2, 3, 4, 5], 0.15), _maybe(rng, [1, 2, 3, 4, 5], 0.3),
                 _maybe(rng, list(range(1, tid)), 0.85) if tid > 1 else None,
                 _maybe(rng, [1.0, 2.0, 3.0, 5.0, 8.0], 0.25),
                 None if rng.random() < 0.25 else TODAY + dt.timedelta(days=rng.randrange(-20, 30)),
                 _maybe(rng, ["Bug", "Story", "bug"]), _maybe(rng, ["In QE Test", "Open"], 0.6),
                 _maybe(rng, ["Fixed", "Won't Fix", "Duplicate"], 0.6), _stamp(rng), _stamp(rng), _stamp(rng))
        for name, choices in VALUES.items():
            t.values[name] = rng.sample(choices, rng.choice([0, 0, 1, 2]))
        if t.assignee_id == 3 and rng.random() < 0.3:
            t.values["LABEL"].append("Ana only")  # a value only one developer's tasks hold
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            kind = rng.choice(["BLOCKED_BY", "DEPENDS_ON", "RELATES", "BLOCKS"])
            t.links.append((kind, None if rng.random() < 0.3 else rng.randrange(1, n + 1)))
        t.comments = [rng.choice(SAYS + SAYS_NOT + ["looks fine"]) for _ in range(rng.choice([0, 0, 1, 2]))]
        tasks.append(t)
    _tracker_priorities_and_sprints(tasks, random.Random(seed + 1000))
    return tasks


def _tracker_priorities_and_sprints(tasks: list[Task], rng: random.Random) -> None:
    """The tracker's own priority (name and rank, each NULL at times, ranks tying within a level) and earlier sprints,
    from a random stream of their own so the other columns stay those of the seed."""
    for t in tasks:
        t.priority_name = _maybe(rng, PRIORITY_NAMES, 0.3)
        t.priority_rank = _maybe(rng, [1, 2, 3, 4, 5], 0.3)
        t.sprints = rng.sample(list(SPRINTS), rng.choice([0, 0, 1, 2]))


def write(engine: SQLiteEngine, tasks: list[Task]) -> None:
    conn = engine.conn
    with conn:
        for pid, (first, last) in PEOPLE.items():
            conn.execute("INSERT INTO EMPLOYEES (EMPLOYEE_ID, FIRST_NAME, LAST_NAME, ROLE) VALUES (?, ?, ?, ?)",
                         (pid, first, last, "MANAGER" if pid == 1 else "DEVELOPER"))
        for pid, name in PROJECTS.items():
            conn.execute("INSERT INTO PROJECTS (PROJECT_ID, NAME) VALUES (?, ?)", (pid, name))
        for sid, (name, pid) in SPRINTS.items():
            conn.execute("INSERT INTO SPRINTS (SPRINT_ID, NAME, PROJECT_ID) VALUES (?, ?, ?)", (sid, name, pid))
        for t in tasks:
            conn.execute(
                "INSERT INTO TASKS (TASK_ID, TITLE, DESCRIPTION, STATUS, PRIORITY, SPRINT_ID, PROJECT_ID, ASSIGNEE_ID,"
                " REPORTER_ID, STORY_POINTS, EXPECTED_END_DATE, ISSUE_TYPE, STATUS_NAME, RESOLUTION, CREATED_AT,"
                " UPDATED_AT, RESOLVED_AT, PRIORITY_NAME, PRIORITY_RANK)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (t.task_id, t.title, t.description, t.status, t.priority, t.sprint_id, t.project_id, t.assignee_id,
                 t.reporter_id, t.story_points, t.due and t.due.isoformat(), t.issue_type, t.status_name,
                 t.resolution, *(s and s.isoformat(timespec="milliseconds") for s in (t.created, t.updated,
                                                                                        t.resolved)),
                 t.priority_name, t.priority_rank))
        for t in tasks:
            if t.parent_id:
                conn.execute("UPDATE TASKS SET PARENT_ID = ?, PARENT_KEY = ? WHERE TASK_ID = ?",
                             (t.parent_id, f"T-{t.parent_id}", t.task_id))
            for name, values in t.values.items():
                for value in values:
                    conn.execute("INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (?, ?, ?)",
                                 (t.task_id, name, value))
            for sprint_id in t.sprints:
                conn.execute("INSERT INTO TASK_SPRINTS (TASK_ID, SPRINT_ID) VALUES (?, ?)", (t.task_id, sprint_id))
            for kind, target in t.links:
                conn.execute("INSERT OR IGNORE INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID)"
                             " VALUES (?, ?, ?, ?)", (t.task_id, kind, f"T-{target or 9000 + t.task_id}", target))
            for body in t.comments:
                conn.execute("INSERT INTO COMMENTS (TASK_ID, AUTHOR_ID, BODY) VALUES (?, ?, ?)",
                             (t.task_id, t.assignee_id, body))
    # a link is kept once per (type, key); the oracle below reads what was stored
    for t in tasks:
        t.links = list(dict.fromkeys(t.links))


# --- the independent answer ----------------------------------------------------------------------------

def _open(t: Task) -> bool:
    return t.status is None or t.status.upper() not in DONE_STATUSES


def _says(text: str | None) -> bool:
    return text is not None and any(
        re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text, re.IGNORECASE) for w in BLOCKED_WORDS)


def _blocked(t: Task, tasks: dict[int, Task]) -> bool:
    links = any(kind in ("BLOCKED_BY", "DEPENDS_ON") and (target is None or _open(tasks[target]))
                for kind, target in t.links)
    return (t.status or "").upper() == "BLOCKED" or links or _says(t.description) or any(map(_says, t.comments))


_ATTR = {"project": "project_id", "sprint": "sprint_id", "assignee": "assignee_id", "reporter": "reporter_id",
         "parent": "parent_id", "status": "status", "status_name": "status_name", "priority": "priority",
         "priority_name": "priority_name",
         "issue_type": "issue_type", "resolution": "resolution", "created": "created", "updated": "updated",
         "resolved": "resolved", "due": "due"}
_MULTI = {"label": "LABEL", "component": "COMPONENT", "fix_version": "FIX_VERSION",
          "affects_version": "AFFECTS_VERSION"}


def holds(t: Task, p: Predicate, tasks: dict[int, Task]) -> bool:
    if p.field == "sprint":  # the latest, or any sprint it was in (None: no latest sprint)
        hit = t.sprint_id in p.values or any(s in p.values for s in t.sprints)
    elif p.field in ("project", "assignee", "reporter", "parent"):
        hit = getattr(t, _ATTR[p.field]) in p.values
    elif p.field in ("status", "status_name", "priority", "priority_name", "issue_type", "resolution"):
        value = getattr(t, _ATTR[p.field])
        hit = (value is None and None in p.values) or (
            value is not None and value.upper() in {v.upper() for v in p.values if v is not None})
    elif p.field in _MULTI:
        hit = bool({v.upper() for v in t.values[_MULTI[p.field]]} & {v.upper() for v in p.values})
    elif p.field in ("created", "updated", "resolved", "due"):
        value = getattr(t, _ATTR[p.field])
        day = value.date() if isinstance(value, dt.datetime) else value
        start, end = p.window  # type: ignore[misc]
        hit = day is not None and (start is None or day >= start) and (end is None or day < end)
    elif p.field == "open":
        hit = _open(t) in p.values
    elif p.field == "overdue":
        hit = any(t.due is not None and t.due < d and _open(t) for d in p.values)
    elif p.field == "blocked":
        hit = _blocked(t, tasks) in p.values
    else:  # text
        hit = all(w.upper() in t.title.upper() or w.upper() in (t.description or "").upper() for w in p.values)
    return hit != p.negate


def expected(tasks: dict[int, Task], caller: Caller, query: TrackerQuery) -> list[Task]:
    seen = [t for t in tasks.values() if caller.sees_everything or t.assignee_id == caller.employee_id]
    return [t for t in seen if all(holds(t, p, tasks) for p in query.where)]


_RANK = {"CRITICAL": 1, "HIGH": 2, "MEDIUM": 3, "LOW": 4}


def ordered(found: list[Task], query: TrackerQuery) -> list[int]:
    if query.order == "id":
        return sorted((t.task_id for t in found), reverse=query.descending)

    def key(t: Task) -> tuple:
        if query.order == "priority":  # among equal levels the tracker's rank (unknown last), then due soonest
            rank = _RANK.get((t.priority or "").upper())
            value = None if rank is None else (rank if query.descending else -rank)
            own = t.priority_rank
            tracker = (own is None, 0 if own is None else (own if query.descending else -own))
            due = (t.due is None, t.due or dt.date.min)
            return (value is None, value if value is not None else 0, tracker, due, t.task_id)
        else:
            raw = {"due": t.due, "created": t.created, "updated": t.updated, "resolved": t.resolved}[query.order]
            value = None if raw is None else (raw if not query.descending else _Desc(raw))
        return (value is None, value if value is not None else 0, t.task_id)

    return [t.task_id for t in sorted(found, key=key)]


@dataclass(frozen=True, order=False)
class _Desc:
    value: Any

    def __lt__(self, other: _Desc) -> bool:
        return self.value > other.value


def _points(found: list[Task]) -> float:
    return float(sum(t.story_points or 0 for t in found))
