"""The SQLite engine's statements for source records (split from statements.py, the same rules): loading rows
for the chunk templates, imported rows (ids by external key, a task's links, the sync cursors) and a task's values.
Only EntitySpec identifiers and ``?`` marks are spliced; every value is bound."""

from __future__ import annotations

from collections.abc import Sequence

from app.engines.sqlite.statements import NOW, marks
from app.entities import EntitySpec

# --- source loading for the chunk templates -----------------------------------------------------


def task_comments(ids: Sequence[int]) -> str:
    """Each comment with its author's name as the employee row has it now (none: no such employee)."""
    return ("SELECT c.TASK_ID, c.BODY, c.AUTHOR_ID, e.FIRST_NAME, e.LAST_NAME, c.CREATED_AT FROM COMMENTS c"
            " LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = c.AUTHOR_ID"
            f" WHERE c.TASK_ID IN ({marks(ids)}) ORDER BY c.TASK_ID, c.CREATED_AT, c.COMMENT_ID")


def task_links(ids: Sequence[int]) -> str:
    return ("SELECT TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID FROM TASK_LINKS"
            f" WHERE TASK_ID IN ({marks(ids)}) ORDER BY TASK_ID, LINK_TYPE, TARGET_KEY")


def load_tasks(ids: Sequence[int]) -> str:
    """A task with the names it shows: sprint, project, assignee, reporter (none: no such row), and its parent's key
    (the tracker's, or the parent task's own key when only its id is stored)."""
    return (
        "SELECT t.TASK_ID, t.TITLE, t.STATUS, t.PRIORITY, t.SPRINT_ID, s.NAME, t.PROJECT_ID, p.NAME,"
        " t.ASSIGNEE_ID, e.FIRST_NAME, e.LAST_NAME, t.STORY_POINTS, t.ESTIMATED_HOURS, t.EXPECTED_END_DATE,"
        " t.DESCRIPTION, t.EXTERNAL_KEY, t.ISSUE_TYPE, t.STATUS_NAME, t.LABELS, t.FIX_VERSIONS, t.COMPONENTS,"
        " t.REPORTER_ID, r.FIRST_NAME, r.LAST_NAME, t.CREATED_AT, t.RESOLVED_AT, t.RESOLUTION, t.AFFECTS_VERSIONS,"
        " t.ENVIRONMENT, IFNULL(t.PARENT_KEY, pt.EXTERNAL_KEY), pt.TASK_ID, t.PRIORITY_NAME, t.RESTRICTED"
        " FROM TASKS t"
        " LEFT JOIN SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID"
        " LEFT JOIN PROJECTS p ON p.PROJECT_ID = t.PROJECT_ID"
        " LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = t.ASSIGNEE_ID"
        " LEFT JOIN EMPLOYEES r ON r.EMPLOYEE_ID = t.REPORTER_ID"
        " LEFT JOIN TASKS pt ON pt.TASK_ID = t.PARENT_ID"
        f" WHERE t.TASK_ID IN ({marks(ids)})"
    )


def load_sprints(ids: Sequence[int]) -> str:
    return ("SELECT s.SPRINT_ID, s.NAME, s.STATUS, s.PROJECT_ID, p.NAME, s.GOAL, s.START_DATE, s.END_DATE"
            " FROM SPRINTS s LEFT JOIN PROJECTS p ON p.PROJECT_ID = s.PROJECT_ID"
            f" WHERE s.SPRINT_ID IN ({marks(ids)})")


def load_projects(ids: Sequence[int]) -> str:
    return ("SELECT PROJECT_ID, NAME, STATUS, DESCRIPTION, START_DATE, END_DATE FROM PROJECTS"
            f" WHERE PROJECT_ID IN ({marks(ids)})")


