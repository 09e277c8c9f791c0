"""Plain data shared by services and engines: no I/O, no engine imports."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Generic, Literal, TypeVar, Union

SourceType = Literal["task", "sprint", "project", "doc"]
SOURCE_TYPES: tuple[SourceType, ...] = ("task", "sprint", "project", "doc")
Action = Literal["UPSERT", "DELETE"]
SearchMode = Literal["hybrid", "vector", "lexical"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "vector", "lexical")

# Ids are 64-bit signed integers in both engines (SQLite INTEGER, Oracle NUMBER(19)); a larger
# number can name no row, and the SQLite driver cannot even bind it (OverflowError, a 500).
MAX_ID = 2**63 - 1


def is_id(value: object) -> bool:
    """A row id the engines can bind: a positive int (never a bool) up to MAX_ID."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ID


class Role(StrEnum):
    DEVELOPER = "DEVELOPER"
    MANAGER = "MANAGER"
    ADMIN = "ADMIN"


AccessRule = Literal["assignee", "project"]
ACCESS_RULES: tuple[AccessRule, ...] = ("assignee", "project")
MemberSource = Literal["manual", "jira", "github", "file", "activity"]
MEMBER_SOURCES: tuple[MemberSource, ...] = ("manual", "jira", "github", "file", "activity")


@dataclass(frozen=True)
class Caller:
    """Who is asking. Built only from the EMPLOYEES row (and, under RAG_ACCESS_RULE=project, the caller's
    PROJECT_MEMBERS rows, read when the caller is resolved), never from the request.

    ``member_projects`` is None under the assignee rule (and for managers and admins, who see everything);
    under the project rule it holds the projects whose every task this developer also sees."""

    employee_id: int
    role: Role
    member_projects: frozenset[int] | None = None

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
    score: float  # ranking score: RRF in hybrid and lexical modes, 1 - distance in vector mode
    # 1-based rank of the chunk in each arm's own candidate list (None: that arm did not rank it, or
    # did not run). The answer gate reads the lexical rank; the console shows both.
    vector_rank: int | None = None
    lexical_rank: int | None = None


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    mode: SearchMode
    answered_by: str  # which plan answered: "memory", "text", "approx", "exact", "exact-fallback"
    # Hybrid search answered from vectors alone because the lexical arm failed: why ("timeout", "unavailable",
    # "error"); services.search counts it (rag_lexical_arm_dropped). None: both arms answered (REVIEW-4 W1).
    lexical_dropped: str | None = None


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
    pending: int  # entities waiting to be indexed: distinct (SOURCE_TYPE, SOURCE_ID) with a row in RAG_DIRTY
    queue_rows: int  # rows in RAG_DIRTY (an entity changed twice before the worker ran has two; one drain takes both)
    oldest_pending_age_s: float | None  # age of the oldest queued row
    failing: int  # rows with ATTEMPTS > 0 still in the queue
    stuck: int  # rows at or past max attempts: skipped by the worker until retried
    chunks_by_source_type: dict[str, int]
    model_name: str
    dimensions: int
    failing_rows: list[FailingRow] = field(default_factory=list)
    index: dict[str, object] = field(default_factory=dict)  # engine-specific (IVF accuracy, ...)


# --- conversations (the bot's chat surface) ------------------------------------------------

MessageRole = Literal["user", "assistant"]
# A conversation's retrieval scope as stored: a positive project id as text, "none" or "all".
RAG_SCOPE_WORDS = ("none", "all")


# Oracle keeps a message's citations in MESSAGES.CITATIONS VARCHAR2(4000 BYTE): 100 anchors of at most
# 30 ASCII characters ("[PROJECT #<19 digits>]") are at most 3,400 bytes of JSON. Chat keeps an answer's
# first 100 (tests/oracle/test_column_limits.py holds the bound to the column).
MAX_CITATIONS = 100
# A question (a chat message, a search): what every face accepts and a follow-up's rewrite is cut to.
MAX_QUESTION_CHARS = 2000


