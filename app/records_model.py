"""The source records: what the engines load from the tracker's tables for the chunk templates, the keys an
import stores, and a task's links. Plain data, no I/O (moved out of app/domain.py, which was over 450 lines)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal, Union

from app.domain import is_id

# A link read from the task's own side (TASK_LINKS.LINK_TYPE, V13 / Oracle V18): "DEPENDED_ON_BY" is the
# inward side of "DEPENDS_ON" (the target depends on this task), and so on for each pair.
LinkType = Literal["BLOCKS", "BLOCKED_BY", "DEPENDS_ON", "DEPENDED_ON_BY", "DUPLICATES", "DUPLICATED_BY", "CLONES",
                   "CLONED_BY", "RELATES"]
LINK_TYPES: tuple[LinkType, ...] = ("BLOCKS", "BLOCKED_BY", "DEPENDS_ON", "DEPENDED_ON_BY", "DUPLICATES",
                                    "DUPLICATED_BY", "CLONES", "CLONED_BY", "RELATES")
# An external key or id as stored (TASKS/PROJECTS/SPRINTS.EXTERNAL_KEY, EMPLOYEES.EXTERNAL_ID, TASK_LINKS.TARGET_KEY,
# VARCHAR2(200 CHAR) on Oracle) and a source name (the SOURCE columns and SYNC_CURSORS.SOURCE, VARCHAR2(400 CHAR)).
MAX_EXTERNAL_KEY_CHARS = 200
MAX_SOURCE_CHARS = 400
# SYNC_CURSORS.CURSOR_VALUE: a timestamp, a page token or a small JSON object; VARCHAR2(4000 BYTE) on Oracle.
MAX_CURSOR_BYTES = 4000


def check_external_key(value: object, what: str = "external key") -> str:
    """A key or source name both engines store and bind: 1..200 characters, no control characters, no
    surrounding blanks (the import matches keys exactly)."""
    limit = MAX_SOURCE_CHARS if what == "source" else MAX_EXTERNAL_KEY_CHARS
    if (not isinstance(value, str) or not 0 < len(value) <= limit or value != value.strip()
            or any(ord(c) < 32 or ord(c) == 127 for c in value)):
        raise ValueError(f"{what} must be 1..{limit} characters without control characters or surrounding "
                         f"blanks, got {value!r}")
    return value


@dataclass(frozen=True)
class TaskLink:
    """One link of a task (TASK_LINKS): ``link_type`` is read from the task's side ("BLOCKED_BY": the target
    blocks this task). ``target_task_id`` is the imported target, or None while the target is not imported
    (its key is kept, so the chunk still names it)."""

    link_type: LinkType
    target_key: str
    target_task_id: int | None = None

    def __post_init__(self) -> None:
        if self.link_type not in LINK_TYPES:
            raise ValueError(f"link_type must be one of {', '.join(LINK_TYPES)}, got {self.link_type!r}")
        check_external_key(self.target_key, "target_key")
        if self.target_task_id is not None and not is_id(self.target_task_id):
            raise ValueError(f"target_task_id must be a positive id, got {self.target_task_id!r}")


@dataclass(frozen=True)
class CommentSource:
    """One comment as a task's chunk shows it: the body, and who wrote it when (None where unknown)."""

    body: str
    author_id: int | None = None
    author_name: str | None = None  # "Chen Wei"
    created_at: dt.datetime | None = None


@dataclass(frozen=True)
class TaskSource:
    task_id: int
    title: str
    status: str | None
    priority: str | None
    sprint_id: int | None
    sprint_name: str | None
    project_id: int | None
    project_name: str | None
    assignee_id: int | None
    assignee_first: str | None
    assignee_last: str | None
    story_points: float | None
    estimated_hours: float | None
    expected_end_date: dt.date | None
    description: str | None
    comments: tuple[CommentSource, ...] = ()
    # Imported tasks (app/sources): the tracker's key and issue type, its own status name where it differs
    # from STATUS, its labels / fix versions / components as shown ("backend, refunds"), and its links.
    external_key: str | None = None  # "PAY-1210", "octo/repo#123"
    issue_type: str | None = None  # "Bug", "Story"
    status_name: str | None = None  # "In QE Test"
    labels: str | None = None
    fix_versions: str | None = None
    components: str | None = None
    links: tuple[TaskLink, ...] = ()
    # The tracker fields (issue 31, V13 / Oracle V18) the chunk shows; None where not known. Times are UTC, naive.
    reporter_id: int | None = None
    reporter_first: str | None = None
    reporter_last: str | None = None
    created_at: dt.datetime | None = None
    resolved_at: dt.datetime | None = None
    resolution: str | None = None  # "Fixed", "Won't Fix", "Duplicate"; None: unresolved
    affects_versions: str | None = None  # as shown, like fix_versions
    environment: str | None = None
    parent_key: str | None = None  # the parent's key in the tracker ("PAY-12")
    parent_id: int | None = None  # the parent task, when it is here
    priority_name: str | None = None  # the tracker's own priority ("Major"), shown beside ``priority`` (V16 / V22)
    # The tracker restricts it (a Jira issue-security level; V17 / Oracle V23): no project membership grants it.
    restricted: bool = False


@dataclass(frozen=True)
class SprintSource:
    sprint_id: int
    name: str
    status: str | None
    project_id: int | None
    project_name: str | None
    goal: str | None
    start_date: dt.date | None
    end_date: dt.date | None


@dataclass(frozen=True)
class ProjectSource:
    project_id: int
    name: str
    status: str | None
    description: str | None
    start_date: dt.date | None
    end_date: dt.date | None


@dataclass(frozen=True)
class DocSource:
    document_id: int
    title: str
    body: str | None
    project_id: int | None
    owner_employee_id: int | None
    doc_type: str | None


SourceRecord = Union[TaskSource, SprintSource, ProjectSource, DocSource]
