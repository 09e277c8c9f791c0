"""Project membership on the SQLite engine (PROJECT_MEMBERS, migrations/sqlite/V15): the rows the project access
rule reads (RAG_ACCESS_RULE=project, app/rag/access.py), their writers, and the engine's methods over them
(``ProjectMembership``, a base of SQLiteEngine so the facade stays within its size).

A membership is read in the query itself (the caller's projects, resolved with the caller), so a write here
changes what that person sees as soon as it commits: no chunk changes and nothing waits for the worker.
Every value is bound; the statements below are the only SQL of this module.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

import apsw

from app.domain import MEMBER_SOURCES, Caller, Page, ProjectMember, Role

PROJECT_EXISTS = "SELECT 1 FROM PROJECTS WHERE PROJECT_ID = ?"
EMPLOYEE_EXISTS = "SELECT 1 FROM EMPLOYEES WHERE EMPLOYEE_ID = ?"
# PUT is idempotent: an existing row keeps its ADDED_AT (the explainer's "since"); the source becomes the writer's.
PUT_MEMBER = ("INSERT INTO PROJECT_MEMBERS (PROJECT_ID, EMPLOYEE_ID, SOURCE) VALUES (?, ?, ?) "
              "ON CONFLICT (PROJECT_ID, EMPLOYEE_ID) DO UPDATE SET SOURCE = excluded.SOURCE")
MEMBER_ROW = ("SELECT PROJECT_ID, EMPLOYEE_ID, SOURCE, ADDED_AT FROM PROJECT_MEMBERS"
              " WHERE PROJECT_ID = ? AND EMPLOYEE_ID = ?")
DELETE_MEMBER = "DELETE FROM PROJECT_MEMBERS WHERE PROJECT_ID = ? AND EMPLOYEE_ID = ?"
LIST_MEMBERS = ("SELECT PROJECT_ID, EMPLOYEE_ID, SOURCE, ADDED_AT FROM PROJECT_MEMBERS"
                " WHERE PROJECT_ID = ? AND EMPLOYEE_ID > ? ORDER BY EMPLOYEE_ID LIMIT ? OFFSET ?")
COUNT_MEMBERS = "SELECT COUNT(*) FROM PROJECT_MEMBERS WHERE PROJECT_ID = ?"
PROJECTS_OF = "SELECT PROJECT_ID FROM PROJECT_MEMBERS WHERE EMPLOYEE_ID = ?"
SOURCE_MEMBERS = "SELECT EMPLOYEE_ID FROM PROJECT_MEMBERS WHERE PROJECT_ID = ? AND SOURCE = ?"
# A sync adds a person only if no row exists (another source's row, a manual one, stays as it is) and only
# if the employee exists (an id the tracker maps to nobody adds nothing).
ADD_IF_ABSENT = ("INSERT INTO PROJECT_MEMBERS (PROJECT_ID, EMPLOYEE_ID, SOURCE) SELECT ?, EMPLOYEE_ID, ?"
                 " FROM EMPLOYEES WHERE EMPLOYEE_ID = ? ON CONFLICT (PROJECT_ID, EMPLOYEE_ID) DO NOTHING")
DELETE_SOURCE_MEMBER = "DELETE FROM PROJECT_MEMBERS WHERE PROJECT_ID = ? AND EMPLOYEE_ID = ? AND SOURCE = ?"


def check_source(source: str) -> str:
    if source not in MEMBER_SOURCES:
        raise ValueError(f"a membership's source is one of {', '.join(MEMBER_SOURCES)}, not {source!r}")
    return source


def member_projects(conn: apsw.Connection, employee_id: int) -> frozenset[int]:
    return frozenset(int(row[0]) for row in conn.execute(PROJECTS_OF, (employee_id,)))


def with_memberships(conn: apsw.Connection, caller: Caller | None, rule: str) -> Caller | None:
    """The caller as the access rule reads them: under ``project`` a developer carries their projects."""
    if caller is None or rule != "project" or caller.role is not Role.DEVELOPER:
        return caller
    return Caller(caller.employee_id, caller.role, member_projects(conn, caller.employee_id))


def put(conn: apsw.Connection, project_id: int, employee_id: int, source: str) -> ProjectMember | None:
    """Run in a write transaction. None when the project or the employee does not exist."""
    check_source(source)
    if not _exists(conn, PROJECT_EXISTS, project_id) or not _exists(conn, EMPLOYEE_EXISTS, employee_id):
        return None
    conn.execute(PUT_MEMBER, (project_id, employee_id, source))
    return membership(conn, project_id, employee_id)


def membership(conn: apsw.Connection, project_id: int, employee_id: int) -> ProjectMember | None:
    row = conn.execute(MEMBER_ROW, (project_id, employee_id)).fetchone()
    return _member(row) if row else None


def delete(conn: apsw.Connection, project_id: int, employee_id: int) -> bool:
    conn.execute(DELETE_MEMBER, (project_id, employee_id))
    return conn.changes() > 0


def page(conn: apsw.Connection, project_id: int, limit: int, offset: int = 0,
         after: int | None = None) -> Page[ProjectMember] | None:
    """Run in one read transaction (the total and the page agree). Members by employee id, those after
    ``after`` (a keyset: the API's cursor) skipping ``offset``; None when the project does not exist."""
    if not _exists(conn, PROJECT_EXISTS, project_id):
        return None
    rows = conn.execute(LIST_MEMBERS, (project_id, after or 0, max(0, limit) + 1, max(0, offset))).fetchall()
    total = conn.execute(COUNT_MEMBERS, (project_id,)).fetchone()[0]
    return Page([_member(r) for r in rows[:limit]], int(total), len(rows) > limit)


def replace(conn: apsw.Connection, project_id: int, source: str, employee_ids: Iterable[int]) -> tuple[int, int]:
    """Run in a write transaction: that source's members of the project become exactly ``employee_ids`` (those
    that exist); rows of other sources are never touched. Returns (added, removed)."""
    check_source(source)
    if not _exists(conn, PROJECT_EXISTS, project_id):
        raise LookupError(f"no project {project_id}")
    wanted = set(int(e) for e in employee_ids)
    current = {int(row[0]) for row in conn.execute(SOURCE_MEMBERS, (project_id, source))}
    removed = 0
    for employee_id in sorted(current - wanted):
        conn.execute(DELETE_SOURCE_MEMBER, (project_id, employee_id, source))
        removed += conn.changes()
    added = 0
    for employee_id in sorted(wanted - current):
        conn.execute(ADD_IF_ABSENT, (project_id, source, employee_id))
        added += conn.changes()
    return added, removed


def _exists(conn: apsw.Connection, statement: str, row_id: int) -> bool:
    return conn.execute(statement, (row_id,)).fetchone() is not None


def _member(row: Any) -> ProjectMember:
    project_id, employee_id, source, added_at = row
    return ProjectMember(int(project_id), int(employee_id), source, _timestamp(added_at))


def _timestamp(value: Any) -> dt.datetime:
    stamp = dt.datetime.fromisoformat(value)
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.timezone.utc)


class ProjectMembership:
    """The Engine protocol's membership methods on SQLite (SQLiteEngine's base)."""

    conn: apsw.Connection
    access_rule: str = "assignee"

    _write: Callable[[], AbstractContextManager[apsw.Connection]]  # SQLiteEngine's transactions
    _read: Callable[[], AbstractContextManager[apsw.Connection]]

    def put_project_member(self, project_id: int, employee_id: int, source: str = "manual") -> ProjectMember | None:
        with self._write() as conn:
            return put(conn, project_id, employee_id, source)

    def delete_project_member(self, project_id: int, employee_id: int) -> bool:
        with self._write() as conn:
            return delete(conn, project_id, employee_id)

    def project_members(self, project_id: int, *, limit: int, offset: int = 0,
                        after: int | None = None) -> Page[ProjectMember] | None:
        with self._read() as conn:
            return page(conn, project_id, limit, offset, after)

    def project_membership(self, project_id: int, employee_id: int) -> ProjectMember | None:
        return membership(self.conn, project_id, employee_id)

    def replace_project_members(self, project_id: int, source: str, employee_ids: Iterable[int]) -> tuple[int, int]:
        with self._write() as conn:
            return replace(conn, project_id, source, employee_ids)