def load_docs(ids: Sequence[int]) -> str:
    return ("SELECT d.DOCUMENT_ID, d.TITLE, d.BODY, d.PROJECT_ID, p.PROJECT_ID IS NOT NULL,"
            " d.OWNER_EMPLOYEE_ID, d.DOC_TYPE FROM DOCUMENTS d"
            " LEFT JOIN PROJECTS p ON p.PROJECT_ID = d.PROJECT_ID"
            f" WHERE d.DOCUMENT_ID IN ({marks(ids)})")


# --- imported rows (app/sources): ids by external key, a task's links, the sync cursors -----------


def find_by_external(entity: EntitySpec, keys: Sequence[str] | None) -> str:
    """``(external key, id)`` of the rows of one source (the first bind) with these keys, or all of them (None;
    the sync's reconciliation). Identifiers from EntitySpec only."""
    select = f"SELECT {entity.external}, {entity.pk} FROM {entity.table} WHERE SOURCE = ?"
    return select + ("" if keys is None else f" AND {entity.external} IN ({marks(keys)})")


TASK_SOURCE = "SELECT SOURCE FROM TASKS WHERE TASK_ID = ?"
# One queue row per entity for a pass of an import (issue 33): the newest queue row when the pass began, then the
# pass's rows that a newer row of the same entity supersedes (the newest keeps the latest action, as the drain's
# coalescing would; rows that failed before are never touched).
QUEUE_MARK = "SELECT COALESCE(MAX(DIRTY_ID), 0) FROM RAG_DIRTY"
COALESCE_QUEUED = (
    "DELETE FROM RAG_DIRTY WHERE DIRTY_ID > ? AND ATTEMPTS = 0 AND EXISTS (SELECT 1 FROM RAG_DIRTY n "
    "WHERE n.DIRTY_ID > RAG_DIRTY.DIRTY_ID AND n.SOURCE_TYPE = RAG_DIRTY.SOURCE_TYPE "
    "AND n.SOURCE_ID = RAG_DIRTY.SOURCE_ID)"
)
LINKS_OF_TASK = "SELECT LINK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID FROM TASK_LINKS WHERE TASK_ID = ?"
INSERT_LINK = "INSERT INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID) VALUES (?, ?, ?, ?)"
RETARGET_LINK = "UPDATE TASK_LINKS SET TARGET_TASK_ID = ? WHERE LINK_ID = ?"
DELETE_LINK = "DELETE FROM TASK_LINKS WHERE LINK_ID = ?"
READ_SYNC_CURSOR = "SELECT CURSOR_VALUE FROM SYNC_CURSORS WHERE SOURCE = ?"
WRITE_SYNC_CURSOR = ("INSERT INTO SYNC_CURSORS (SOURCE, CURSOR_VALUE) VALUES (?, ?) ON CONFLICT (SOURCE) DO UPDATE SET"
                     f" CURSOR_VALUE = excluded.CURSOR_VALUE, UPDATED_AT = {NOW}")
# Questions name "PAY-1210" without its source: every source's task with that key.
TASKS_BY_KEY = "SELECT TASK_ID FROM TASKS WHERE EXTERNAL_KEY = ? ORDER BY TASK_ID"


# --- a task's values (TASK_VALUES, V13): written with the task, from the same list as its display text ------------

def task_values(ids: Sequence[int]) -> str:
    return f"SELECT TASK_ID, FIELD, VALUE FROM TASK_VALUES WHERE TASK_ID IN ({marks(ids)})"


VALUES_OF_TASK = "SELECT FIELD, VALUE FROM TASK_VALUES WHERE TASK_ID = ?"
INSERT_TASK_VALUE = "INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (?, ?, ?)"
DELETE_TASK_VALUE = "DELETE FROM TASK_VALUES WHERE TASK_ID = ? AND FIELD = ? AND VALUE = ?"


# Whether the tracker restricts a task (V17); written only when it differs, so an unchanged pass changes nothing.
SET_TASK_RESTRICTED = "UPDATE TASKS SET RESTRICTED = ? WHERE TASK_ID = ? AND RESTRICTED <> ?"
