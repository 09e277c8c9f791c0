"""API schemas: one Create / Update / Public family per tracker entity, plus search, chat and reindex.

Create and Update reject unknown fields (a typo must not be silently ignored). Update is a PATCH:
omitted fields stay as they are, and ``null`` is refused for fields the row cannot be without.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    create_model,
    model_validator,
)

from app.api.types import (  # noqa: F401  (MAX_TEXT_CHARS: the documented limit, read from here)
    MAX_COMMENT_CHARS, MAX_TEXT_CHARS, Day, DocType, Email, ExternalKey, Goal, Id, Label, Name, NonNegative,
    PriorityName, Question, Rank, SourceName, TelegramId, Text, Title, TopK, UtcTime, Values, line)
from app.domain import Role, SourceType

Stamp = Annotated[str | None, BeforeValidator(lambda v: v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v)]



class WriteModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_lone_surrogates(cls, data: Any) -> Any:
        # JSON may spell a lone surrogate ("\ud800"), which no database column can store as UTF-8.
        if _has_lone_surrogate(data):
            raise ValueError("text must be valid Unicode (a lone UTF-16 surrogate was found)")
        return data


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


class UpdateModel(WriteModel):
    """A PATCH body: every field may be omitted; only the fields that were sent are written."""


class _Imported:
    """An imported row names its source and its key there together, or neither (a native row); the database's
    CHECK says the same for a PATCH of one of them (409)."""

    @model_validator(mode="after")
    def _source_with_key(self) -> Any:
        key = "external_id" if "external_id" in type(self).model_fields else "external_key"
        if (getattr(self, "source", None) is None) != (getattr(self, key, None) is None):
            raise ValueError(f"source and {key} are given together or not at all")
        return self


IMPORTED = ("imported rows (app/sources): `source` names the tracker (\"jira:https://acme.atlassian.net\"), "
            "`{key}` the row's key there; both or neither")


class _DateRange:
    @model_validator(mode="after")
    def _ordered(self) -> Any:
        start, end = getattr(self, "start_date", None), getattr(self, "end_date", None)
        if start and end and end < start:
            raise ValueError("end_date is before start_date")
        return self


# --- employees -------------------------------------------------------------------------------
class EmployeeCreate(_Imported, WriteModel):
    first_name: Name
    last_name: Name
    email: Email
    role: Role = Role.DEVELOPER
    telegram_id: TelegramId | None = None
    source: SourceName | None = Field(None, description=IMPORTED.format(key="external_id"))
    external_id: ExternalKey | None = Field(None, description="the person's id in the tracker (Jira user key or "
                                                              "accountId, GitHub login)")



class EmployeePublic(BaseModel):
    employee_id: int
    first_name: str
    last_name: str
    email: str | None = None
    role: Role
    telegram_id: Annotated[str | None, BeforeValidator(lambda v: None if v is None else str(v))] = None
    source: str | None = None
    external_id: str | None = None


# --- projects --------------------------------------------------------------------------------
class ProjectCreate(_Imported, _DateRange, WriteModel):
    name: Name
    status: Label | None = None
    description: Text | None = None
    start_date: Day | None = None
    end_date: Day | None = None
    source: SourceName | None = Field(None, description=IMPORTED.format(key="external_key"))
    external_key: ExternalKey | None = None



class ProjectPublic(BaseModel):
    project_id: int
    name: str
    status: str | None = None
    description: str | None = None
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    source: str | None = None
    external_key: str | None = None
    auto_summary: str | None = Field(None, description="read one project: the LLM-written summary project matching "
                                                       "uses (RAG_SUMMARY_*), its citations checked; null until "
                                                       "written, and in lists")
    auto_summary_at: dt.datetime | None = Field(None, description="read one project: when it was written (UTC)")


# --- sprints ---------------------------------------------------------------------------------
class SprintCreate(_Imported, _DateRange, WriteModel):
    project_id: Id | None = None
    name: Name
    status: Label | None = None
    goal: Goal | None = None
    start_date: Day | None = None
    end_date: Day | None = None
    source: SourceName | None = Field(None, description=IMPORTED.format(key="external_key"))
    external_key: ExternalKey | None = None



class SprintPublic(BaseModel):
    sprint_id: int
    project_id: int | None = None
    name: str
    status: str | None = None
    goal: str | None = None
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    source: str | None = None
    external_key: str | None = None


# --- tasks -----------------------------------------------------------------------------------
VALUES = "{what}: a list of whole values (each 1..200 characters), replacing the stored ones; [] or null clears them"
STAMP = ("when it was {what} (ISO 8601; an offset is converted to UTC, none means UTC); omitted on create: {default}, "
         "and a task written through this API gets updated_at = now on every change")


class TaskCreate(_Imported, WriteModel):
    title: Title
    description: Text | None = None
    status: Label | None = None
    priority: Label | None = None
    sprint_id: Id | None = None
    project_id: Id | None = None
    assignee_id: Id | None = None
    story_points: NonNegative | None = None
    estimated_hours: NonNegative | None = None
    expected_end_date: Day | None = None
    source: SourceName | None = Field(None, description=IMPORTED.format(key="external_key"))
    external_key: ExternalKey | None = Field(None, description="the issue's key (\"PAY-1210\", \"octo/repo#123\"): "
                                                               "unique per source, shown in the chunk's first line")
    issue_type: Name | None = Field(None, description="the tracker's issue type (\"Bug\", \"Story\")")
    status_name: Name | None = Field(None, description="the tracker's own status name (\"In QE Test\"), shown "
                                                       "beside status where it says something else")
    labels: Values | None = Field(None, description=VALUES.format(what="labels (\"backend\", \"refunds\")"))
    components: Values | None = Field(None, description=VALUES.format(what="components"))
    fix_versions: Values | None = Field(None, description=VALUES.format(what="fix versions (a GitHub milestone)"))
    affects_versions: Values | None = Field(None, description=VALUES.format(what="versions the issue affects"))
    reporter_id: Id | None = Field(None, description="who reported it (an employee id)")
    created_at: dt.datetime | None = Field(None, description=STAMP.format(what="created", default="now"))
    updated_at: dt.datetime | None = Field(None, description=STAMP.format(what="last updated", default="now"))
    resolved_at: dt.datetime | None = Field(None, description=STAMP.format(what="resolved", default="null"))
    resolution: Name | None = Field(None, description="how it was resolved (\"Fixed\", \"Won't Fix\", \"Duplicate\"); "
                                                      "null: unresolved")
    environment: Text | None = None
    parent_key: ExternalKey | None = Field(None, description="the parent's key in the tracker (\"PAY-12\")")
    parent_id: Id | None = Field(None, description="the parent task, when it is here")
    resolved_by_id: Id | None = Field(None, description="who resolved it (an employee id)")
    priority_name: PriorityName | None = Field(None, description="the tracker's own priority name (\"Major\", "
                                                                 "\"Blocker\"), shown beside priority (our level)")
    priority_rank: Rank | None = Field(None, description="the priority's place in the tracker's order (1: the most "
                                                         "important); orders tasks of one level; null: unknown")



class TaskPublic(BaseModel):
    task_id: int
    title: str
    description: str | None = None
    status: str | None = None
    priority: str | None = None
    sprint_id: int | None = None
    project_id: int | None = None
    assignee_id: int | None = None
    story_points: float | None = None
    estimated_hours: float | None = None
    expected_end_date: dt.date | None = None
    source: str | None = None
    external_key: str | None = None
    issue_type: str | None = None
    status_name: str | None = None
    labels: list[str] = Field(default_factory=list)
    components: list[str] = Field(default_factory=list)
    fix_versions: list[str] = Field(default_factory=list)
    affects_versions: list[str] = Field(default_factory=list)
    reporter_id: int | None = None
    created_at: UtcTime | None = None
    updated_at: UtcTime | None = None
    resolved_at: UtcTime | None = None
    resolution: str | None = None
    environment: str | None = None
    parent_key: str | None = None
    parent_id: int | None = None
    resolved_by_id: int | None = None
    priority_name: str | None = None
    priority_rank: int | None = None


# --- comments (CREATED_AT is set by the database) ---------------------------------------------
class CommentCreate(_Imported, WriteModel):
    task_id: Id
    author_id: Id | None = None
    body: line(MAX_COMMENT_CHARS)  # type: ignore[valid-type]
    source: SourceName | None = Field(None, description=IMPORTED.format(key="external_key"))
    external_key: ExternalKey | None = Field(None, description="the comment's id in the tracker")



class CommentPublic(BaseModel):
    comment_id: int
    task_id: int
    author_id: int | None = None
    body: str
    created_at: Stamp = None
    source: str | None = None
    external_key: str | None = None


# --- documents (no owner = organisation-wide) ------------------------------------------------
class DocumentCreate(WriteModel):
    title: Title
    body: Text | None = None
    project_id: Id | None = None
    owner_employee_id: Id | None = None
    doc_type: Label | None = None



class DocumentPublic(BaseModel):
    document_id: int
    title: str
    body: str | None = None
    project_id: int | None = None
    owner_employee_id: int | None = None
    doc_type: str | None = None


# --- updates: derived from the Create models, so the two can never disagree ------------------
def patch_model(create: type[WriteModel]) -> type[UpdateModel]:
    """The PATCH model of a Create model: the same fields and constraints, each one optional.

    A field the Create model cannot hold as null (``title``, ``role``, ...) may be omitted but not
    set to null, and its schema does not offer null: the default comes from a factory, which
    pydantic neither validates nor shows in the JSON schema. The date-range check carries over.
    """
    fields: dict[str, Any] = {}
    for name, info in create.model_fields.items():
        annotation = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
        nullable = type(None) in get_args(info.annotation)
        fields[name] = (annotation, None) if nullable else (annotation, Field(default_factory=_omitted))
    bases = (_DateRange, UpdateModel) if issubclass(create, _DateRange) else (UpdateModel,)
    return create_model(create.__name__.replace("Create", "Update"), __base__=bases, __module__=__name__, **fields)


def _omitted() -> None:
    return None


EmployeeUpdate = patch_model(EmployeeCreate)
ProjectUpdate = patch_model(ProjectCreate)
SprintUpdate = patch_model(SprintCreate)
TaskUpdate = patch_model(TaskCreate)
CommentUpdate = patch_model(CommentCreate)
DocumentUpdate = patch_model(DocumentCreate)

# entity name (app/entities.py) -> (Create, Update, Public)
ENTITY_SCHEMAS: dict[str, tuple[type[WriteModel], type[UpdateModel], type[BaseModel]]] = {
    "employees": (EmployeeCreate, EmployeeUpdate, EmployeePublic),
    "projects": (ProjectCreate, ProjectUpdate, ProjectPublic),
    "sprints": (SprintCreate, SprintUpdate, SprintPublic),
    "tasks": (TaskCreate, TaskUpdate, TaskPublic),
    "comments": (CommentCreate, CommentUpdate, CommentPublic),
    "documents": (DocumentCreate, DocumentUpdate, DocumentPublic),
}


# --- search / chat / reindex -----------------------------------------------------------------


# "Not both employee_id and telegram_id", in JSON-schema terms (null counts as not given). Which one is
# needed depends on the token (a token bound to one employee needs neither), which no schema can say.
_AT_MOST_ONE = {"not": {
    "required": ["employee_id", "telegram_id"],
    "properties": {"employee_id": {"type": "integer"}, "telegram_id": {"not": {"type": "null"}}},
}}
WHO_ASKS = ("who asks: exactly one of employee_id or telegram_id with an admin or bot token (a bot may act only "
            "for the employees its token allows: 403 otherwise); with a token bound to one employee (scope user) "
            "neither is needed, and naming anyone else is a 403")


class _WhoAsks(WriteModel):
    """At most one of employee_id / telegram_id. There is deliberately no role field: the role is read
    from EMPLOYEES."""

    model_config = ConfigDict(json_schema_extra=_AT_MOST_ONE)

    employee_id: Id | None = Field(None, description="who asks, by EMPLOYEES.EMPLOYEE_ID (" + WHO_ASKS + ")")
    telegram_id: TelegramId | None = Field(None, description="who asks, by EMPLOYEES.TELEGRAM_ID")

    @model_validator(mode="after")
    def _not_both(self) -> Any:
        if self.employee_id is not None and self.telegram_id is not None:
            raise ValueError("give employee_id or telegram_id, not both")
        return self


class SearchRequest(_WhoAsks):
    question: Question
    top_k: TopK | None = Field(None, description="default: RAG_TOP_K")
    project: Id | Literal["none", "all"] | None = Field(None, description="a project id, 'none' or 'all'")
    sprint_id: Id | None = None
    source_types: list[SourceType] | None = Field(None, min_length=1)
    doc_types: list[DocType] | None = Field(
        None, min_length=1, max_length=100,
        description="document types (e.g. WIKI, MEETING_NOTES): narrows document chunks only; case-insensitive",
    )
    mode: Literal["hybrid", "vector", "lexical"] | None = Field(
        None, description="hybrid (vector + lexical, fused), vector or lexical (keywords only); default: RAG_SEARCH_MODE")


class Hit(BaseModel):
    source_type: str = Field(description="what the chunk comes from: task, sprint, project or doc")
    source_id: int = Field(description="the id of that task, sprint, project or document")
    chunk_ix: int = Field(description="which chunk of the entity (0 = the first; long texts span several)")
    content: str = Field(description="the chunk text; its first line starts with the anchor, e.g. [TASK #12]")
    distance: float = Field(description="cosine distance between the chunk and the question: 0 = same "
                                        "direction, LOWER is closer (range 0-2)")
    score: float = Field(description="ranking score, HIGHER is better: reciprocal-rank fusion in hybrid and "
                                     "lexical modes, 1 - distance in vector mode; results are sorted by it")
    vector_rank: int | None = Field(None, description="1-based rank of the chunk in the vector arm's candidates "
                                                      "(null: that arm did not rank it or did not run)")
    lexical_rank: int | None = Field(None, description="1-based rank of the chunk in the lexical arm's candidates "
                                                       "(null: that arm did not rank it or did not run)")


class CallerPublic(BaseModel):
    employee_id: int = Field(description="the employee the answer was scoped to")
    role: Role = Field(description="their role as read from EMPLOYEES (never from the request)")


class Timings(BaseModel):
    embed: float = Field(description="milliseconds spent embedding the question")
    search: float = Field(description="milliseconds spent in the scoped query")


ANSWERED_BY = ('which plan answered: "memory" (embedded engine: the exact in-memory vector scan and/or the '
               'in-memory BM25 index that mirrors FTS5), "text" (Oracle, lexical mode: Oracle Text only), "approx" '
               '(Oracle vector index), "exact" (Oracle exact scan), "exact-fallback" (Oracle: the '
               'approximate search found fewer than top_k visible chunks, so an exact scan answered)')


class SearchResponse(BaseModel):
    results: list[Hit] = Field(description="the chunks the caller may see, best first")
    mode: str = Field(description='"hybrid" (vector + lexical, fused), "vector" or "lexical"')
    answered_by: str = Field(description=ANSWERED_BY)
    caller: CallerPublic
    timings_ms: Timings


class ReindexRequest(WriteModel):
    source_types: list[SourceType] | None = Field(None, min_length=1)
    project_id: Id | None = None
    force: StrictBool = False
    retry_failed: StrictBool = True


class ReindexResponse(BaseModel):
    enqueued: int
    retried: int


class ErrorMessage(BaseModel):
    detail: str


BEYOND_SCHEMA = "x-rules-beyond-schema"


def beyond_schema(*rules: str) -> dict[str, Any]:
    """An operation's ``openapi_extra`` naming the rules its 422 may enforce that JSON Schema cannot state:
    across query parameters, comparisons between two fields, or what the database holds now. Every other
    rule is in the schema itself (tests/api/test_schemathesis.py allows a schema-valid 422 only here)."""
    return {BEYOND_SCHEMA: list(rules)}


DATE_ORDER = "end_date is not before start_date (a comparison of two fields)"
PROJECT_EXISTS = "a rag_scope that is a project id names a project that exists now (the database's state)"
ASKER_BY_TOKEN = ("who asks: exactly one of employee_id and telegram_id, unless the token is bound to one employee "
                  "(scope user), which names neither (a rule across the token and the request)")
CURSOR_ISSUED = ("a cursor is one this server returned as next_cursor for the same list and filters (opaque: "
                 "no pattern can tell an issued one)")


def error_response(description: str) -> dict[str, Any]:
    """An OpenAPI `responses` entry for an error answered as {"detail": "..."}."""
    return {"model": ErrorMessage, "description": description}


class Message(BaseModel):
    status: str
    detail: str | None = None
