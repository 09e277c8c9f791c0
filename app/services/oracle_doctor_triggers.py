"""The doctor's checks of the enqueue and access triggers: scratch rows written in one transaction, each trigger's
effect read back, everything rolled back (moved out of oracle_doctor_checks.py, which holds the read path's checks).

Each takes the runner's Probe (app/services/oracle_doctor.py), which rolls back after it returns.
"""

from __future__ import annotations

from typing import Any

from app.engines.oracle import doctor_statements as doctor_sql
from app.engines.oracle import erasure_statements as erasure_sql
from app.engines.oracle import record_statements as record_sql
from app.engines.oracle.records import returned_id
from app.entities import PROJECTS, SPRINTS, TASKS
from app.rag.doctor import CheckResult, failed, passed

TRIGGER_CHECKS = (
    ("trigger task update", "FACTS.md §10 (row trigger into RAG_DIRTY, V6)"),
    ("trigger comment insert", "FACTS.md §10 (row trigger into RAG_DIRTY, V6)"),
    ("trigger project rename", "FACTS.md §10 (V6: a rename queues the project and its tasks)"),
    ("access reassignment", "FACTS.md §10 (V9 access trigger: the chunk's owner at once)"),
    ("access cascade delete", "FACTS.md §12.9 (ON DELETE SET NULL fires child triggers; no ORA-04091)"),
    ("access sprint delete", "FACTS.md §12.9 + REVIEW-2 U3 (SPRINTS delete: SET NULL into TASKS, V9 triggers)"),
    ("access project delete", "FACTS.md §12.9 + REVIEW-2 U3 (PROJECTS delete: SET NULL into SPRINTS, TASKS, DOCUMENTS)"),
    ("access task delete", "FACTS.md §12.9 + REVIEW-2 U3 (TASKS delete: its chunks go, COMMENTS cascade)"),
)


def check_triggers(p: Any) -> list[CheckResult]:
    with p.conn.cursor() as cur:
        try:
            ids = _scratch_sources(cur)
        except Exception as exc:
            return [failed(n, pr, "could not create the scratch rows (rolled back)", exc) for n, pr in TRIGGER_CHECKS]
        steps = (_task_update, _comment_insert, _project_rename, _reassignment, _cascade_delete, _sprint_delete,
                 _project_delete, _task_delete)
        out = []
        for (name, proves), step in zip(TRIGGER_CHECKS, steps):
            try:
                ok, detail = step(cur, ids)
                out.append(passed(name, proves, detail) if ok else failed(name, proves, detail))
            except Exception as exc:
                out.append(failed(name, proves, "the statement failed", exc))
    p.conn.rollback()  # the runner rolls back too; said here because everything above must go
    return out