def citations_json(citations: Sequence[str]) -> str:
    """A message's citations as the JSON array both engines store (a list of anchor strings, nothing else)."""
    if isinstance(citations, str) or not all(isinstance(c, str) for c in citations):
        raise ValueError("citations must be a list of anchor strings")
    if len(citations) > MAX_CITATIONS:
        raise ValueError(f"at most {MAX_CITATIONS} citations are stored, got {len(citations)}")
    return json.dumps(list(citations), ensure_ascii=False)


def check_rag_scope(value: object) -> str:
    """The stored form of a conversation scope, or ValueError: a positive 64-bit project id (int or
    digits), "none" or "all". Both engines call it before binding, so a bad scope changes nothing."""
    if isinstance(value, bool):
        raise ValueError(f"rag_scope must be a project id, 'none' or 'all', got {value!r}")
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip()
        if text.lower() in RAG_SCOPE_WORDS:
            return text.lower()
    else:
        raise ValueError(f"rag_scope must be a project id, 'none' or 'all', got {value!r}")
    if not (text.isascii() and text.isdigit()) or text.startswith("0") or int(text) > MAX_ID:
        raise ValueError(f"rag_scope must be a project id, 'none' or 'all', got {value!r}")
    return text


def scope_project(rag_scope: str) -> ProjectScope:
    """The search Scope.project a stored conversation scope stands for."""
    return rag_scope if rag_scope in RAG_SCOPE_WORDS else int(rag_scope)  # type: ignore[return-value]


def scope_project_id(rag_scope: str) -> int | None:
    """The project a stored scope names (None for "none" and "all"): the one a pinned conversation may keep."""
    return None if rag_scope in RAG_SCOPE_WORDS else int(rag_scope)


@dataclass(frozen=True)
class Conversation:
    """One employee's conversation. Ownership is checked by the service (``employee_id``)."""

    conversation_id: int
    employee_id: int
    title: str | None
    rag_scope: str  # see check_rag_scope
    pinned_project_id: int | None  # a "workspace view": the model may not change the scope
    created_at: dt.datetime  # UTC, naive
    updated_at: dt.datetime  # UTC, naive; bumped by every stored turn and scope change


# Where a page of conversations ends: (UPDATED_AT, CONVERSATION_ID) of its last one.
ConversationKey = tuple[dt.datetime, int]
ChunkRef = tuple[str, int, int]  # (source_type, source_id, chunk_ix)
# MESSAGES.RETRIEVED keeps a turn's best 64 chunk refs: 64 x 53 ASCII characters at most ('["project",<19
# digits>,<19 digits>]' and a comma) is 3,392 bytes of compact JSON, inside Oracle's VARCHAR2(4000 BYTE).
MAX_RETRIEVED = 64
ANCHOR_TEXT = re.compile(r"\[(TASK|SPRINT|PROJECT|DOC) #([1-9][0-9]{0,18})\]")
LLM_ERRORS = ("timeout", "unreachable", "bad_response", "ungrounded", "incomplete", "contradicted")
# MESSAGES.TRACKER_QUERY (SQLite V14 / Oracle V19, VARCHAR2(4000 BYTE)): a larger query is not stored (a follow-up
# then has no query to edit, and reads as a question of its own).
MAX_QUERY_BYTES = 4000


