"""The Oracle statements of the tracker's records: callers, CRUD (EntitySpec identifiers only), the loading of
source rows for the chunk templates, imported rows and their sync cursors (V16), a task's values (V18) and the wipe
(app/engines/oracle/records.py, task_values.py, engine.py). The rules of statements.py hold here.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engines.oracle.statements import Statement, in_list
from app.entities import Condition, EntitySpec

# --- people ---------------------------------------------------------------------------------

# source: FACTS.md §10 (plain SELECT by key) — the caller's role always comes from EMPLOYEES
CALLER_BY_ID = "SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id"
# source: FACTS.md §10 (plain SELECT by unique key)
CALLER_BY_TELEGRAM = "SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE TELEGRAM_ID = :telegram_id"

# --- source loading (chunk templates) ---------------------------------------------------------

_LOAD_SOURCES = {
    # source: FACTS.md §10 (plain joins; CLOBs fetched as str with fetch_lobs off, §11.6)
    # a task also shows its reporter and its parent's key (the tracker's, else the parent task's own; V18):
    # a self-join of TASKS and NVL, plain SQL [DOC sqlrf NVL], as the V16 trigger's NVL
    "task": (
        "SELECT t.TASK_ID, t.TITLE, t.STATUS, t.PRIORITY, t.SPRINT_ID, s.NAME, t.PROJECT_ID, p.NAME,\n"
        "       t.ASSIGNEE_ID, e.FIRST_NAME, e.LAST_NAME, t.STORY_POINTS, t.ESTIMATED_HOURS,\n"
        "       t.EXPECTED_END_DATE, t.DESCRIPTION, t.EXTERNAL_KEY, t.ISSUE_TYPE, t.STATUS_NAME, t.LABELS,\n"
        "       t.FIX_VERSIONS, t.COMPONENTS, t.REPORTER_ID, r.FIRST_NAME, r.LAST_NAME, t.CREATED_AT,\n"
        "       t.RESOLVED_AT, t.RESOLUTION, t.AFFECTS_VERSIONS, t.ENVIRONMENT, NVL(t.PARENT_KEY, pt.EXTERNAL_KEY),\n"
        "       pt.TASK_ID, t.PRIORITY_NAME, t.RESTRICTED\n"
        "FROM TASKS t\n"
        "LEFT JOIN SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID\n"
        "LEFT JOIN PROJECTS p ON p.PROJECT_ID = t.PROJECT_ID\n"
        "LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = t.ASSIGNEE_ID\n"
        "LEFT JOIN EMPLOYEES r ON r.EMPLOYEE_ID = t.REPORTER_ID\n"
        "LEFT JOIN TASKS pt ON pt.TASK_ID = t.PARENT_ID\n"
        "WHERE t.TASK_ID IN "
    ),
    "sprint": (
        "SELECT s.SPRINT_ID, s.NAME, s.STATUS, s.PROJECT_ID, p.NAME, s.GOAL, s.START_DATE, s.END_DATE\n"
        "FROM SPRINTS s\n"
        "LEFT JOIN PROJECTS p ON p.PROJECT_ID = s.PROJECT_ID\n"
        "WHERE s.SPRINT_ID IN "
    ),
    "project": (
        "SELECT PROJECT_ID, NAME, STATUS, DESCRIPTION, START_DATE, END_DATE\n"
        "FROM PROJECTS\n"
        "WHERE PROJECT_ID IN "
    ),
    "doc": (
        "SELECT DOCUMENT_ID, TITLE, BODY, PROJECT_ID, OWNER_EMPLOYEE_ID, DOC_TYPE\n"
        "FROM DOCUMENTS\n"
        "WHERE DOCUMENT_ID IN "
    ),
}


def load_sources(source_type: str, ids: Sequence[int]) -> Statement:
    in_sql, binds = in_list("id", ids)
    return Statement(_LOAD_SOURCES[source_type] + in_sql, binds)


def task_comments(task_ids: Sequence[int]) -> Statement:
    """Each comment with its author's name as the employee row has it now (none: no such employee)."""
    in_sql, binds = in_list("id", task_ids)
    # source: FACTS.md §10 (plain SELECT with a LEFT JOIN, as _LOAD_SOURCES; BODY CLOB fetched as str, §11.6;
    #         CREATED_AT a TIMESTAMP fetched as a naive datetime)
    return Statement(
        "SELECT c.TASK_ID, c.BODY, c.AUTHOR_ID, e.FIRST_NAME, e.LAST_NAME, c.CREATED_AT\n"
        "FROM COMMENTS c\n"
        "LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = c.AUTHOR_ID\n"
        f"WHERE c.TASK_ID IN {in_sql}\n"
        "ORDER BY c.TASK_ID, c.CREATED_AT, c.COMMENT_ID",
        binds,
    )


