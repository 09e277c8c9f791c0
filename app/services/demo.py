"""Seed the demo data (app/demo_data.py) through the engine's CRUD, idempotently.

Each row is matched on a natural key before it is created (employees by email, projects by name,
sprints by project and name, tasks by title, comments by task and body, documents by title), so a
second run - or a run after an interrupted one - creates only what is missing.
"""

from __future__ import annotations

from collections.abc import Callable

from app.demo_data import DemoData
from app.engines.base import Engine
from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS, EntitySpec
from app.services.records import create_record, iter_records


def seed(engine: Engine, data: DemoData, progress: Callable[[int], None] | None = None) -> dict[str, int]:
    """Create the missing demo rows; return how many rows of each entity were created now."""
    created: dict[str, int] = {}
    tick = progress or (lambda n: None)

    def ensure(entity: EntitySpec, key: Callable[[dict], tuple], rows: list[dict]) -> list[int]:
        existing = {key(row): row[entity.pk.lower()] for row in iter_records(engine, entity)}
        ids = []
        created[entity.name] = 0
        for values in rows:
            row_id = existing.get(key(values))
            if row_id is None:
                row_id = create_record(engine, entity, values)[entity.pk.lower()]
                existing[key(values)] = row_id
                created[entity.name] += 1
            ids.append(row_id)
            tick(1)
        return ids

    employees = ensure(EMPLOYEES, lambda r: (r["email"].lower(),), data.employees)
    projects = ensure(PROJECTS, lambda r: (r["name"],), data.projects)
    sprints = ensure(
        SPRINTS,
        lambda r: (r["project_id"], r["name"]),
        [_resolve(s, project=("project_id", projects)) for s in data.sprints],
    )
    tasks = ensure(
        TASKS,
        lambda r: (r["title"],),
        [_resolve(t, project=("project_id", projects), sprint=("sprint_id", sprints),
                  assignee=("assignee_id", employees), reporter=("reporter_id", employees)) for t in data.tasks],
    )
    ensure(
        COMMENTS,
        lambda r: (r["task_id"], r["body"]),
        [_resolve(c, task=("task_id", tasks), author=("author_id", employees)) for c in data.comments],
    )
    ensure(
        DOCUMENTS,
        lambda r: (r["title"],),
        [_resolve(d, project=("project_id", projects), owner=("owner_employee_id", employees)) for d in data.documents],
    )
    return created


def total_rows(data: DemoData) -> int:
    return sum(len(rows) for rows in (data.employees, data.projects, data.sprints, data.tasks, data.comments, data.documents))


def _resolve(row: dict, **refs: tuple[str, list[int]]) -> dict:
    """Replace list-index references (``project=0``) by the database ids they were created with."""
    values = {k: v for k, v in row.items() if k not in refs}
    for ref, (column, ids) in refs.items():
        index = row.get(ref)
        values[column] = None if index is None else ids[index]
    return values
