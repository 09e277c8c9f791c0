"""The typed tracker query (app/rag/understanding/query.py) as Oracle statements: the twin of
app/engines/sqlite/tracker_statements.py, kept beside statements.py (past the size of one module) and held to its
rules: each builder carries its one-line source note, its text is pinned by tests/oracle/golden/, docs/ORACLE.md
lists it.

Only fixed fragments of this module are spliced: column names come from the tables below, never from the query;
every value is a named bind, each name used once. Every predicate is an expression that is true or false, never
NULL, so ``NOT`` of it is exact ("not critical" keeps the tasks with no priority). Oracle reads '' as NULL, so no
fragment compares with an empty string.

Shapes and their sources: UPPER takes and returns a CLOB ("char can be any of the datatypes CHAR, VARCHAR2,
NCHAR, NVARCHAR2, CLOB, or NCLOB. The return value is the same datatype as char" [DOC sqlrf UPPER]); INSTR takes
a CLOB ("Both string and substring can be any of the datatypes CHAR, VARCHAR2, NCHAR, NVARCHAR2, CLOB, or NCLOB"
[DOC sqlrf INSTR]); REGEXP_LIKE takes a CLOB source, a pattern of at most 512 bytes and 'i' for case-insensitive
matching [DOC sqlrf REGEXP_LIKE condition]; SQL semantics on LOBs are meant for LOBs "relatively small in size (up
to about 100K bytes)", and intermediate results past 4K bytes use temporary LOBs, which "could degrade performance"
[DOC adlob "SQL Semantics and LOBs"; 9i adlob "Performance Attributes When Using SQL Semantics with LOBs"]: a task's
description is that small, the cost of a long one is its own; a Python date binds as DATE (FACTS.md §12.2),
compared with DATE and TIMESTAMP columns; FETCH FIRST :n ROWS ONLY (FACTS.md §3); plain joins, EXISTS, GROUP BY and
UNION ALL with named binds (FACTS.md §10); ORDER BY ... NULLS LAST [DOC sqlrf SELECT order_by_clause].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.domain import DONE_STATUSES, Caller
from app.engines.oracle.member_statements import member_tasks
from app.engines.oracle.statements import Statement
from app.rag.access import member_projects
from app.rag.understanding.blocked import BLOCKED_STATUS, posix_pattern
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

Fragment = tuple[str, dict[str, Any]]


def _binds(prefix: str, values: Sequence[Any]) -> Fragment:
    """``:p0, :p1, ...`` and their binds (a predicate holds at most 50 values: far under ORA-01795's 1,000)."""
    names = [f"{prefix}{i}" for i in range(len(values))]
    return ", ".join(f":{n}" for n in names), dict(zip(names, values))


# --- the access rule, in one place ---------------------------------------------------------------


def access(caller: Caller, name: str = "caller_id") -> Fragment | None:
    """The tasks the caller may see, as the search applies the rule (app/rag/access.py): a developer's own
    assigned tasks and, under RAG_ACCESS_RULE=project, every task of a project they are a member of that the tracker
    does not restrict (the caller's projects bound, ``:<name>_m0, ...``); managers and admins every task (None: no
    condition)."""
    if caller.sees_everything:
        return None
    projects = member_projects(caller)
    if not projects:
        return f"t.ASSIGNEE_ID = :{name}", {name: caller.employee_id}
    members, binds = member_tasks(projects, "t.PROJECT_ID", f"{name}_m", "t.RESTRICTED = 0")
    # source: FACTS.md §10 (plain predicate, named binds, at most 1,000 per IN list: ORA-01795); a task the tracker
    #         restricts (TASKS.RESTRICTED, V23) is no member's: its assignee's only
    return f"(t.ASSIGNEE_ID = :{name} OR {members})", {name: caller.employee_id, **binds}


# --- predicates (``tag``: the predicate's place in the query, which makes its bind names unique) -------------


def _open(tag: str) -> Fragment:
    marks, binds = _binds(f"{tag}_done", DONE_STATUSES)
    return f"(t.STATUS IS NULL OR UPPER(t.STATUS) NOT IN ({marks}))", binds


def _in_or_null(column: str, values: Sequence[Any], upper: bool, tag: str) -> Fragment:
    """``column`` holds one of the values (None: the column is empty), two-valued."""
    present = [v for v in values if v is not None]
    parts: list[str] = []
    binds: dict[str, Any] = {}
    if present:
        marks, binds = _binds(tag, present)
        if upper:
            ups = ", ".join(f"UPPER({m.strip()})" for m in marks.split(","))
            parts.append(f"({column} IS NOT NULL AND UPPER({column}) IN ({ups}))")
        else:
            parts.append(f"({column} IS NOT NULL AND {column} IN ({marks}))")
    if len(present) < len(values):
        parts.append(f"{column} IS NULL")
    return "(" + " OR ".join(parts) + ")", binds


def _sprint(values: Sequence[Any], tag: str) -> Fragment:
    """The task's latest sprint is one of the values, or it was in one of them (TASK_SPRINTS, V22); None: no latest
    sprint. Two-valued: the EXISTS is true or false, the rest as _in_or_null. The ids are bound twice, under their
    own names (``tag``_s0...)."""
    present = [v for v in values if v is not None]
    latest, binds = _in_or_null(ID_COLUMNS["sprint"], values, False, tag)
    if not present:
        return latest, binds
    marks, was_in = _binds(f"{tag}_s", present)
    return (f"({latest} OR EXISTS (SELECT 1 FROM TASK_SPRINTS ts WHERE ts.TASK_ID = t.TASK_ID"
            f" AND ts.SPRINT_ID IN ({marks})))", {**binds, **was_in})


def _multi(name: str, values: Sequence[str], tag: str) -> Fragment:
    marks, binds = _binds(tag, values)
    ups = ", ".join(f"UPPER({m.strip()})" for m in marks.split(","))
    return (f"EXISTS (SELECT 1 FROM TASK_VALUES v WHERE v.TASK_ID = t.TASK_ID AND v.FIELD = :{tag}_field"
            f" AND UPPER(v.VALUE) IN ({ups}))", {f"{tag}_field": MULTI_VALUES[name], **binds})


def _window(column: str, window: tuple[Any, Any], tag: str) -> Fragment:
    """On or after the first day, strictly before the second: a DATE bind is that day's midnight, so a TIMESTAMP or
    a DATE with a time of day on the last day still counts."""
    parts, binds = [f"{column} IS NOT NULL"], {}
    for op, suffix, day in ((">=", "from", window[0]), ("<", "until", window[1])):
        if day is not None:
            parts.append(f"{column} {op} :{tag}_{suffix}")
            binds[f"{tag}_{suffix}"] = day
    return "(" + " AND ".join(parts) + ")", binds


def _overdue(days: Sequence[Any], tag: str) -> Fragment:
    parts, binds = [], {}
    for i, day in enumerate(days):
        open_sql, open_binds = _open(f"{tag}_{i}")
        parts.append(f"(t.EXPECTED_END_DATE IS NOT NULL AND t.EXPECTED_END_DATE < :{tag}_{i}_day AND {open_sql})")
        binds.update({f"{tag}_{i}_day": day, **open_binds})
    return "(" + " OR ".join(parts) + ")", binds


def blocked(tag: str) -> Fragment:
    """A BLOCKED status; a blocked-by or depends-on link whose target is open or not imported; the description
    or a comment saying so (REGEXP_LIKE over the CLOBs with the words of app/rag/understanding/blocked.py)."""
    links, link_binds = _binds(f"{tag}_link", BLOCKING_LINKS)
    done, done_binds = _binds(f"{tag}_done", DONE_STATUSES)
    return ((f"((t.STATUS IS NOT NULL AND UPPER(t.STATUS) = :{tag}_status)"
             "\n       OR EXISTS (SELECT 1 FROM TASK_LINKS l LEFT JOIN TASKS x ON x.TASK_ID = l.TARGET_TASK_ID"
             f"\n                  WHERE l.TASK_ID = t.TASK_ID AND l.LINK_TYPE IN ({links})"
             f"\n                    AND (x.TASK_ID IS NULL OR x.STATUS IS NULL OR UPPER(x.STATUS) NOT IN ({done})))"
             f"\n       OR (t.DESCRIPTION IS NOT NULL AND REGEXP_LIKE(t.DESCRIPTION, :{tag}_words, 'i'))"
             "\n       OR EXISTS (SELECT 1 FROM COMMENTS c WHERE c.TASK_ID = t.TASK_ID"
             f" AND REGEXP_LIKE(c.BODY, :{tag}_said, 'i')))"),
            {f"{tag}_status": BLOCKED_STATUS, **link_binds, **done_binds, f"{tag}_words": posix_pattern(),
             f"{tag}_said": posix_pattern()})


def _text(words: Sequence[str], tag: str) -> Fragment:
    parts, binds = [], {}
    for i, word in enumerate(words):
        title, body = f"{tag}_{i}_title", f"{tag}_{i}_body"
        parts.append(f"(INSTR(UPPER(t.TITLE), UPPER(:{title})) > 0"
                     f" OR (t.DESCRIPTION IS NOT NULL AND INSTR(UPPER(t.DESCRIPTION), UPPER(:{body})) > 0))")
        binds.update({title: word, body: word})
    return "(" + " AND ".join(parts) + ")", binds


def _flag(fragment: Fragment, values: Sequence[bool]) -> Fragment:
    """A yes/no condition asked as (True,), (False,) or both."""
    sql_text, binds = fragment
    wanted = set(values)
    if wanted == {True, False}:
        return "(1 = 1)", {}
    return (sql_text, binds) if True in wanted else (f"(NOT {sql_text})", binds)


def predicate(p: Predicate, tag: str) -> Fragment:
    """One predicate as a two-valued SQL expression over TASKS t (negated when asked); its binds start with ``tag``."""
    if p.field == "sprint":
        fragment = _sprint(p.values, tag)
    elif p.field in ID_COLUMNS:
        fragment = _in_or_null(ID_COLUMNS[p.field], p.values, False, tag)
    elif p.field in TEXT_COLUMNS:
        fragment = _in_or_null(TEXT_COLUMNS[p.field], p.values, True, tag)
    elif p.field in MULTI_VALUES:
        fragment = _multi(p.field, p.values, tag)
    elif p.field in DATE_COLUMNS:
        fragment = _window(DATE_COLUMNS[p.field], p.window, tag)  # type: ignore[arg-type]
    elif p.field == "open":
        fragment = _flag(_open(tag), p.values)
    elif p.field == "overdue":
        fragment = _overdue(p.values, tag)
    elif p.field == "blocked":
        fragment = _flag(blocked(tag), p.values)
    elif p.field == "text":
        fragment = _text(p.values, tag)
    else:  # query.py validates fields; a new one must be compiled here before it is accepted
        raise ValueError(f"no SQL for the field {p.field!r}")
    return (f"(NOT {fragment[0]})", fragment[1]) if p.negate else fragment


def where(caller: Caller, query: TrackerQuery) -> Fragment:
    """``WHERE ...`` of the access rule and every predicate, one per line (empty text when there is none)."""
    parts, binds = [], {}
    for fragment in (access(caller), *(predicate(p, f"p{i}") for i, p in enumerate(query.where))):
        if fragment is not None:
            parts.append(fragment[0])
            binds.update(fragment[1])
    return ("\nWHERE " + "\n  AND ".join(parts) if parts else ""), binds


# --- what to return ------------------------------------------------------------------------------


def tracker_aggregate(caller: Caller, query: TrackerQuery) -> Statement:
    """The count and the story points of every matching task."""
    clause, binds = where(caller, query)
    # source: FACTS.md §10 (plain SELECT, named binds) + the module docstring's UPPER/INSTR/REGEXP_LIKE on CLOB
    return Statement(f"SELECT COUNT(*), COALESCE(SUM(t.STORY_POINTS), 0)\nFROM TASKS t{clause}", binds)


def _name(alias: str) -> str:
    return f"TRIM({alias}.FIRST_NAME || ' ' || {alias}.LAST_NAME)"


# TASK_FIELDS, then the query's extra fields (app/engines/tracker_common.ROW_FIELDS names them in this order).
_ROW_SELECT = (
    "SELECT t.TASK_ID, t.TITLE, t.STATUS, t.PRIORITY, t.SPRINT_ID, s.NAME, t.PROJECT_ID, p.NAME, t.ASSIGNEE_ID,\n"
    f"       {_name('e')}, t.EXPECTED_END_DATE, t.STORY_POINTS, t.EXTERNAL_KEY,\n"
    f"       t.ISSUE_TYPE, t.STATUS_NAME, t.REPORTER_ID, {_name('r')},\n"
    "       t.CREATED_AT, t.UPDATED_AT, t.RESOLVED_AT, t.RESOLUTION, t.PRIORITY_NAME")
_RECORD_SELECT = ",\n       t.ENVIRONMENT, t.PARENT_ID, t.PARENT_KEY, t.RESOLVED_BY_ID"
_ROW_JOINS = ("\nFROM TASKS t"
              "\nLEFT JOIN SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID"
              "\nLEFT JOIN PROJECTS p ON p.PROJECT_ID = t.PROJECT_ID"
              "\nLEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = t.ASSIGNEE_ID"
              "\nLEFT JOIN EMPLOYEES r ON r.EMPLOYEE_ID = t.REPORTER_ID")


def _order_by(query: TrackerQuery) -> str:
    """The query's order, NULLs last, ties by TASK_ID (tracker_statements of SQLite says the same: priority is our
    level, then the tracker's PRIORITY_RANK, then the due date)."""
    if query.order == "id":
        return "\nORDER BY t.TASK_ID" + (" DESC" if query.descending else "")
    if query.order == "priority":
        ranks = " ".join(f"WHEN '{name}' THEN {i}" for i, name in enumerate(PRIORITY_RANK, 1))
        key, direction = f"CASE UPPER(t.PRIORITY) {ranks} END", "ASC" if query.descending else "DESC"
        # the most urgent first, among equals the tracker's most important, then the one due soonest
        return (f"\nORDER BY {key} {direction} NULLS LAST, t.PRIORITY_RANK {direction} NULLS LAST,"
                " t.EXPECTED_END_DATE ASC NULLS LAST, t.TASK_ID")
    else:
        key, direction = ORDER_COLUMNS[query.order], "DESC" if query.descending else "ASC"
    return f"\nORDER BY {key} {direction} NULLS LAST, t.TASK_ID"


def tracker_rows(caller: Caller, query: TrackerQuery, record: bool = False) -> Statement:
    """The first ``query.limit`` matching tasks in the query's order (``record``: the first, with every record
    field; ENVIRONMENT is a CLOB, fetched as str with fetch_lobs off, FACTS.md §11.6)."""
    clause, binds = where(caller, query)
    select = _ROW_SELECT + (_RECORD_SELECT if record else "")
    # source: FACTS.md §10 (plain joins, named binds) + §3 (FETCH FIRST :n ROWS ONLY) + sqlrf ORDER BY NULLS LAST
    return Statement(f"{select}{_ROW_JOINS}{clause}{_order_by(query)}\nFETCH FIRST :max_rows ROWS ONLY",
                     {**binds, "max_rows": 1 if record else query.limit})


# group_by -> (key column of TASKS t or TASK_VALUES v, the group's name joined after grouping: x.k is the key).
_GROUP_KEYS = {
    "project": ("t.PROJECT_ID", "g.NAME", "\nLEFT JOIN PROJECTS g ON g.PROJECT_ID = x.k"),
    "sprint": ("t.SPRINT_ID", "g.NAME", "\nLEFT JOIN SPRINTS g ON g.SPRINT_ID = x.k"),
    "assignee": ("t.ASSIGNEE_ID", _name("g"), "\nLEFT JOIN EMPLOYEES g ON g.EMPLOYEE_ID = x.k"),
    "reporter": ("t.REPORTER_ID", _name("g"), "\nLEFT JOIN EMPLOYEES g ON g.EMPLOYEE_ID = x.k"),
    **{name: (column, "x.k", "") for name, column in TEXT_COLUMNS.items()},
    **{name: ("v.VALUE", "x.k", "") for name in MULTI_VALUES},
}
_VALUES_JOIN = "\n      LEFT JOIN TASK_VALUES v ON v.TASK_ID = t.TASK_ID AND v.FIELD = :group_field"


def tracker_groups(caller: Caller, query: TrackerQuery) -> Statement:
    """COUNT and SUM(STORY_POINTS) per value of ``query.group_by`` over every matching task (a multi-valued field:
    a task in the group of each of its values, a task with none in the NULL group), ranked by the measure (most
    first unless ``ascending``), ties by label (the none group after the others); at most MAX_GROUPS. Grouped in an
    inline view first, named after (a name is read once per group)."""
    key, label, names = _GROUP_KEYS[query.group_by]  # type: ignore[index]
    clause, binds = where(caller, query)
    join = ""
    if query.group_by in MULTI_VALUES:
        join, binds["group_field"] = _VALUES_JOIN, MULTI_VALUES[query.group_by]
    measure = "x.n" if query.measure == "count" else "x.points"
    direction = "ASC" if query.ascending else "DESC"
    inner = clause.replace("\n", "\n      ")
    # source: FACTS.md §10 (GROUP BY in an inline view, named binds) + §3 (FETCH FIRST) + sqlrf ORDER BY (CASE)
    return Statement(
        f"SELECT x.k, {label} AS label, x.n, x.points"
        f"\nFROM (SELECT {key} AS k, COUNT(*) AS n, COALESCE(SUM(t.STORY_POINTS), 0) AS points"
        f"\n      FROM TASKS t{join}{inner}\n      GROUP BY {key}) x{names}"
        f"\nORDER BY {measure} {direction}, CASE WHEN x.k IS NULL THEN 1 ELSE 0 END, label, x.k"
        "\nFETCH FIRST :max_groups ROWS ONLY", {**binds, "max_groups": MAX_GROUPS})


# --- the words a question may use (tracker_values) ---------------------------------------------------


def tracker_field_values(caller: Caller) -> Statement:
    """Each visible task's value of each text field and each of its multi-valued fields, counted: rows
    ``(field, value, tasks)``; the access rule applies to every branch, each with its own bind."""
    branches, binds = [], {}
    for i, (name, column) in enumerate([*TEXT_COLUMNS.items(), ("", "")]):
        acc = access(caller, f"caller_{i}")
        rule = f" AND {acc[0]}" if acc else ""
        binds.update(acc[1] if acc else {})
        if column:
            branches.append(f"SELECT '{name}' AS fld, {column} AS val, COUNT(*) AS n FROM TASKS t"
                            f" WHERE {column} IS NOT NULL{rule} GROUP BY {column}")
        else:  # a manager sees every task: the values are counted without the join to TASKS
            join = f" JOIN TASKS t ON t.TASK_ID = v.TASK_ID WHERE {acc[0]}" if acc else ""
            branches.append(f"SELECT LOWER(v.FIELD) AS fld, v.VALUE AS val, COUNT(*) AS n FROM TASK_VALUES v{join}"
                            " GROUP BY v.FIELD, v.VALUE")
    # source: FACTS.md §10 (plain SELECT, GROUP BY, UNION ALL, named binds)
    return Statement("\nUNION ALL\n".join(branches) + "\nORDER BY 1, 2", binds)


# source: FACTS.md §10 (plain SELECT) — every sprint, public
TRACKER_SPRINTS = "SELECT SPRINT_ID, NAME, PROJECT_ID, STATUS, START_DATE, END_DATE FROM SPRINTS ORDER BY SPRINT_ID"
# source: FACTS.md §10 (plain SELECT) — every project, public
TRACKER_PROJECTS = ("SELECT PROJECT_ID, NAME, EXTERNAL_KEY, STATUS, START_DATE, END_DATE FROM PROJECTS"
                    " ORDER BY PROJECT_ID")
# source: FACTS.md §10 (plain SELECT) — the directory
TRACKER_PEOPLE = "SELECT EMPLOYEE_ID, FIRST_NAME, LAST_NAME, EXTERNAL_ID FROM EMPLOYEES ORDER BY EMPLOYEE_ID"

# --- every sprint a task was in (TASK_SPRINTS, V22): written by an import, the latest also in TASKS.SPRINT_ID --------
# source: FACTS.md §10 (plain SELECT by key; TASK_SPRINTS_PK leads with TASK_ID)
SPRINTS_OF_TASK = "SELECT SPRINT_ID FROM TASK_SPRINTS WHERE TASK_ID = :task_id ORDER BY SPRINT_ID"
# source: FACTS.md §10 (plain INSERT with named binds; a missing task or sprint is ORA-02291, a ConflictError)
INSERT_TASK_SPRINT = "INSERT INTO TASK_SPRINTS (TASK_ID, SPRINT_ID) VALUES (:task_id, :sprint_id)"
# source: FACTS.md §10 (plain DELETE by the primary key)
DELETE_TASK_SPRINT = "DELETE FROM TASK_SPRINTS WHERE TASK_ID = :task_id AND SPRINT_ID = :sprint_id"