def task_links(task_ids: Sequence[int]) -> Statement:
    in_sql, binds = in_list("id", task_ids)
    # source: FACTS.md §10 (plain SELECT with named binds)
    return Statement(
        "SELECT TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID FROM TASK_LINKS\n"
        f"WHERE TASK_ID IN {in_sql}\n"
        "ORDER BY TASK_ID, LINK_TYPE, TARGET_KEY",
        binds,
    )


# --- imported rows (app/sources): ids by external key, a task's links, the sync cursors (V16) ------------


def find_by_external(entity: EntitySpec, keys: Sequence[str] | None) -> Statement:
    """``(external key, id)`` of one source's rows with these keys, or all of them (None: the sync's
    reconciliation); the caller binds :source_name too."""
    if entity.external is None:
        raise ValueError(f"{entity.name} keep no external key")
    select = f"SELECT {entity.external}, {entity.pk} FROM {entity.table}\nWHERE SOURCE = :source_name"
    if keys is None:
        # source: FACTS.md §10 (plain SELECT with a named bind; identifiers from EntitySpec only)
        return Statement(select)
    in_sql, binds = in_list("k", keys)
    # source: FACTS.md §10 (plain SELECT with named binds; identifiers from EntitySpec only)
    return Statement(f"{select} AND {entity.external} IN {in_sql}", binds)


# source: FACTS.md §10 (plain SELECT by key)
TASK_SOURCE = "SELECT SOURCE FROM TASKS WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain SELECT by key)
LINKS_OF_TASK = "SELECT LINK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID FROM TASK_LINKS WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain INSERT; LINK_ID from the identity column, V16)
INSERT_LINK = (
    "INSERT INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID)\n"
    "VALUES (:task_id, :link_type, :target_key, :target_task_id)"
)
# source: FACTS.md §10 (plain UPDATE by key)
RETARGET_LINK = "UPDATE TASK_LINKS SET TARGET_TASK_ID = :target_task_id WHERE LINK_ID = :link_id"
# source: FACTS.md §10 (plain DELETE by key)
DELETE_LINK = "DELETE FROM TASK_LINKS WHERE LINK_ID = :link_id"
# source: FACTS.md §10 (plain SELECT by key)
READ_SYNC_CURSOR = "SELECT CURSOR_VALUE FROM SYNC_CURSORS WHERE SOURCE = :source_name"
# source: FACTS.md §7 (MERGE with a single-row dual source; no ON column in SET, ORA-38104) — as WRITE_SETTING
WRITE_SYNC_CURSOR = (
    "MERGE INTO SYNC_CURSORS t\n"
    "USING (SELECT :source_name AS SOURCE, :cursor_value AS CURSOR_VALUE FROM dual) s\n"
    "ON (t.SOURCE = s.SOURCE)\n"
    "WHEN MATCHED THEN UPDATE SET t.CURSOR_VALUE = s.CURSOR_VALUE, t.UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)\n"
    "WHEN NOT MATCHED THEN INSERT (SOURCE, CURSOR_VALUE) VALUES (s.SOURCE, s.CURSOR_VALUE)"
)
# source: FACTS.md §10 (plain aggregate) — the newest queue row when an import's page begins (issue 33)
QUEUE_MARK = "SELECT NVL(MAX(DIRTY_ID), 0) FROM RAG_DIRTY"
# source: FACTS.md §6 (FOR UPDATE SKIP LOCKED in a top-level SELECT without DISTINCT/GROUP BY/aggregates; a
#         correlated EXISTS in its WHERE) + §10 — the queue rows since an import's pass began that a newer row of the
#         same entity supersedes; rows a worker holds are skipped (never waited for: the worker may wait on this
#         transaction's TASKS rows), failed rows kept
SUPERSEDED_QUEUE_ROWS = (
    "SELECT d.DIRTY_ID FROM RAG_DIRTY d\n"
    "WHERE d.DIRTY_ID > :after AND d.ATTEMPTS = 0\n"
    "  AND EXISTS (SELECT 1 FROM RAG_DIRTY n\n"
    "              WHERE n.DIRTY_ID > d.DIRTY_ID AND n.SOURCE_TYPE = d.SOURCE_TYPE AND n.SOURCE_ID = d.SOURCE_ID)\n"
    "FOR UPDATE SKIP LOCKED"
)


