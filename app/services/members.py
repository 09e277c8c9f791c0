"""Project membership (issue 32): who belongs to a project, the rows RAG_ACCESS_RULE=project reads. The REST
routes, `ragctl members` and the console call these; a tracker sync calls Engine.replace_project_members.

A membership written here counts from the next question, with the worker stopped: the engines test the caller's
projects inside each query (app/rag/access.py), and no chunk changes.
"""

from __future__ import annotations

from typing import Any

from app import metrics, paging
from app.domain import MEMBER_SOURCES, ProjectMember, is_id
from app.engines.base import Engine
from app.entities import EMPLOYEES, PROJECTS
from app.paging import Listing
from app.services.records import RecordNotFoundError

MAX_PAGE = 500


def as_dict(member: ProjectMember) -> dict[str, Any]:
    return {"project_id": member.project_id, "employee_id": member.employee_id, "source": member.source,
            "added_at": member.added_at}


def add_member(engine: Engine, project_id: int, employee_id: int, source: str = "manual") -> ProjectMember:
    """Idempotent; RecordNotFoundError (404) for an unknown project or employee."""
    if source not in MEMBER_SOURCES:
        raise ValueError(f"source must be one of {', '.join(MEMBER_SOURCES)}, got {source!r}")
    _check(engine, project_id, employee_id)
    member = engine.put_project_member(project_id, employee_id, source)
    if member is None:  # deleted between the check and the write
        raise RecordNotFoundError(f"unknown project {project_id} or employee {employee_id}")
    return member


def remove_member(engine: Engine, project_id: int, employee_id: int) -> bool:
    """Whether a membership went; RecordNotFoundError (404) for an unknown project or employee (a person who
    was no member is not an error: the DELETE is idempotent)."""
    _check(engine, project_id, employee_id)
    removed = engine.delete_project_member(project_id, employee_id)
    if removed:
        metrics.ACCESS_REVOCATIONS.inc()  # as a reassignment counts (app/services/records.py)
    return removed


def list_members(engine: Engine, project_id: int, limit: int = 100, cursor: str | None = None) -> Listing[ProjectMember]:
    """One page of the project's members by employee id, with the cursor of the next (keyset)."""
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE}, got {limit}")
    kind, filters = "project_members", {"project_id": project_id}
    after = None if cursor is None else paging.decode(cursor, kind, filters, _employee_key)
    page = engine.project_members(project_id, limit=limit, after=after) if is_id(project_id) else None
    if page is None:
        raise RecordNotFoundError(f"unknown project id {project_id}")
    return paging.listing(page, kind, filters, lambda m: m.employee_id)


def _check(engine: Engine, project_id: int, employee_id: int) -> None:
    if not is_id(project_id) or engine.get(PROJECTS, project_id) is None:
        raise RecordNotFoundError(f"unknown project id {project_id}")
    if not is_id(employee_id) or engine.get(EMPLOYEES, employee_id) is None:
        raise RecordNotFoundError(f"unknown employee id {employee_id}")


def _employee_key(key: object) -> int:
    if not is_id(key):
        raise ValueError(f"not an employee id: {key!r}")
    return key  # type: ignore[return-value]
