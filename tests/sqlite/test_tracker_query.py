"""The typed tracker query on a real SQLite file: every predicate kind, every return kind and the access rule,
each checked against an answer computed in Python from the rows the test inserted (never from the engine).

The rows are generated (a seeded random tracker: statuses in several cases, NULLs in every column, labels with
accents and spaces, links to open, finished and missing targets, comments that say "blocked" and ones that only
contain it inside a longer word), written straight into the tables.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.domain import DONE_STATUSES, TASK_FIELDS, Caller, Role, TaskQuery
from app.engines.sqlite.engine import SQLiteEngine
from app.rag.understanding.blocked import BLOCKED_WORDS
from app.rag.understanding.query import Predicate, TrackerQuery

MANAGER = Caller(1, Role.MANAGER)
DEVS = [Caller(i, Role.DEVELOPER) for i in (2, 3, 4)]
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
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            kind = rng.choice(["BLOCKED_BY", "DEPENDS_ON", "RELATES", "BLOCKS"])
            t.links.append((kind, None if rng.random() < 0.3 else rng.randrange(1, n + 1)))
        t.comments = [rng.choice(SAYS + SAYS_NOT + ["looks fine"]) for _ in range(rng.choice([0, 0, 1, 2]))]
        tasks.append(t)
    return tasks


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
                " UPDATED_AT, RESOLVED_AT) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (t.task_id, t.title, t.description, t.status, t.priority, t.sprint_id, t.project_id, t.assignee_id,
                 t.reporter_id, t.story_points, t.due and t.due.isoformat(), t.issue_type, t.status_name,
                 t.resolution, *(s and s.isoformat(timespec="milliseconds") for s in (t.created, t.updated,
                                                                                        t.resolved))))
        for t in tasks:
            if t.parent_id:
                conn.execute("UPDATE TASKS SET PARENT_ID = ?, PARENT_KEY = ? WHERE TASK_ID = ?",
                             (t.parent_id, f"T-{t.parent_id}", t.task_id))
            for name, values in t.values.items():
                for value in values:
                    conn.execute("INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (?, ?, ?)",
                                 (t.task_id, name, value))
            for kind, target in t.links:
                conn.execute("INSERT OR IGNORE INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID)"
                             " VALUES (?, ?, ?, ?)", (t.task_id, kind, f"T-{target or 9000 + t.task_id}", target))
            for body in t.comments:
                conn.execute("INSERT INTO COMMENTS (TASK_ID, AUTHOR_ID, BODY) VALUES (?, ?, ?)",
                             (t.task_id, t.assignee_id, body))
    # a link is kept once per (type, key); the oracle below reads what was stored
    for t in tasks:
        t.links = list(dict.fromkeys(t.links))


@pytest.fixture(scope="module")
def tracker(tmp_path_factory):
    engine = SQLiteEngine(str(tmp_path_factory.mktemp("tq") / "tq.db"), embedder=_NoModel())
    engine.migrate()
    tasks = generate()
    write(engine, tasks)
    yield engine, {t.task_id: t for t in tasks}
    engine.close()


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
         "issue_type": "issue_type", "resolution": "resolution", "created": "created", "updated": "updated",
         "resolved": "resolved", "due": "due"}
_MULTI = {"label": "LABEL", "component": "COMPONENT", "fix_version": "FIX_VERSION",
          "affects_version": "AFFECTS_VERSION"}


def holds(t: Task, p: Predicate, tasks: dict[int, Task]) -> bool:
    if p.field in ("project", "sprint", "assignee", "reporter", "parent"):
        hit = getattr(t, _ATTR[p.field]) in p.values
    elif p.field in ("status", "status_name", "priority", "issue_type", "resolution"):
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
        if query.order == "priority":
            rank = _RANK.get((t.priority or "").upper())
            value = None if rank is None else (rank if query.descending else -rank)
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


# --- the cases ---------------------------------------------------------------------------------------------

W = dt.date
PREDICATES = [
    Predicate("project", (1,)), Predicate("project", (None,)), Predicate("project", (2, None)),
    Predicate("project", (1,), negate=True),
    Predicate("sprint", (2,)), Predicate("assignee", (None,)), Predicate("assignee", (3, 4)),
    Predicate("reporter", (1,)), Predicate("reporter", (None,), negate=True), Predicate("parent", (None,), negate=True),
    Predicate("status", ("done",)), Predicate("status", ("IN_REVIEW", "blocked")), Predicate("status", (None,)),
    Predicate("priority", ("critical",), negate=True), Predicate("priority", ("HIGH", None)),
    Predicate("status_name", ("in qe test",)), Predicate("issue_type", ("BUG",)),
    Predicate("resolution", (None,)), Predicate("resolution", ("won't fix", "Duplicate")),
    Predicate("resolution", ("Fixed",), negate=True),
    Predicate("label", ("backend",)), Predicate("label", ("SEÑAL DÉBIL", "ui")), Predicate("label", ("needs review",)),
    Predicate("component", ("ios",), negate=True), Predicate("fix_version", ("2.0.0",)),
    Predicate("affects_version", ("2.0.0", "1.9.0")),
    Predicate("created", window=(W(2026, 11, 10), W(2026, 11, 20))), Predicate("updated", window=(W(2026, 12, 1), None)),
    Predicate("resolved", window=(None, W(2026, 11, 15))), Predicate("due", window=(W(2026, 12, 6), W(2026, 12, 13))),
    Predicate("due", window=(W(2026, 12, 6), None), negate=True),
    Predicate("open", (True,)), Predicate("open", (False,)), Predicate("overdue", (TODAY,)),
    Predicate("overdue", (TODAY,), negate=True), Predicate("blocked", (True,)), Predicate("blocked", (False,)),
    Predicate("text", ("export",)), Predicate("text", ("año",)), Predicate("text", ("EXPORT", "ledger")),
    Predicate("text", ("crash",), negate=True),
]


def _run(engine, caller, query):
    return engine.run_tracker_query(caller, query)


@pytest.mark.parametrize("pred", PREDICATES, ids=lambda p: f"{'not-' if p.negate else ''}{p.field}")
def test_every_predicate_counts_lists_and_sums_what_python_computes(tracker, pred):
    engine, tasks = tracker
    for caller in (MANAGER, *DEVS):
        query = TrackerQuery(where=(pred,), limit=500)
        want = expected(tasks, caller, query)
        got = _run(engine, caller, query)
        assert got.total == len(want), (caller, pred)
        assert got.points == pytest.approx(_points(want))
        assert [r["task_id"] for r in got.rows] == sorted(t.task_id for t in want)
    assert expected(tasks, MANAGER, TrackerQuery(where=(pred,))), f"{pred} matches nothing: the case proves little"


def test_predicates_combine_and_every_row_has_the_list_fields(tracker):
    engine, tasks = tracker
    query = TrackerQuery(where=(Predicate("open", (True,)), Predicate("priority", ("critical", "high")),
                                Predicate("project", (1, 2))), limit=500)
    want = expected(tasks, MANAGER, query)
    got = _run(engine, MANAGER, query)
    assert want and [r["task_id"] for r in got.rows] == sorted(t.task_id for t in want)
    row = got.rows[0]
    t = tasks[row["task_id"]]
    assert set(TASK_FIELDS) <= set(row)
    assert (row["project_name"], row["assignee_name"], row["reporter_name"]) == (
        PROJECTS.get(t.project_id), " ".join(p for p in PEOPLE.get(t.assignee_id, ()) if p) or None,
        " ".join(p for p in PEOPLE.get(t.reporter_id, ()) if p) or None)
    assert (row["expected_end_date"], row["created_at"], row["resolution"], row["issue_type"]) == (
        t.due, t.created, t.resolution, t.issue_type)


@pytest.mark.parametrize("order", ["priority", "due", "created", "updated", "resolved", "id"])
@pytest.mark.parametrize("descending", [False, True])
def test_a_list_is_in_its_order_with_nulls_last_and_ties_by_id_and_counts_past_its_limit(tracker, order, descending):
    engine, tasks = tracker
    for caller in (MANAGER, DEVS[0]):
        query = TrackerQuery(where=(Predicate("open", (True,)),), order=order, descending=descending, limit=7)
        want = expected(tasks, caller, query)
        got = _run(engine, caller, query)
        assert [r["task_id"] for r in got.rows] == ordered(want, query)[:7]
        assert got.total == len(want) > 7  # the total is every match, not the page


def test_count_and_points_return_the_aggregate_only(tracker):
    engine, tasks = tracker
    for returns in ("count", "points"):
        for caller in (MANAGER, *DEVS):
            query = TrackerQuery(where=(Predicate("open", (True,)),), returns=returns)
            want = expected(tasks, caller, query)
            got = _run(engine, caller, query)
            assert (got.total, got.rows, got.groups) == (len(want), [], [])
            assert got.points == pytest.approx(_points(want))


def _want_groups(tasks, caller, query) -> list[tuple[Any, int, float]]:
    found = expected(tasks, caller, query)
    buckets: dict[Any, list[Task]] = {}
    for t in found:
        if query.group_by in _MULTI:
            keys = t.values[_MULTI[query.group_by]] or [None]
        else:
            keys = [getattr(t, _ATTR[query.group_by])]
        for key in keys:
            buckets.setdefault(key, []).append(t)
    return sorted(((k, len(v), _points(v)) for k, v in buckets.items()), key=lambda g: (g[0] is None, str(g[0])))


@pytest.mark.parametrize("group_by", ["project", "sprint", "assignee", "reporter", "status", "status_name",
                                      "priority", "issue_type", "resolution", "label", "component", "fix_version",
                                      "affects_version"])
def test_a_group_by_counts_and_sums_every_match_per_value(tracker, group_by):
    engine, tasks = tracker
    for caller in (MANAGER, DEVS[1]):
        query = TrackerQuery(where=(Predicate("text", ("crash",), negate=True),), returns="group", group_by=group_by)
        got = _run(engine, caller, query)
        assert got.total == len(expected(tasks, caller, query))
        have = sorted(((g.key, g.count, g.points) for g in got.groups), key=lambda g: (g[0] is None, str(g[0])))
        assert [(k, n) for k, n, _ in have] == [(k, n) for k, n, _ in _want_groups(tasks, caller, query)]
        assert [p for *_, p in have] == pytest.approx([p for *_, p in _want_groups(tasks, caller, query)])
        counts = [g.count for g in got.groups]
        assert counts == sorted(counts, reverse=True)  # most first
        labels = {g.key: g.label for g in got.groups}
        if group_by == "assignee" and None in labels:
            assert labels[None] == "unassigned"
        if group_by == "project":
            assert all(labels[k] == PROJECTS[k] for k in labels if k is not None)


def test_a_group_by_ranks_by_points_ascending_and_breaks_ties_by_label(tracker):
    engine, tasks = tracker
    query = TrackerQuery(returns="group", group_by="assignee", measure="points", ascending=True)
    got = _run(engine, MANAGER, query)
    keys = [(g.points, g.key is None, g.label) for g in got.groups]
    assert keys == sorted(keys) and len(keys) == len(_want_groups(tasks, MANAGER, query))
    by_status = _run(engine, MANAGER, TrackerQuery(returns="group", group_by="priority")).groups
    ties = [(-g.count, g.key is None, g.label) for g in by_status]
    assert ties == sorted(ties)  # most first; ties by label, the none group after the others


def test_field_returns_the_first_record_in_order_with_every_record_field(tracker):
    engine, tasks = tracker
    query = TrackerQuery(where=(Predicate("open", (True,)),), returns="field", record_field="labels",
                         order="due", descending=False)
    got = _run(engine, MANAGER, query)
    want = expected(tasks, MANAGER, query)
    assert got.total == len(want) and len(got.rows) == 1
    record = got.rows[0]
    t = tasks[record["task_id"]]
    assert record["task_id"] == ordered(want, query)[0]
    assert record["labels"] == tuple(sorted(t.values["LABEL"]))
    assert record["fix_versions"] == tuple(sorted(t.values["FIX_VERSION"]))
    assert {"environment", "parent_id", "parent_key", "components", "affects_versions", "reporter_id"} <= set(record)


def test_a_developer_count_and_group_cover_exactly_their_assigned_tasks(tracker):
    engine, tasks = tracker
    for dev in DEVS:
        mine = {t.task_id for t in tasks.values() if t.assignee_id == dev.employee_id}
        got = _run(engine, dev, TrackerQuery(returns="count"))
        assert got.total == len(mine) > 0
        groups = _run(engine, dev, TrackerQuery(returns="group", group_by="assignee")).groups
        assert [(g.key, g.count) for g in groups] == [(dev.employee_id, len(mine))]
        listed = _run(engine, dev, TrackerQuery(limit=500)).rows
        assert {r["task_id"] for r in listed} == mine
        # asking for another person's tasks finds none of them: hidden reads as missing
        other = next(d for d in DEVS if d != dev)
        assert _run(engine, dev, TrackerQuery(where=(Predicate("assignee", (other.employee_id,)),))).total == 0


def test_find_tasks_keeps_its_results(tracker):
    engine, tasks = tracker
    cases = [TaskQuery(limit=500), TaskQuery(status="done", limit=500), TaskQuery(priority="high", open_only=True),
             TaskQuery(project_id=2, sprint_id=2), TaskQuery(unassigned=True, limit=100),
             TaskQuery(overdue_on=TODAY, limit=100), TaskQuery(due_after=TODAY, due_before=W(2026, 12, 20)),
             TaskQuery(assignee_id=3, limit=3), TaskQuery(status=" done")]
    for caller in (MANAGER, DEVS[0]):
        for case in cases:
            got = engine.find_tasks(caller, case)
            seen = [t for t in tasks.values() if caller.sees_everything or t.assignee_id == caller.employee_id]
            want = [t.task_id for t in seen if _find_matches(t, case)][:case.limit]
            assert [r["task_id"] for r in got] == want, case
            assert all(tuple(r) == TASK_FIELDS for r in got)


def _find_matches(t: Task, q: TaskQuery) -> bool:
    checks = [q.status is None or (t.status or "").upper() == q.status.upper(),
              q.priority is None or (t.priority or "").upper() == q.priority.upper(),
              q.sprint_id is None or t.sprint_id == q.sprint_id, q.project_id is None or t.project_id == q.project_id,
              q.assignee_id is None or t.assignee_id == q.assignee_id, not q.unassigned or t.assignee_id is None,
              not q.open_only or _open(t),
              q.overdue_on is None or (t.due is not None and t.due < q.overdue_on and _open(t)),
              q.due_after is None or (t.due is not None and t.due >= q.due_after),
              q.due_before is None or (t.due is not None and t.due < q.due_before)]
    return all(checks)
