"""The typed tracker query (app/rag/understanding/query.py) as SQLite statements: the twin of
app/engines/oracle/tracker_statements.py, kept beside statements.py (one module per concern, each under 450 lines).

Only fixed fragments of this module are spliced: column names come from the tables below, never from the query;
every value of a predicate is a ``?`` bind. Every predicate compiles to an expression that is true or false,
never NULL, so ``NOT`` of it is exact ("not critical" keeps the tasks with no priority).

Two functions are registered on the connection by app/engines/sqlite/tracker.py: ``RAG_UPPER`` (Python's
``str.upper``: SQLite's UPPER folds ASCII only, and a Spanish label or word must match ignoring case as Oracle's
UPPER does) and ``RAG_BLOCKED`` (1 when a text says the task is held up: app/rag/understanding/blocked.py, the same
words the answers quote).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.domain import DONE_STATUSES, Caller
from app.rag.access import member_projects
from app.rag.understanding.query import Predicate, TrackerQuery

ID_COLUMNS = {"project": "t.PROJECT_ID", "sprint": "t.SPRINT_ID", "assignee": "t.ASSIGNEE_ID",
              "reporter": "t.REPORTER_ID", "parent": "t.PARENT_ID"}
TEXT_COLUMNS = {"status": "t.STATUS", "status_name": "t.STATUS_NAME", "priority": "t.PRIORITY",
                "priority_name": "t.PRIORITY_NAME", "issue_type": "t.ISSUE_TYPE", "resolution": "t.RESOLUTION"}
MULTI_VALUES = {"label": "LABEL", "component": "COMPONENT", "fix_version": "FIX_VERSION",
                "affects_version": "AFFECTS_VERSION"}
DATE_COLUMNS = {"created": "t.CREATED_AT", "updated": "t.UPDATED_AT", "resolved": "t.RESOLVED_AT",
                "due": "t.EXPECTED_END_DATE"}
ORDER_COLUMNS = {"due": "t.EXPECTED_END_DATE", "created": "t.CREATED_AT", "updated": "t.UPDATED_AT",
                 "resolved": "t.RESOLVED_AT"}
PRIORITY_RANK = ("CRITICAL", "HIGH", "MEDIUM", "LOW")  # most urgent first; any other value ranks with none
BLOCKING_LINKS = ("BLOCKED_BY", "DEPENDS_ON")  # read from the task's own side: the target holds this task up
MAX_GROUPS = 1000  # a group-by returns at most this many groups (the total still counts every match)

Fragment = tuple[str, list[Any]]


def marks(items: Sequence[object]) -> str:
    return ", ".join("?" * len(items))


# --- the access rule, in one place -------------------------------------------------------------


def access(caller: Caller) -> Fragment | None:
    """The tasks the caller may see, as the search applies the rule (app/rag/access.py): a developer's own
    assigned tasks and, under RAG_ACCESS_RULE=project, every task of a project they are a member of that the
    tracker does not restrict (bound ids: the caller's projects as resolved for this question); managers and admins
    every task (None)."""
    if caller.sees_everything:
        return None
    projects = member_projects(caller)
    if not projects:
        return "t.ASSIGNEE_ID = ?", [caller.employee_id]
    # a task the tracker restricts (TASKS.RESTRICTED, V17) is no member's: its assignee's only
    return (f"(t.ASSIGNEE_ID = ? OR (t.RESTRICTED = 0 AND t.PROJECT_ID IN ({marks(projects)})))",
            [caller.employee_id, *projects])


# --- predicates --------------------------------------------------------------------------------


def _open() -> Fragment:
    return f"(t.STATUS IS NULL OR UPPER(t.STATUS) NOT IN ({marks(DONE_STATUSES)}))", list(DONE_STATUSES)


def _in_or_null(column: str, values: Sequence[Any], upper: bool) -> Fragment:
    """``column`` holds one of the values (None: the column is empty), two-valued."""
    present = [v for v in values if v is not None]
    parts: list[str] = []
    if present:
        if upper:
            parts.append(f"({column} IS NOT NULL AND RAG_UPPER({column}) IN "
                         f"({', '.join('RAG_UPPER(?)' for _ in present)}))")
        else:
            parts.append(f"({column} IS NOT NULL AND {column} IN ({marks(present)}))")
    if len(present) < len(values):
        parts.append(f"{column} IS NULL")
    return "(" + " OR ".join(parts) + ")", present


def _sprint(values: Sequence[Any]) -> Fragment:
    """The task's latest sprint is one of the values, or it was in one of them (TASK_SPRINTS); None: no latest
    sprint. Two-valued: TASK_ID and the subquery's ids are never NULL, the rest as _in_or_null.

    ``t.TASK_ID IN (SELECT ...)`` rather than a correlated EXISTS (Oracle's form, the same rows): SQLite answers the
    OR of two indexed lookups with a MULTI-INDEX OR, where the EXISTS scans every task and probes each (100k tasks,
    40k TASK_SPRINTS rows, one sprint: 0.15 ms instead of 36 ms)."""
    present = [v for v in values if v is not None]
    latest, binds = _in_or_null(ID_COLUMNS["sprint"], values, upper=False)
    if not present:
        return latest, binds
    return (f"({latest} OR t.TASK_ID IN (SELECT ts.TASK_ID FROM TASK_SPRINTS ts"
            f" WHERE ts.SPRINT_ID IN ({marks(present)})))", [*binds, *present])


def _multi(name: str, values: Sequence[str]) -> Fragment:
    return ("EXISTS (SELECT 1 FROM TASK_VALUES v WHERE v.TASK_ID = t.TASK_ID AND v.FIELD = ? AND "
            f"RAG_UPPER(v.VALUE) IN ({', '.join('RAG_UPPER(?)' for _ in values)}))", [MULTI_VALUES[name], *values])


def _window(column: str, window: tuple[Any, Any]) -> Fragment:
    """On or after the first day, strictly before the second; ISO text compares in date order (a timestamp
    '2026-11-20T10:00' is on 2026-11-20: after '2026-11-20', before '2026-11-21')."""
    parts, binds = [f"{column} IS NOT NULL"], []
    for op, day in ((">=", window[0]), ("<", window[1])):
        if day is not None:
            parts.append(f"{column} {op} ?")
            binds.append(day.isoformat())
    return "(" + " AND ".join(parts) + ")", binds


def _overdue(days: Sequence[Any]) -> Fragment:
    open_sql, open_binds = _open()
    parts, binds = [], []
    for day in days:
        parts.append(f"(t.EXPECTED_END_DATE IS NOT NULL AND t.EXPECTED_END_DATE < ? AND {open_sql})")
        binds += [day.isoformat(), *open_binds]
    return "(" + " OR ".join(parts) + ")", binds


def blocked() -> Fragment:
    """A BLOCKED status; a blocked-by or depends-on link whose target is open or not imported; the description
    or a comment saying so."""
    done = marks(DONE_STATUSES)
    return ("((t.STATUS IS NOT NULL AND UPPER(t.STATUS) = ?)"
            " OR EXISTS (SELECT 1 FROM TASK_LINKS l LEFT JOIN TASKS x ON x.TASK_ID = l.TARGET_TASK_ID"
            f" WHERE l.TASK_ID = t.TASK_ID AND l.LINK_TYPE IN ({marks(BLOCKING_LINKS)})"
            f" AND (x.TASK_ID IS NULL OR x.STATUS IS NULL OR UPPER(x.STATUS) NOT IN ({done})))"
            " OR (t.DESCRIPTION IS NOT NULL AND RAG_BLOCKED(t.DESCRIPTION) = 1)"
            " OR EXISTS (SELECT 1 FROM COMMENTS c WHERE c.TASK_ID = t.TASK_ID AND RAG_BLOCKED(c.BODY) = 1))",
            ["BLOCKED", *BLOCKING_LINKS, *DONE_STATUSES])


def _text(words: Sequence[str]) -> Fragment:
    parts, binds = [], []
    for word in words:
        parts.append("(INSTR(RAG_UPPER(t.TITLE), RAG_UPPER(?)) > 0"
                     " OR (t.DESCRIPTION IS NOT NULL AND INSTR(RAG_UPPER(t.DESCRIPTION), RAG_UPPER(?)) > 0))")
        binds += [word, word]
    return "(" + " AND ".join(parts) + ")", binds


def _flag(fragment: Fragment, values: Sequence[bool]) -> Fragment:
    """A yes/no condition asked as (True,), (False,) or both."""
    sql_text, binds = fragment
    wanted = set(values)
    if wanted == {True, False}:
        return "(1 = 1)", []
    return (sql_text, binds) if True in wanted else (f"(NOT {sql_text})", binds)


def predicate(p: Predicate) -> Fragment:
    """One predicate as a two-valued SQL expression over TASKS t (negated when asked)."""
    if p.field == "sprint":
        fragment = _sprint(p.values)
    elif p.field in ID_COLUMNS:
        fragment = _in_or_null(ID_COLUMNS[p.field], p.values, upper=False)
    elif p.field in TEXT_COLUMNS:
        fragment = _in_or_null(TEXT_COLUMNS[p.field], p.values, upper=True)
    elif p.field in MULTI_VALUES:
        fragment = _multi(p.field, p.values)
    elif p.field in DATE_COLUMNS:
        fragment = _window(DATE_COLUMNS[p.field], p.window)  # type: ignore[arg-type]
    elif p.field == "open":
        fragment = _flag(_open(), p.values)
    elif p.field == "overdue":
        fragment = _overdue(p.values)
    elif p.field == "blocked":
        fragment = _flag(blocked(), p.values)
    elif p.field == "text":
        fragment = _text(p.values)
    else:  # query.py validates fields; a new one must be compiled here before it is accepted
        raise ValueError(f"no SQL for the field {p.field!r}")
    return (f"(NOT {fragment[0]})", fragment[1]) if p.negate else fragment


def where(caller: Caller, query: TrackerQuery) -> Fragment:
    """`` WHERE ...`` of the access rule and every predicate (empty text when there is none)."""
    parts, binds = [], []
    for fragment in (access(caller), *(predicate(p) for p in query.where)):
        if fragment is not None:
            parts.append(fragment[0])
            binds += fragment[1]
    return (" WHERE " + " AND ".join(parts) if parts else ""), binds


# --- what to return ------------------------------------------------------------------------------


def aggregate(caller: Caller, query: TrackerQuery) -> Fragment:
    """The count and the story points of every matching task."""
    clause, binds = where(caller, query)
    return f"SELECT COUNT(*), COALESCE(SUM(t.STORY_POINTS), 0) FROM TASKS t{clause}", binds


def _name(alias: str) -> str:
    return f"TRIM(COALESCE({alias}.FIRST_NAME, '') || ' ' || COALESCE({alias}.LAST_NAME, ''))"


# TASK_FIELDS, then the query's extra fields (app/engines/tracker_common.ROW_FIELDS names them in this order).
ROW_SELECT = (
    "SELECT t.TASK_ID, t.TITLE, t.STATUS, t.PRIORITY, t.SPRINT_ID, s.NAME, t.PROJECT_ID, p.NAME, t.ASSIGNEE_ID,"
    f" {_name('e')}, t.EXPECTED_END_DATE, t.STORY_POINTS, t.EXTERNAL_KEY, t.ISSUE_TYPE, t.STATUS_NAME,"
    f" t.REPORTER_ID, {_name('r')}, t.CREATED_AT, t.UPDATED_AT, t.RESOLVED_AT, t.RESOLUTION, t.PRIORITY_NAME")
# A record's remaining fields (returns='field').
RECORD_SELECT = ", t.ENVIRONMENT, t.PARENT_ID, t.PARENT_KEY, t.RESOLVED_BY_ID"
ROW_JOINS = (" FROM TASKS t"
             " LEFT JOIN SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID"
             " LEFT JOIN PROJECTS p ON p.PROJECT_ID = t.PROJECT_ID"
             " LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = t.ASSIGNEE_ID"
             " LEFT JOIN EMPLOYEES r ON r.EMPLOYEE_ID = t.REPORTER_ID")


def order_by(query: TrackerQuery) -> str:
    """The query's order, NULLs last, ties by TASK_ID. Priority: CRITICAL, HIGH, MEDIUM, LOW (descending: the most
    urgent first), then none; within a level the tracker's order (PRIORITY_RANK, 1 the most important: a Blocker
    before a Critical; unknown last), then the due date; dates: descending=False is the earliest first."""
    if query.order == "id":
        return " ORDER BY t.TASK_ID" + (" DESC" if query.descending else "")
    if query.order == "priority":
        ranks = " ".join(f"WHEN '{name}' THEN {i}" for i, name in enumerate(PRIORITY_RANK, 1))
        key, direction = f"CASE UPPER(t.PRIORITY) {ranks} END", "ASC" if query.descending else "DESC"
        # the most urgent first, among equals the tracker's most important, then the one due soonest ("my most
        # important open issue")
        return (f" ORDER BY {key} {direction} NULLS LAST, t.PRIORITY_RANK {direction} NULLS LAST,"
                " t.EXPECTED_END_DATE ASC NULLS LAST, t.TASK_ID")
    else:
        key, direction = ORDER_COLUMNS[query.order], "DESC" if query.descending else "ASC"
    return f" ORDER BY {key} {direction} NULLS LAST, t.TASK_ID"


def rows(caller: Caller, query: TrackerQuery, record: bool = False) -> Fragment:
    """The first ``query.limit`` matching tasks in the query's order (``record``: with every record field). The
    page's ids are chosen first and only they are joined to their names (100k tasks, the most urgent 20 of a
    manager: 70 ms joining every match before the sort, 40 ms so)."""
    clause, binds = where(caller, query)
    select = ROW_SELECT + (RECORD_SELECT if record else "")
    order = order_by(query)
    page = f"SELECT t.TASK_ID FROM TASKS t{clause}{order} LIMIT ?"
    return f"{select}{ROW_JOINS} WHERE t.TASK_ID IN ({page}){order}", [*binds, 1 if record else query.limit]


# group_by -> (key column of TASKS t or TASK_VALUES v, the group's name joined after grouping: x.k is the key).
GROUP_KEYS = {
    "project": ("t.PROJECT_ID", "g.NAME", " LEFT JOIN PROJECTS g ON g.PROJECT_ID = x.k"),
    "sprint": ("t.SPRINT_ID", "g.NAME", " LEFT JOIN SPRINTS g ON g.SPRINT_ID = x.k"),
    "assignee": ("t.ASSIGNEE_ID", _name("g"), " LEFT JOIN EMPLOYEES g ON g.EMPLOYEE_ID = x.k"),
    "reporter": ("t.REPORTER_ID", _name("g"), " LEFT JOIN EMPLOYEES g ON g.EMPLOYEE_ID = x.k"),
    **{name: (column, "x.k", "") for name, column in TEXT_COLUMNS.items()},
    **{name: ("v.VALUE", "x.k", "") for name in MULTI_VALUES},
}
VALUES_JOIN = " LEFT JOIN TASK_VALUES v ON v.TASK_ID = t.TASK_ID AND v.FIELD = ?"


def groups(caller: Caller, query: TrackerQuery) -> Fragment:
    """COUNT and SUM(STORY_POINTS) per value of ``query.group_by`` over every matching task (a multi-valued field:
    a task in the group of each of its values, a task with none in the NULL group), ranked by the measure (most
    first unless ``ascending``), ties by label (the none group after the others); at most MAX_GROUPS.

    Grouped first, named after (a name is read once per group, not once per task), and grouped by ``+key``: the
    unary plus keeps SQLite from walking the key's index to avoid a sort, which reads the table in index order
    (100k tasks: 305 ms by the index, 79 ms by a scan and a sort; scripts/bench_tracker_query.py)."""
    key, label, names = GROUP_KEYS[query.group_by]  # type: ignore[index]
    clause, binds = where(caller, query)
    multi = query.group_by in MULTI_VALUES
    join, join_binds = (VALUES_JOIN, [MULTI_VALUES[query.group_by]]) if multi else ("", [])
    measure = "x.n" if query.measure == "count" else "x.points"
    direction = "ASC" if query.ascending else "DESC"
    return (f"SELECT x.k, {label} AS label, x.n, x.points FROM (SELECT +{key} AS k, COUNT(*) AS n,"
            f" COALESCE(SUM(t.STORY_POINTS), 0) AS points FROM TASKS t{join}{clause} GROUP BY +{key}) x{names}"
            f" ORDER BY {measure} {direction}, CASE WHEN x.k IS NULL THEN 1 ELSE 0 END, label, x.k LIMIT ?",
            [*join_binds, *binds, MAX_GROUPS])


# --- the words a question may use (tracker_values) ---------------------------------------------------


def field_values(caller: Caller) -> Fragment:
    """Each visible task's value of each text field and each of its multi-valued fields, counted: rows
    ``(field, value, tasks)``. One statement; the access rule applies to every branch."""
    acc = access(caller)
    rule = f" AND {acc[0]}" if acc else ""
    branches, binds = [], []
    for name, column in TEXT_COLUMNS.items():
        branches.append(f"SELECT '{name}' AS fld, {column} AS val, COUNT(*) AS n FROM TASKS t"
                        f" WHERE {column} IS NOT NULL{rule} GROUP BY {column}")
        binds += acc[1] if acc else []
    # Every task is visible to a manager: the values are counted on the (FIELD, VALUE) index alone, without the
    # join to TASKS (100k tasks: 20 ms instead of 350 ms).
    join = f" JOIN TASKS t ON t.TASK_ID = v.TASK_ID WHERE {acc[0]}" if acc else ""
    branches.append(f"SELECT LOWER(v.FIELD) AS fld, v.VALUE AS val, COUNT(*) AS n FROM TASK_VALUES v{join}"
                    " GROUP BY v.FIELD, v.VALUE")
    binds += acc[1] if acc else []
    return " UNION ALL ".join(branches) + " ORDER BY 1, 2", binds


SPRINT_NAMES = "SELECT SPRINT_ID, NAME, PROJECT_ID, STATUS, START_DATE, END_DATE FROM SPRINTS ORDER BY SPRINT_ID"
PROJECT_NAMES = "SELECT PROJECT_ID, NAME, EXTERNAL_KEY, STATUS, START_DATE, END_DATE FROM PROJECTS ORDER BY PROJECT_ID"
PEOPLE_NAMES = "SELECT EMPLOYEE_ID, FIRST_NAME, LAST_NAME, EXTERNAL_ID FROM EMPLOYEES ORDER BY EMPLOYEE_ID"

# --- every sprint a task was in (TASK_SPRINTS, V16): written by an import, the latest also in TASKS.SPRINT_ID --------
SPRINTS_OF_TASK = "SELECT SPRINT_ID FROM TASK_SPRINTS WHERE TASK_ID = ? ORDER BY SPRINT_ID"
INSERT_TASK_SPRINT = "INSERT INTO TASK_SPRINTS (TASK_ID, SPRINT_ID) VALUES (?, ?)"
DELETE_TASK_SPRINT = "DELETE FROM TASK_SPRINTS WHERE TASK_ID = ? AND SPRINT_ID = ?"