@dataclass(frozen=True)
class TurnFacts:
    """What an assistant turn rested on, stored with it (MESSAGES.FOCUS, RETRIEVED, RAG_SCOPE, LLM_ERROR):
    the conversation's focus after the turn (an anchor), the chunks it was given, the scope retrieval
    applied and why the LLM's answer was not used. Validated here so both engines store the same.

    ``entities`` is every (source_type, source_id) the answer rests on — all it cited or names by anchor,
    its focus, everything it was given — sorted, each once, with no limit (MESSAGE_ENTITIES, SQLite V12 /
    Oracle V17): the citations and ``retrieved`` are capped for the columns that hold them, and withdrawal
    must see past those caps (issue 26 point 7). Empty for user turns and answers stored before V12."""

    focus: str | None = None
    retrieved: tuple[ChunkRef, ...] = ()
    rag_scope: str | None = None
    llm_error: str | None = None
    entities: tuple[tuple[SourceType, int], ...] = ()
    query: str | None = None  # the typed tracker query the answer ran (JSON: app/rag/understanding/query.py)

    def __post_init__(self) -> None:
        if self.query is not None and (not isinstance(self.query, str) or not self.query.startswith("{")
                                       or len(self.query.encode()) > MAX_QUERY_BYTES):
            raise ValueError(f"query must be a JSON object of at most {MAX_QUERY_BYTES} bytes")
        if self.focus is not None and (not isinstance(self.focus, str) or not ANCHOR_TEXT.fullmatch(self.focus)):
            raise ValueError(f"focus must be an anchor such as [TASK #12], got {self.focus!r}")
        if len(self.retrieved) > MAX_RETRIEVED:
            raise ValueError(f"at most {MAX_RETRIEVED} retrieved chunks are stored, got {len(self.retrieved)}")
        for ref in self.retrieved:
            ok = (isinstance(ref, tuple) and len(ref) == 3 and ref[0] in SOURCE_TYPES
                  and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_ID for v in ref[1:]))
            if not ok:
                raise ValueError(f"a retrieved chunk is (source_type, source_id, chunk_ix), got {ref!r}")
        for ref in self.entities:
            ok = (isinstance(ref, tuple) and len(ref) == 2 and ref[0] in SOURCE_TYPES
                  and isinstance(ref[1], int) and not isinstance(ref[1], bool) and 0 < ref[1] <= MAX_ID)
            if not ok:
                raise ValueError(f"an entity is (source_type, source_id), got {ref!r}")
        if list(self.entities) != sorted(set(self.entities)):  # the order both engines read them back in
            raise ValueError("an answer's entities are sorted, each once")
        if self.rag_scope is not None:
            check_rag_scope(self.rag_scope)
        if self.llm_error is not None and self.llm_error not in LLM_ERRORS:
            raise ValueError(f"llm_error must be one of {', '.join(LLM_ERRORS)}, got {self.llm_error!r}")

    def retrieved_json(self) -> str | None:
        return json.dumps([list(r) for r in self.retrieved], separators=(",", ":")) if self.retrieved else None


def retrieved_of(stored: str | None) -> tuple[ChunkRef, ...]:
    """MESSAGES.RETRIEVED as refs (NULL: none recorded)."""
    return tuple((str(t), int(i), int(x)) for t, i, x in json.loads(stored)) if stored else ()


@dataclass(frozen=True)
class Message:
    message_id: int
    conversation_id: int
    role: MessageRole
    content: str
    citations: tuple[str, ...]  # anchors such as "[TASK #12]", in the order cited
    created_at: dt.datetime  # UTC, naive
    facts: TurnFacts = TurnFacts()  # assistant turns: what the answer rested on (user turns: empty)


def answer_range(messages: Sequence[Message]) -> tuple[int, int] | None:
    """The first and last answer ids among ``messages``: the range an engine reads their entities in."""
    answers = [m.message_id for m in messages if m.role == "assistant"]
    return (min(answers), max(answers)) if answers else None


def with_entities(messages: Sequence[Message], rows: Iterable[tuple[int, str, int]]) -> list[Message]:
    """``messages`` with the entities of their answers from MESSAGE_ENTITIES rows (message id, type, id), which
    come in (message, type, id) order: the order TurnFacts keeps them in."""
    found: dict[int, list[tuple[SourceType, int]]] = {}
    for message_id, source_type, source_id in rows:
        found.setdefault(int(message_id), []).append((source_type, int(source_id)))  # type: ignore[arg-type]
    return [replace(m, facts=replace(m.facts, entities=tuple(found[m.message_id]))) if m.message_id in found else m
            for m in messages]


