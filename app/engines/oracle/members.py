"""Project membership on the Oracle engine (PROJECT_MEMBERS, V21): the writers, the list, a sync's replace and the
caller's projects, each a function over an open cursor, and the engine's methods over them (``ProjectMembership``,
a base of OracleEngine). Every statement is in member_statements.py.

A membership is tested in the query itself (the caller's projects, resolved with the caller, are bound beside the
audience), so a write here changes what that person sees from their next question; no chunk moves. A membership
write still clears the text arm's cached statistics (a developer's visible set changed).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from app.domain import MEMBER_SOURCES, Caller, Page, ProjectMember, Role
from app.engines.oracle import member_statements as sql
from app.engines.oracle.errors import ora_error_number

UNIQUE_TAKEN = 1  # ORA-00001: another session inserted the same row first


def check_source(source: str) -> str:
    if source not in MEMBER_SOURCES:
        raise ValueError(f"a membership's source is one of {', '.join(MEMBER_SOURCES)}, not {source!r}")
    return source


def member_projects(cur: Any, employee_id: int) -> frozenset[int]:
    cur.execute(sql.MEMBER_PROJECTS_OF, employee_id=int(employee_id))
    return frozenset(int(row[0]) for row in cur.fetchall())


def with_memberships(cur: Any, caller: Caller | None, rule: str) -> Caller | None:
    """The caller as the access rule reads them: under ``project`` a developer carries their projects."""
    if caller is None or rule != "project" or caller.role is not Role.DEVELOPER:
        return caller
    return Caller(caller.employee_id, caller.role, member_projects(cur, caller.employee_id))


def put(cur: Any, project_id: int, employee_id: int, source: str) -> ProjectMember | None:
    """None when the project or the employee does not exist (the caller commits)."""
    check_source(source)
    if not _exists(cur, sql.MEMBER_PROJECT_EXISTS, project_id=int(project_id)) \
            or not _exists(cur, sql.MEMBER_EMPLOYEE_EXISTS, employee_id=int(employee_id)):
        return None
    _merge(cur, sql.MEMBER_PUT, project_id=int(project_id), employee_id=int(employee_id), member_source=source)
    return membership(cur, project_id, employee_id)


def membership(cur: Any, project_id: int, employee_id: int) -> ProjectMember | None:
    cur.execute(sql.MEMBER_ROW, project_id=int(project_id), employee_id=int(employee_id))
    row = cur.fetchone()
    return _member(row) if row else None


def delete(cur: Any, project_id: int, employee_id: int) -> bool:
    cur.execute(sql.MEMBER_DELETE, project_id=int(project_id), employee_id=int(employee_id))
    return cur.rowcount > 0


def page(cur: Any, project_id: int, limit: int, offset: int = 0, after: int | None = None) -> Page[ProjectMember] | None:
    """Members by employee id after ``after``, skipping ``offset`` (read and dropped here: the statement has no
    OFFSET clause); None when the project does not exist."""
    if not _exists(cur, sql.MEMBER_PROJECT_EXISTS, project_id=int(project_id)):
        return None
    skip, limit = max(0, int(offset)), max(0, int(limit))
    cur.execute(sql.MEMBER_PAGE, project_id=int(project_id), after_id=int(after or 0), max_rows=skip + limit + 1)
    rows = cur.fetchall()[skip:]
    cur.execute(sql.MEMBER_COUNT, project_id=int(project_id))
    (total,) = cur.fetchone()
    return Page([_member(r) for r in rows[:limit]], int(total), len(rows) > limit)


def replace(cur: Any, project_id: int, source: str, employee_ids: Iterable[int]) -> tuple[int, int]:
    """That source's members of the project become exactly the existing employees among ``employee_ids``; rows of
    other sources are never touched. (added, removed); the caller commits once: one transaction."""
    check_source(source)
    if not _exists(cur, sql.MEMBER_PROJECT_EXISTS, project_id=int(project_id)):
        raise LookupError(f"no project {project_id}")
    wanted = {int(e) for e in employee_ids}
    cur.execute(sql.MEMBER_IDS_OF_SOURCE, project_id=int(project_id), member_source=source)
    current = {int(row[0]) for row in cur.fetchall()}
    removed = added = 0
    for employee_id in sorted(current - wanted):
        cur.execute(sql.MEMBER_DELETE_OF_SOURCE, project_id=int(project_id), employee_id=employee_id,
                    member_source=source)
        removed += cur.rowcount
    for employee_id in sorted(wanted - current):
        added += _merge(cur, sql.MEMBER_ADD_IF_ABSENT, project_id=int(project_id), employee_id=employee_id,
                        member_source=source)
    return added, removed


def _merge(cur: Any, statement: str, **binds: Any) -> int:
    """A MERGE; two sessions inserting the same new row race and the second gets ORA-00001: only that statement
    is rolled back, and the same MERGE again finds the committed row (as model_mark.write_setting)."""
    try:
        cur.execute(statement, binds)
    except Exception as exc:
        if ora_error_number(exc) != UNIQUE_TAKEN:
            raise
        cur.execute(statement, binds)
    return cur.rowcount


def _exists(cur: Any, statement: str, **binds: Any) -> bool:
    cur.execute(statement, binds)
    row = cur.fetchone()
    return bool(row and row[0])


def _member(row: Any) -> ProjectMember:
    project_id, employee_id, source, added_at = row
    stamp = added_at if isinstance(added_at, dt.datetime) else dt.datetime.fromisoformat(str(added_at))
    return ProjectMember(int(project_id), int(employee_id), source,
                         stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.timezone.utc))


class ProjectMembership:
    """The Engine protocol's membership methods on Oracle (OracleEngine's base)."""

    access_rule: str = "assignee"
    _connection: Callable[..., AbstractContextManager[Any]]  # OracleEngine's
    text_statistics: Any

    def put_project_member(self, project_id: int, employee_id: int, source: str = "manual") -> ProjectMember | None:
        return self._membership_write(lambda cur: put(cur, project_id, employee_id, source))

    def delete_project_member(self, project_id: int, employee_id: int) -> bool:
        return self._membership_write(lambda cur: delete(cur, project_id, employee_id))

    def replace_project_members(self, project_id: int, source: str, employee_ids: Iterable[int]) -> tuple[int, int]:
        return self._membership_write(lambda cur: replace(cur, project_id, source, employee_ids))

    def project_members(self, project_id: int, *, limit: int, offset: int = 0,
                        after: int | None = None) -> Page[ProjectMember] | None:
        with self._connection() as conn, conn.cursor() as cur:
            return page(cur, project_id, limit, offset, after)

    def project_membership(self, project_id: int, employee_id: int) -> ProjectMember | None:
        with self._connection() as conn, conn.cursor() as cur:
            return membership(cur, project_id, employee_id)

    def _membership_write(self, work: Callable[[Any], Any]) -> Any:
        with self._connection() as conn, conn.cursor() as cur:
            result = work(cur)
            conn.commit()
            self.text_statistics.invalidate()  # a developer's visible set may have changed
            return result
