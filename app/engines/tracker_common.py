"""What both engines' typed-query code shares and is not SQL: the keys of a result row, the label of the none
group, and the model's older find_tasks filters as a typed query. Pure: no I/O."""

from __future__ import annotations

from app.domain import TASK_FIELDS, TaskQuery
from app.rag.understanding.query import Predicate, TrackerQuery

# A row of a list: TASK_FIELDS, then the query's extra fields (both engines' tracker_statements select them so).
ROW_FIELDS = (*TASK_FIELDS, "issue_type", "status_name", "reporter_id", "reporter_name", "created_at", "updated_at",
              "resolved_at", "resolution", "priority_name")
# A record (returns='field'): the row and its remaining fields; the multi-valued ones are added as tuples.
RECORD_FIELDS = (*ROW_FIELDS, "environment", "parent_id", "parent_key", "resolved_by_id")
# TASK_VALUES.FIELD -> the record's key for its values
VALUE_KEYS = {"LABEL": "labels", "COMPONENT": "components", "FIX_VERSION": "fix_versions",
              "AFFECTS_VERSION": "affects_versions"}
ID_KEYS = ("task_id", "sprint_id", "project_id", "assignee_id", "reporter_id", "parent_id", "resolved_by_id")
_NO_GROUP = {"project": "no project", "sprint": "no sprint", "assignee": "unassigned", "reporter": "no reporter"}


def group_label(group_by: str, key: object, label: object) -> str:
    """A group's label as said to the asker: the joined name or the value, "unassigned" / "no project" / ... /
    "none" for the group of tasks without one."""
    text = str(label).strip() if label is not None else ""
    if text:
        return text
    return _NO_GROUP.get(group_by, "none") if key is None else str(key)


def as_tracker_query(query: TaskQuery) -> TrackerQuery | None:
    """The TaskQuery's filters as predicates, by TASK_ID, its limit (None: a value no task can hold, such as a status
    with surrounding blanks, which UPPER(col) = UPPER(?) never matched)."""
    where: list[Predicate] = []
    for name, value in (("status", query.status), ("priority", query.priority)):
        if value is not None:
            if value != value.strip():
                return None
            where.append(Predicate(name, (value,)))  # type: ignore[arg-type]
    for name, value in (("sprint", query.sprint_id), ("project", query.project_id), ("assignee", query.assignee_id)):
        if value is not None:
            where.append(Predicate(name, (value,)))  # type: ignore[arg-type]
    if query.overdue_on is not None:
        where.append(Predicate("overdue", (query.overdue_on,)))
    if query.unassigned:
        where.append(Predicate("assignee", (None,)))
    if query.open_only:
        where.append(Predicate("open", (True,)))
    if query.due_after is not None or query.due_before is not None:
        where.append(Predicate("due", window=(query.due_after, query.due_before)))
    return TrackerQuery(where=tuple(where), returns="list", order="id", limit=query.limit)
