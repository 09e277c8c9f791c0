"""Plain data shared by services and engines: no I/O, no engine imports."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Union

SourceType = Literal["task", "sprint", "project", "doc"]
SOURCE_TYPES: tuple[SourceType, ...] = ("task", "sprint", "project", "doc")
Action = Literal["UPSERT", "DELETE"]
SearchMode = Literal["hybrid", "vector"]

# Ids are 64-bit signed integers in both engines (SQLite INTEGER, Oracle NUMBER(19)); a larger
# number can name no row, and the SQLite driver cannot even bind it (OverflowError, a 500).
MAX_ID = 2**63 - 1


class Role(StrEnum):
    DEVELOPER = "DEVELOPER"
    MANAGER = "MANAGER"
    ADMIN = "ADMIN"


@dataclass(frozen=True)
class Caller:
    """Who is asking. Built only from the EMPLOYEES row, never from the request."""

    employee_id: int
    role: Role

    @property
    def sees_everything(self) -> bool:
        return self.role in (Role.MANAGER, Role.ADMIN)


ProjectScope = Union[int, Literal["none", "all"]]


@dataclass(frozen=True)
class Scope:
    """Optional narrowing of a search; the default scope is the unscoped query."""

    project: ProjectScope = "all"
    sprint_id: int | None = None
    source_types: tuple[SourceType, ...] | None = None
    # Narrows document chunks to these DOC_TYPEs (normalised, app.rag.scope); other chunks pass.
    doc_types: tuple[str, ...] | None = None



@dataclass(frozen=True)
class DirtyRow:
    dirty_id: int
    source_type: SourceType
    source_id: int
    action: Action
    attempts: int = 0


# --- source records, as the engines load them for the chunk templates -------------------

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
    comments: tuple[str, ...] = ()


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


@dataclass(frozen=True)
class ChunkWrite:
    """One chunk to store: text, hash and the access/scope metadata copied from its source."""

    source_type: SourceType
    source_id: int
    chunk_ix: int
    owner_employee_id: int | None
    project_id: int | None
    sprint_id: int | None
    content: str
    content_hash: str
    doc_type: str | None = None  # document chunks only: the normalised DOC_TYPE the doc-type scope reads


@dataclass(frozen=True)
class SearchHit:
    source_type: SourceType
    source_id: int
    chunk_ix: int
    content: str
    distance: float  # cosine distance of the chunk to the question (0 = same direction)
    score: float  # ranking score: RRF in hybrid mode, 1 - distance in vector mode


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    mode: SearchMode
    answered_by: str  # which plan answered: "memory", "approx", "exact", "exact-fallback"


@dataclass(frozen=True)
class FailingRow:
    dirty_id: int
    source_type: str
    source_id: int
    attempts: int
    last_error: str | None


@dataclass(frozen=True)
class RagStatus:
    engine: str
    pending: int
    oldest_pending_age_s: float | None
    failing: int  # rows with ATTEMPTS > 0 still in the queue
    stuck: int  # rows at or past max attempts: skipped by the worker until retried
    chunks_by_source_type: dict[str, int]
    model_name: str
    dimensions: int
    failing_rows: list[FailingRow] = field(default_factory=list)
    index: dict[str, object] = field(default_factory=dict)  # engine-specific (IVF accuracy, ...)