def delete_queue_rows(dirty_ids: Sequence[int]) -> Statement:
    """The superseded queue rows this transaction locked (at most 500 ids a list)."""
    in_sql, binds = in_list("id", dirty_ids)
    # source: FACTS.md §10 (plain DELETE by primary key, an IN list under ORA-01795's 1000)
    return Statement(f"DELETE FROM RAG_DIRTY WHERE DIRTY_ID IN {in_sql}", binds)


# source: FACTS.md §10 (plain SELECT; TASKS_EXTERNAL_KEY_IDX, V16) — questions name a key without its source
TASKS_BY_KEY = "SELECT TASK_ID FROM TASKS WHERE EXTERNAL_KEY = :external_key ORDER BY TASK_ID"


# --- a task's values (TASK_VALUES, V18): written with the task from the list its display CLOB is written from ------


def task_values(task_ids: Sequence[int]) -> Statement:
    """The values of these tasks (the reader orders them: app.engines.task_values.attach)."""
    in_sql, binds = in_list("id", task_ids)
    # source: FACTS.md §10 (plain SELECT with named binds; TASK_VALUES_PK leads with TASK_ID)
    return Statement(f"SELECT TASK_ID, FIELD, VALUE FROM TASK_VALUES\nWHERE TASK_ID IN {in_sql}", binds)


# source: FACTS.md §10 (plain SELECT by key; TASK_VALUES_PK leads with TASK_ID)
VALUES_OF_TASK = "SELECT FIELD, VALUE FROM TASK_VALUES WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain INSERT of bound values) + §6 (executemany over rows; §11.7 the caller skips an empty batch)
INSERT_TASK_VALUE = "INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (:task_id, :field_name, :field_value)"
# source: FACTS.md §10 (plain DELETE by the primary key) + §6 (executemany; §11.7 the caller skips an empty batch)
DELETE_TASK_VALUE = ("DELETE FROM TASK_VALUES\n"
                     "WHERE TASK_ID = :task_id AND FIELD = :field_name AND VALUE = :field_value")
# The one-time backfill after V18 (app/engines/oracle/task_values.py): tasks with display text written before
# TASK_VALUES existed and no values yet, a keyset page at a time. CLOB IS NOT NULL and NOT EXISTS are plain SQL.
# source: FACTS.md §10 (plain SELECT, named binds; CLOBs fetched as str, §11.6) + §3 (FETCH FIRST :n ROWS ONLY)
TASK_VALUES_BACKFILL = (
    "SELECT t.TASK_ID, t.LABELS, t.COMPONENTS, t.FIX_VERSIONS, t.AFFECTS_VERSIONS FROM TASKS t\n"
    "WHERE t.TASK_ID > :after_id\n"
    "  AND (t.LABELS IS NOT NULL OR t.COMPONENTS IS NOT NULL OR t.FIX_VERSIONS IS NOT NULL\n"
    "       OR t.AFFECTS_VERSIONS IS NOT NULL)\n"
    "  AND NOT EXISTS (SELECT 1 FROM TASK_VALUES v WHERE v.TASK_ID = t.TASK_ID)\n"
    "ORDER BY t.TASK_ID\n"
    "FETCH FIRST :max_rows ROWS ONLY"
)


