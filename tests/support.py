"""Test helpers shared by the suites: seeding through the engine contract and queue inspection."""

from __future__ import annotations

import time
from collections.abc import Callable

from app.domain import DirtyRow, Scope
from app.embedding.tokens import count_tokens
from app.engines.base import Engine
from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS
from app.services.indexing import DrainResult, drain
from app.services.search import resolve_caller, search


class _Rollback(Exception):
    pass


def peek_queue(engine: Engine, limit: int = 1000, max_attempts: int = 1_000_000) -> list[DirtyRow]:
    """The claimable queue rows, read through a unit of work that is then rolled back."""
    seen: list[DirtyRow] = []
    try:
        with engine.indexing() as tx:
            seen = tx.claim(limit, max_attempts)
            raise _Rollback
    except _Rollback:
        pass
    return seen


def drain_all(engine: Engine, batch_size: int = 32, max_attempts: int = 5) -> DrainResult:
    return drain(engine, count_tokens, batch_size, max_attempts)


def employee(engine, first, last, role="DEVELOPER", telegram_id=None):
    return engine.create(EMPLOYEES, {
        "FIRST_NAME": first, "LAST_NAME": last, "EMAIL": f"{first}.{last}@example.com".lower(),
        "ROLE": role, "TELEGRAM_ID": telegram_id,
    })["employee_id"]


def project(engine, name, description=None, status="ACTIVE"):
    return engine.create(PROJECTS, {"NAME": name, "STATUS": status, "DESCRIPTION": description})["project_id"]


def sprint(engine, project_id, name, goal=None, status="ACTIVE"):
    return engine.create(SPRINTS, {"PROJECT_ID": project_id, "NAME": name, "STATUS": status, "GOAL": goal})[
        "sprint_id"
    ]


def task(engine, title, description=None, assignee_id=None, project_id=None, sprint_id=None, **extra):
    values = {"TITLE": title, "DESCRIPTION": description, "STATUS": "TODO", "PRIORITY": "MEDIUM",
              "ASSIGNEE_ID": assignee_id, "PROJECT_ID": project_id, "SPRINT_ID": sprint_id}
    values.update({k.upper(): v for k, v in extra.items()})
    return engine.create(TASKS, values)["task_id"]


def comment(engine, task_id, body, author_id=None):
    return engine.create(COMMENTS, {"TASK_ID": task_id, "AUTHOR_ID": author_id, "BODY": body})["comment_id"]


def document(engine, title, body, owner_id=None, project_id=None, doc_type="WIKI"):
    return engine.create(DOCUMENTS, {"TITLE": title, "BODY": body, "OWNER_EMPLOYEE_ID": owner_id,
                                     "PROJECT_ID": project_id, "DOC_TYPE": doc_type})["document_id"]


def visible(engine: Engine, employee_id: int, question: str = "quarterly payroll export", k: int = 50,
            scope: Scope | None = None) -> set[tuple[str, int]]:
    """(source_type, source_id) pairs the employee's search returns; k is large, so this is 'all visible'."""
    caller = resolve_caller(engine, employee_id=employee_id)
    hits = search(engine, question, caller, k, scope or Scope(), "vector").result.hits
    return {(h.source_type, h.source_id) for h in hits}


def wait_until(condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    """Poll until the condition holds (a bound for a busy machine, not a speed test)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()