T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a keyset-paged list: the rows after a key, how many rows match in all, and whether a
    row follows the last one (the engines read one row past the page to know)."""

    items: list[T]
    total: int
    more: bool


@dataclass(frozen=True)
class ProjectMember:
    """One PROJECT_MEMBERS row: ``employee_id`` is a member of ``project_id`` since ``added_at``, set by
    ``source`` (a manual PUT, a tracker sync, a mapping file, or derived from activity)."""

    project_id: int
    employee_id: int
    source: MemberSource
    added_at: dt.datetime


@dataclass(frozen=True)
class ProjectCard:
    """What project matching reads: every employee may see every project (project chunks are public)."""

    project_id: int
    name: str
    description: str | None
    auto_summary: str | None


@dataclass(frozen=True)
class SummarySource:
    """What a project's auto-summary is made from, and what it was last made from (the summary job)."""

    project_id: int
    name: str
    description: str | None
    tasks: tuple[tuple[str, str | None], ...]  # (title, status) of its most recent tasks, newest first
    auto_summary: str | None
    auto_summary_at: dt.datetime | None  # UTC, naive
    summary_inputs: str | None  # the fingerprint stored with the summary (app/rag/summaries.py)


# --- names a question may use (people, projects, sprints) ------------------------------------

@dataclass(frozen=True)
class Person:
    employee_id: int
    first_name: str | None
    last_name: str | None

    @property
    def name(self) -> str:
        return " ".join(p for p in (self.first_name, self.last_name) if p) or f"employee {self.employee_id}"


@dataclass(frozen=True)
class Named:
    """A project or sprint the question may name (``project_id``: a sprint's project)."""

    id: int
    name: str
    project_id: int | None = None


@dataclass(frozen=True)
class Vocabulary:
    """The names a question may use, read from the database (names are not access-controlled: every
    employee sees every project and sprint, and people's names are the team's directory)."""

    people: tuple[Person, ...] = ()
    projects: tuple[Named, ...] = ()
    sprints: tuple[Named, ...] = ()



# Task statuses that are finished: a finished task is never overdue, and never "open".
DONE_STATUSES = ("DONE", "CLOSED", "CANCELLED", "RESOLVED")
MAX_FIND_TASKS = 500  # the model's tool asks for at most 100; counts and sums read up to this many


@dataclass(frozen=True)
class TaskQuery:
    """Structured task search (the model's find_tasks tool); every value is bound by the engines.

    ``status`` and ``priority`` match case-insensitively; ``overdue_on``: due before that date and
    not finished (DONE_STATUSES); ``unassigned``: no assignee (only managers and admins see those);
    ``open_only``: not finished; ``due_after`` / ``due_before``: due on or after / strictly before.
    """

    status: str | None = None
    priority: str | None = None
    sprint_id: int | None = None
    project_id: int | None = None
    assignee_id: int | None = None
    overdue_on: dt.date | None = None
    unassigned: bool = False
    limit: int = 20
    open_only: bool = False
    due_after: dt.date | None = None
    due_before: dt.date | None = None

    def __post_init__(self) -> None:
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or not 1 <= self.limit <= MAX_FIND_TASKS:
            raise ValueError(f"limit must be 1..{MAX_FIND_TASKS}, got {self.limit!r}")
        for name in ("sprint_id", "project_id", "assignee_id"):
            value = getattr(self, name)
            if value is not None and not is_id(value):
                raise ValueError(f"{name} must be a positive id, got {value!r}")
        for name in ("status", "priority"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not 0 < len(value) <= 40):
                raise ValueError(f"{name} must be 1..40 characters, got {value!r}")
        for name in ("overdue_on", "due_after", "due_before"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, dt.date) or isinstance(value, dt.datetime)):
                raise ValueError(f"{name} must be a date, got {value!r}")


# The columns find_tasks returns, in order (dict keys of each result).
# external_key: an imported task's key in its tracker ("PAY-1210"), None for a native one.
TASK_FIELDS = ("task_id", "title", "status", "priority", "sprint_id", "sprint_name", "project_id", "project_name",
               "assignee_id", "assignee_name", "expected_end_date", "story_points", "external_key")