# --- CRUD (EntitySpec identifiers only; every value a bind) -----------------------------------


def _bind_name(column: str) -> str:
    # A prefix keeps bind names clear of reserved words (ORA-01745), whatever the column is called.
    return "v_" + column.lower()


def _lobs_last(entity: EntitySpec, columns: Sequence[str]) -> list[str]:
    """The columns with the CLOB ones last: a long CLOB value is a temporary LOB bind, and a VARCHAR2 bind declared past
    4,000 bytes after it would be ORA-24816, whose action is to put the LOB binds at the end (REVIEW-3 U1)."""
    return sorted(columns, key=lambda c: (entity.table, c) in LOB_COLUMNS)


def crud_insert(entity: EntitySpec, columns: Sequence[str]) -> str:
    entity.check_columns(columns)
    columns = _lobs_last(entity, columns)
    # source: FACTS.md §10 (identity keys) + python-oracledb RETURNING INTO an out variable [PYDOC] + REVIEW-3 U1
    #         (CLOB binds last)
    if not columns:
        return f"INSERT INTO {entity.table} ({entity.pk}) VALUES (NULL) RETURNING {entity.pk} INTO :new_id"
    cols = ", ".join(columns)
    vals = ", ".join(f":{_bind_name(c)}" for c in columns)
    return f"INSERT INTO {entity.table} ({cols}) VALUES ({vals}) RETURNING {entity.pk} INTO :new_id"


def crud_select(entity: EntitySpec) -> str:
    # source: FACTS.md §10 (plain SELECT by key)
    return f"SELECT {', '.join(entity.all_columns)} FROM {entity.table} WHERE {entity.pk} = :row_id"


# A list filter's predicate by operator (app.entities.Condition): the column is an EntitySpec identifier,
# the value a named bind "f_<filter name>". UPPER(col) = UPPER(:bind) as find_tasks matches labels; a
# Python date binds as DATE (FACTS.md §12.2) against the DATE column EXPECTED_END_DATE.
_FILTER = {"eq": "{c} = :{b}", "eq_ci": "UPPER({c}) = UPPER(:{b})", "null": "{c} IS NULL", "lt": "{c} < :{b}",
           "ge": "{c} >= :{b}"}


def _record_filter(entity: EntitySpec, conditions: Sequence[Condition]) -> tuple[list[str], dict[str, object]]:
    entity.check_conditions(conditions)
    predicates = [_FILTER[c.op].format(c=c.column, b=f"f_{c.name}") for c in conditions]
    return predicates, {f"f_{c.name}": c.value for c in conditions if c.op != "null"}


def crud_page(entity: EntitySpec, conditions: Sequence[Condition], after: int | None, limit: int) -> Statement:
    """The rows matching every condition past the key ``after``, by key: a keyset page of ``limit`` rows."""
    predicates, binds = _record_filter(entity, conditions)
    if after is not None:
        predicates.append(f"{entity.pk} > :after_id")
        binds["after_id"] = after
    binds["max_rows"] = limit
    where = ("WHERE " + "\n  AND ".join(predicates) + "\n") if predicates else ""
    # source: FACTS.md §10 (plain SELECT, values as named binds) + §3 (FETCH FIRST :n ROWS ONLY, as find_tasks)
    return Statement(f"SELECT {', '.join(entity.all_columns)} FROM {entity.table}\n{where}"
                     f"ORDER BY {entity.pk}\nFETCH FIRST :max_rows ROWS ONLY", binds)


def crud_count(entity: EntitySpec, conditions: Sequence[Condition]) -> Statement:
    predicates, binds = _record_filter(entity, conditions)
    where = ("\nWHERE " + "\n  AND ".join(predicates)) if predicates else ""
    # source: FACTS.md §10 (plain SELECT COUNT(*), values as named binds)
    return Statement(f"SELECT COUNT(*) FROM {entity.table}{where}", binds)