def _scratch_sources(cur: Any) -> dict[str, int]:
    """A project with a sprint, two employees, a task assigned to one of them, a second task in the sprint, and a
    chunk for each source the access triggers touch (uncommitted, like everything this check writes)."""
    def insert(statement: str, **binds: Any) -> int:
        new_id = cur.var(int)
        cur.execute(statement, {**binds, "new_id": new_id})
        return returned_id(new_id)

    ids = {"project": insert(doctor_sql.DOCTOR_INSERT_PROJECT, project_name="doctor probe project"),
           "owner": insert(doctor_sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe owner"),
           "other": insert(doctor_sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe other")}
    ids["sprint"] = insert(doctor_sql.DOCTOR_INSERT_SPRINT, sprint_name="doctor probe sprint",
                           project_id=ids["project"])
    ids["task"] = insert(doctor_sql.DOCTOR_INSERT_TASK, title="doctor probe task", project_id=ids["project"],
                         sprint_id=None, assignee_id=ids["owner"])
    ids["sprint_task"] = insert(doctor_sql.DOCTOR_INSERT_TASK, title="doctor probe sprint task",
                                project_id=ids["project"], sprint_id=ids["sprint"], assignee_id=None)
    for source_type, key, owner, sprint in (("task", "task", ids["owner"], None),
                                            ("task", "sprint_task", None, ids["sprint"]),
                                            ("sprint", "sprint", None, None), ("project", "project", None, None)):
        cur.execute(doctor_sql.DOCTOR_INSERT_CHUNK, source_type=source_type, source_id=ids[key],
                    owner_employee_id=owner, project_id=ids["project"], sprint_id=sprint,
                    content=f"[{source_type.upper()} #0] doctor probe", content_hash="doctor")
    return ids


def _queued(cur: Any, source_type: str, source_id: int, action: str = "UPSERT") -> int:
    cur.execute(doctor_sql.DOCTOR_DIRTY_COUNT, source_type=source_type, source_id=source_id, dirty_action=action)
    return int(cur.fetchone()[0])


def _chunk(cur: Any, source_type: str, source_id: int) -> tuple[int | None, int | None, int | None] | None:
    """(owner, project, sprint) of the scratch source's chunk, or None when it is gone."""
    cur.execute(doctor_sql.DOCTOR_CHUNK_STATE, source_type=source_type, source_id=source_id)
    row = cur.fetchone()
    return None if row is None else tuple(None if v is None else int(v) for v in row)


def _task_update(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(doctor_sql.DOCTOR_UPDATE_TASK, title="doctor probe task (renamed)", task_id=ids["task"])
    added = _queued(cur, "task", ids["task"]) - before
    return added >= 1, f"+{added} task UPSERT row(s)"


def _comment_insert(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(doctor_sql.DOCTOR_INSERT_COMMENT, task_id=ids["task"], author_id=ids["other"],
                body="doctor probe comment")
    added = _queued(cur, "task", ids["task"]) - before
    return added >= 1, f"+{added} task UPSERT row(s) for the comment's task"


def _project_rename(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "project", ids["project"]), _queued(cur, "task", ids["task"])
    cur.execute(doctor_sql.DOCTOR_RENAME_PROJECT, project_name="doctor probe project (renamed)",
                project_id=ids["project"])
    project = _queued(cur, "project", ids["project"]) - before[0]
    task = _queued(cur, "task", ids["task"]) - before[1]
    return project >= 1 and task >= 1, f"+{project} project and +{task} task UPSERT row(s)"


def _reassignment(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    cur.execute(doctor_sql.DOCTOR_REASSIGN_TASK, assignee_id=ids["other"], task_id=ids["task"])
    owner = (_chunk(cur, "task", ids["task"]) or (None,))[0]
    return owner == ids["other"], f"chunk owner #{owner} right after the UPDATE (expected #{ids['other']})"


def _cascade_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(erasure_sql.ERASE_DELETE_EMPLOYEE, employee_id=ids["other"])  # SET NULL on TASKS and COMMENTS
    chunk = _chunk(cur, "task", ids["task"])
    added = _queued(cur, "task", ids["task"]) - before
    owner = None if chunk is None else chunk[0]
    return chunk is not None and owner is None and added >= 1, (
        f"chunk owner {owner} after the delete, +{added} task UPSERT row(s)")


def _sprint_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["sprint_task"])
    cur.execute(record_sql.crud_delete(SPRINTS), row_id=ids["sprint"])  # SET NULL on TASKS.SPRINT_ID
    sprint_chunk, task_chunk = _chunk(cur, "sprint", ids["sprint"]), _chunk(cur, "task", ids["sprint_task"])
    added = _queued(cur, "task", ids["sprint_task"]) - before
    ok = sprint_chunk is None and task_chunk is not None and task_chunk[2] is None and added >= 1
    return ok, (f"sprint chunk {'gone' if sprint_chunk is None else 'still there'}, task chunk sprint "
                f"{None if task_chunk is None else task_chunk[2]}, +{added} task UPSERT row(s)")


def _project_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(record_sql.crud_delete(PROJECTS), row_id=ids["project"])  # SET NULL on SPRINTS, TASKS, DOCUMENTS
    project_chunk = _chunk(cur, "project", ids["project"])
    task_projects = [(_chunk(cur, "task", ids[key]) or (None, "gone"))[1] for key in ("task", "sprint_task")]
    added = _queued(cur, "task", ids["task"]) - before
    ok = project_chunk is None and task_projects == [None, None] and added >= 1
    return ok, (f"project chunk {'gone' if project_chunk is None else 'still there'}, task chunks' project "
                f"{task_projects}, +{added} task UPSERT row(s)")


def _task_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    cur.execute(record_sql.crud_delete(TASKS), row_id=ids["task"])  # its comment goes by ON DELETE CASCADE
    chunk = _chunk(cur, "task", ids["task"])
    deletes = _queued(cur, "task", ids["task"], "DELETE")
    return chunk is None and deletes >= 1, (
        f"task chunk {'gone' if chunk is None else 'still there'}, {deletes} task DELETE row(s)")