def crud_update(entity: EntitySpec, columns: Sequence[str]) -> str:
    entity.check_columns(columns)
    if not columns:
        raise ValueError("an UPDATE needs at least one column")
    sets = ", ".join(f"{c} = :{_bind_name(c)}" for c in _lobs_last(entity, columns))
    # source: FACTS.md §10 (plain UPDATE by key) + REVIEW-3 U1 (CLOB binds last)
    return f"UPDATE {entity.table} SET {sets} WHERE {entity.pk} = :row_id"


def crud_delete(entity: EntitySpec) -> str:
    # source: FACTS.md §10 (plain DELETE by key)
    return f"DELETE FROM {entity.table} WHERE {entity.pk} = :row_id"


def crud_binds(columns: Sequence[str], values: dict[str, object]) -> dict[str, object]:
    return {_bind_name(c): values[c] for c in columns}


# The TIMESTAMP columns CRUD writes from a bound value (V1: COMMENTS.CREATED_AT; V18: TASKS.CREATED_AT, UPDATED_AT,
# RESOLVED_AT); every other TIMESTAMP
# is set in SQL from SYSTIMESTAMP. tests/oracle/test_column_limits.py checks this set against the DDL.
TIMESTAMP_COLUMNS = frozenset({"CREATED_AT", "UPDATED_AT", "RESOLVED_AT"})


def crud_timestamp_binds(columns: Sequence[str]) -> tuple[str, ...]:
    # source: FACTS.md §12.2 (a datetime binds as DB_TYPE_DATE, losing fractional seconds;
    # cursor.setinputsizes(name=oracledb.DB_TYPE_TIMESTAMP) keeps them [PYDOC])
    return tuple(_bind_name(c) for c in columns if c in TIMESTAMP_COLUMNS)


# The CLOB columns CRUD writes (V1); tests/oracle/test_column_limits.py checks this set against the DDL. Their long
# values are bound as temporary CLOBs (records.clob_input_sizes), as are MESSAGES.CONTENT and PROJECTS.AUTO_SUMMARY.
LOB_COLUMNS = frozenset({("PROJECTS", "DESCRIPTION"), ("TASKS", "DESCRIPTION"), ("TASKS", "LABELS"),
                         ("TASKS", "FIX_VERSIONS"), ("TASKS", "COMPONENTS"), ("TASKS", "ENVIRONMENT"),
                         ("TASKS", "AFFECTS_VERSIONS"), ("COMMENTS", "BODY"), ("DOCUMENTS", "BODY")})


def crud_lob_binds(entity: EntitySpec, columns: Sequence[str]) -> tuple[str, ...]:
    # source: FACTS.md §11.6 (str into a CLOB) + REVIEW-2 U1 (cursor.setinputsizes(name=oracledb.DB_TYPE_CLOB) binds a
    # temporary LOB [PYDOC lob_data.rst; CODE python-oracledb tests/test_1900_lob_var.py 1906, 250,000 characters])
    return tuple(_bind_name(c) for c in columns if (entity.table, c) in LOB_COLUMNS)


# source: FACTS.md §10 (plain DELETE; children first, queue last because the deletes enqueue)
WIPE = tuple(
    f"DELETE FROM {table}"
    for table in ("MESSAGE_ENTITIES", "MESSAGES", "CONVERSATIONS", "COMMENTS", "TASK_LINKS", "TASKS", "DOCUMENTS",
                  "PROJECT_MEMBERS", "SPRINTS", "PROJECTS", "EMPLOYEES", "RAG_CHUNK", "RAG_DIRTY", "ERASURE_JOBS", "SYNC_CURSORS")
)


# Whether the tracker restricts a task (V23); written only when it differs, so an unchanged pass changes nothing.
# TASKS_RAG_ACCESS_TRG fires on UPDATE OF TASK_ID, ASSIGNEE_ID, PROJECT_ID, SPRINT_ID only: no chunk changes.
# source: FACTS.md §10 (plain UPDATE by key, values as named binds)
SET_TASK_RESTRICTED = ("UPDATE TASKS SET RESTRICTED = :restricted\n"
                       "WHERE TASK_ID = :task_id AND RESTRICTED <> :restricted")
