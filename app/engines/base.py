"""The contract both engines satisfy. Services depend on this module, never on an engine's SQL."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from app.domain import (Caller, ChunkWrite, Conversation, DirtyRow, ConversationKey, Message, Page, ProjectCard,
    ProjectMember, RagStatus, Scope, SearchMode, SearchResult, SourceType, SummarySource, TaskQuery, TurnFacts, Vocabulary)
from app.records_model import SourceRecord, TaskLink
from app.entities import Condition, EntitySpec
from app.rag.erasure import DocumentsPolicy, ErasureJob, PersonString, ProofLine, PurgeStep, Redaction, Step
from app.rag.understanding.query import TrackerQuery, TrackerResult
from app.rag.understanding.vocabulary import TrackerValues


class EngineError(RuntimeError):
    """A database problem an operator can act on; the message says what to do."""


class ModelMissingError(EngineError):
    """The embedding model is not loaded in the database (Oracle ORA-40284)."""


class EmbeddingModelError(EngineError):
    """The configured embedding model cannot serve this index: not installed, or the stored vectors
    were made by another model (never compared with this one's); the message says what to do."""


class SchemaNotMigratedError(EngineError):
    """The database schema is behind this code (migrations pending, or none applied yet): every data
    call would fail on a missing table or column. The message names the pending versions and says to
    run ``ragctl migrate``; nothing is changed until then."""


class ConflictError(EngineError):
    """A write broke a constraint (unknown foreign key, duplicate unique value)."""


class ValueTooLongError(EngineError):
    """A text value does not fit its column (Oracle ORA-12899 / ORA-01461): the client's input, answered
    as a 422 naming ``field`` (the API field, a lower-case column name) when the engine can tell which."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnavailableError(EngineError):
    """The database cannot take the request now (disk full, read-only file or file system, cannot open,
    I/O error): the caller should retry later, the operator must act; nothing was changed."""

    def __init__(self, message: str, retry_after_s: int = 30) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class OwnedDocumentsError(ConflictError):
    """Erasure was asked without saying what happens to the documents the employee owns."""

    def __init__(self, employee_id: int, count: int) -> None:
        super().__init__(f"employee {employee_id} owns {count} document(s)")
        self.employee_id = employee_id
        self.count = count


class IndexingTx(Protocol):
    """One unit of indexing work: everything done through it commits together or not at all.

    Claimed queue rows are deleted only through ``delete_dirty`` in the same unit, so a crash or
    an exception leaves them queued.

    No stale write wins (DESIGN.md, Write path 6): writes and deletes derived from a source are
    applied only if the source, re-read under a lock at write time, still equals what
    ``load_sources`` returned (a source never loaded counts as absent). A changed source keeps
    its current chunks and is queued again.
    """

    def claim(self, limit: int, max_attempts: int) -> list[DirtyRow]:
        """Oldest queue rows with ATTEMPTS < max_attempts, at most ``limit``, locked where the engine can."""
        ...

    def load_sources(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        """Current source rows (missing ids are absent: the entity was deleted)."""
        ...

    def chunk_hashes(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, dict[int, str]]:
        """Stored CONTENT_HASH by source id, then CHUNK_IX."""
        ...

    def write_chunks(self, chunks: Sequence[ChunkWrite]) -> None:
        """Embed and upsert by (SOURCE_TYPE, SOURCE_ID, CHUNK_IX)."""
        ...

    def delete_chunks(self, source_type: SourceType, source_id: int, from_ix: int = 0) -> None:
        """Delete the source's chunks with CHUNK_IX >= from_ix (0: all of them)."""
        ...

    def delete_dirty(self, dirty_ids: Sequence[int]) -> None: ...


class RecordsTx(Protocol):
    """The record writes of one ``Engine.batch()`` transaction: everything done through it commits together on a
    clean exit, or (any exception out of the block) not at all. The same writes as the engine's own methods, so
    the triggers queue what they change and access changes at once. A ConflictError caught inside the block
    undoes only its own statement (both engines roll back the failed statement, not the transaction)."""

    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]: ...

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None: ...

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None: ...

    def delete(self, entity: EntitySpec, row_id: int) -> bool: ...

    def find_by_external(self, entity: EntitySpec, source: str, keys: Sequence[str] | None) -> dict[str, int]: ...

    def replace_task_links(self, task_id: int, links: Sequence[TaskLink]) -> bool: ...

    def replace_task_sprints(self, task_id: int, sprint_ids: Sequence[int]) -> bool:
        """Make the task's TASK_SPRINTS (every sprint it was in; TASKS.SPRINT_ID stays the latest) exactly these ids;
        only what differs is written (True if anything was). ConflictError if the task or a sprint does not exist,
        ValueError for an id that is not one (nothing written)."""
        ...

    def set_task_restricted(self, task_id: int, restricted: bool) -> bool: ...  # TASKS.RESTRICTED; True: changed

    def set_sync_cursor(self, source: str, value: str | None) -> None: ...

    def queue_mark(self) -> int:
        """The newest RAG_DIRTY id now (0: none): what ``coalesce_queued`` keeps its hands off."""
        ...

    def coalesce_queued(self, after: int) -> int:
        """Delete the queue rows newer than ``after`` that a newer row of the same entity supersedes (never a row
        that failed; on Oracle never one a worker holds): one row per entity for what an import's pass queued.
        The number deleted."""
        ...


class Engine(Protocol):
    name: str  # "sqlite" | "oracle"
    model_name: str
    dimensions: int

    def migrate(self) -> list[str]:
        """Apply pending migrations; return the versions applied now."""
        ...

    def close(self) -> None: ...

    def wipe(self) -> None:
        """Delete every row of every table (source, queue, chunks). For tests and `ragctl demo --reset`."""
        ...

    def ping(self) -> None:
        """Raise EngineError unless the database answers, its schema is migrated (SchemaNotMigratedError
        otherwise) and it takes writes now (UnavailableError: a write was tried and failed)."""
        ...

    def check_schema(self) -> None:
        """Raise SchemaNotMigratedError while migrations are pending; cheap once they are not (a migrated
        schema stays migrated, so the first success is remembered). Writes nothing."""
        ...

    # --- people ---------------------------------------------------------------------------
    def caller(self, employee_id: int) -> Caller | None:
        """The employee as the access rule reads them: their role, and under RAG_ACCESS_RULE=project a
        developer's member projects (read now: a membership written before this call counts)."""
        ...

    def caller_by_telegram(self, telegram_id: str) -> Caller | None: ...

    # --- project membership (PROJECT_MEMBERS: the project access rule) ----------------------------
    def put_project_member(self, project_id: int, employee_id: int, source: str = "manual") -> ProjectMember | None:
        """Idempotent: the row (an existing one keeps its ADDED_AT, takes ``source``); None when the project or
        the employee does not exist. ValueError for a source outside MEMBER_SOURCES."""
        ...

    def delete_project_member(self, project_id: int, employee_id: int) -> bool: ...

    def project_members(self, project_id: int, *, limit: int, offset: int = 0,
                        after: int | None = None) -> Page[ProjectMember] | None:
        """Members by employee id (those after ``after``, skipping ``offset``); None for an unknown project."""
        ...

    def project_membership(self, project_id: int, employee_id: int) -> ProjectMember | None: ...

    def replace_project_members(self, project_id: int, source: str, employee_ids: Sequence[int]) -> tuple[int, int]:
        """In one transaction, ``source``'s members of the project become exactly the existing employees among
        ``employee_ids``; other sources' rows are never touched (a person another source or a PUT made a
        member stays one). Returns (added, removed); LookupError for an unknown project."""
        ...

    # --- source records (CRUD) --------------------------------------------------------------
    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]: ...

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None: ...

    def list_records(self, entity: EntitySpec, where: Sequence[Condition], after: int | None,
                     limit: int) -> Page[dict[str, Any]]:
        """Rows matching every condition with a primary key above ``after`` (None: from the first), at
        most ``limit``, by primary key; ``total`` counts every matching row (ids are never reused, so a
        row inserted meanwhile lands after the last page and no page shifts)."""
        ...

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None: ...

    def delete(self, entity: EntitySpec, row_id: int) -> bool: ...

    # --- imported rows (app/sources: a tracker's issues written through the same path as the API) -------
    def batch(self) -> AbstractContextManager[RecordsTx]:
        """One write transaction for a page of a sync: its creates, updates, deletes, links and cursor commit
        together, so a crash between two pages replays the uncommitted one (idempotent by external key). Fetch
        the page before entering: the block holds the write lock (SQLite) or row locks (Oracle) until it ends."""
        ...

    def find_by_external(self, entity: EntitySpec, source: str, keys: Sequence[str] | None) -> dict[str, int]:
        """Ids by external key (``entity.external``: EXTERNAL_KEY, a person's EXTERNAL_ID) of the rows of one
        source with these keys; keys not found are absent; ``keys=None``: every row of the source (what a
        reconciliation compares with the tracker's keys). ValueError for an entity without external keys or a
        key or source that is not 1..200 (source: 400) characters without control characters (nothing read)."""
        ...

    def replace_task_links(self, task_id: int, links: Sequence[TaskLink]) -> bool:
        """Make the task's TASK_LINKS exactly ``links`` (one per link type and target key, the first wins); a link
        without ``target_task_id`` takes the id of the task of the same source with that key, if imported. Only
        what differs is written (True if anything was), so the triggers queue the task only on a change.
        ConflictError if there is no such task or a target id names no task."""
        ...

    def sync_cursor(self, source: str) -> str | None:
        """The source's stored cursor (SYNC_CURSORS), None if none was ever stored."""
        ...

    def set_sync_cursor(self, source: str, value: str | None) -> None:
        """Store the source's cursor in a transaction of its own (in a page's own transaction: ``batch()``);
        ValueError for a value over 4,000 bytes in UTF-8."""
        ...

    def tasks_by_key(self, key: str) -> list[int]:
        """Ids of the tasks with this EXTERNAL_KEY in any source, lowest first; no access rule (the caller
        applies it: app/services/entities.py)."""
        ...

    # --- write path -------------------------------------------------------------------------
    def indexing(self) -> AbstractContextManager[IndexingTx]: ...

    def record_failure(self, retry_after_s: Mapping[int, float], error: str) -> None:
        """ATTEMPTS+1 and LAST_ERROR on these rows (DIRTY_ID -> seconds before the row may be claimed
        again), in a transaction of its own."""
        ...

    def enqueue_backfill(
        self,
        source_types: Sequence[SourceType],
        project_id: int | None = None,
        force: bool = False,
        limit: int | None = None,
        dry_run: bool = False,
    ) -> int:
        """Queue UPSERTs for source rows without chunks (every row with force); return the count."""
        ...

    def retry_stuck(self) -> int:
        """Reset ATTEMPTS of rows past max attempts so the worker takes them again."""
        ...

    # --- read path --------------------------------------------------------------------------
    def embed_query(self, text: str) -> np.ndarray:
        """The question's vector, made by the same model that embedded the chunks."""
        ...

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of passages (one row each, L2-normalised), as chunks are embedded: the sentences an
        answer chooses among by meaning. The caller bounds how many."""
        ...

    def search(
        self,
        query_vector: np.ndarray,
        query_text: str,
        caller: Caller,
        k: int,
        scope: Scope,
        mode: SearchMode,
    ) -> SearchResult: ...

    def status(self, max_attempts: int) -> RagStatus: ...

    # --- conversations (storage only: the service checks conversation.employee_id) ------------
    def create_conversation(self, employee_id: int, rag_scope: str, pinned_project_id: int | None,
                            title: str | None) -> Conversation:
        """A new conversation; ConflictError if the employee or the pinned project does not exist,
        ValueError (nothing written) for a malformed rag_scope (app.domain.check_rag_scope)."""
        ...

    def get_conversation(self, conversation_id: int) -> Conversation | None: ...

    def list_conversations(self, employee_id: int, after: ConversationKey | None,
                           limit: int) -> Page[Conversation]:
        """The employee's conversations, most recently updated first (ties: the newest id first), those
        after the key ``(updated_at, conversation_id)`` of the previous page's last one."""
        ...

    def set_conversation_scope(self, conversation_id: int, rag_scope: str) -> Conversation | None:
        """Store a new scope (and bump UPDATED_AT); None if there is no such conversation, or it is pinned to
        another project than ``rag_scope`` names (the write itself checks the pin, so a concurrent pin wins)."""
        ...

    def set_conversation_pin(self, conversation_id: int, rag_scope: str,
                             pinned_project_id: int | None) -> Conversation | None:
        """Store a new scope and pin (a project id, or None to unpin) together; None if there is no such
        conversation, ConflictError if the pinned project does not exist."""
        ...

    def delete_conversation(self, conversation_id: int) -> bool:
        """Delete it with its messages; False if there was none."""
        ...

    def append_turn(self, conversation_id: int, user_text: str, assistant_text: str,
                    citations: Sequence[str], rag_scope: str | None = None,
                    facts: TurnFacts = TurnFacts()) -> tuple[Message, Message]:
        """Store the user's message and the answer in ONE transaction and bump UPDATED_AT: both or
        neither. ``rag_scope`` (a scope the model's tool chose this turn) is stored in the same
        transaction; ``facts`` (what the answer rested on) with the answer, ``facts.entities`` as
        MESSAGE_ENTITIES rows (every one: read back with the message by list_messages and
        recent_messages, deleted with it). ConflictError if the
        conversation does not exist, a row is refused, or ``rag_scope`` would move it off the project it
        was pinned to meanwhile (nothing is stored)."""
        ...

    def list_messages(self, conversation_id: int, after: int | None, limit: int) -> Page[Message]:
        """Oldest first: the messages with an id above ``after``."""
        ...

    def recent_messages(self, conversation_id: int, n: int) -> list[Message]:
        """The last n messages, oldest first (the prompt's memory)."""
        ...

    # --- what the model's tools read ------------------------------------------------------------
    def find_tasks(self, caller: Caller, query: TaskQuery) -> list[dict[str, Any]]:
        """Tasks matching every filter of ``query`` under the search access rule, applied in SQL
        (app/rag/access.py: managers/admins every task; developers only tasks assigned to them),
        ordered by TASK_ID; each a dict of app.domain.TASK_FIELDS."""
        ...

    def run_tracker_query(self, caller: Caller, query: TrackerQuery) -> TrackerResult:
        """The typed query (app/rag/understanding/query.py) in SQL under find_tasks' access rule. Always ``total``
        (every matching task) and ``points`` (their SUM(STORY_POINTS)), from one aggregate statement. ``list``: the
        first ``limit`` rows in ``order`` (NULLs last, ties by TASK_ID), each TASK_FIELDS plus issue_type,
        status_name, reporter_id, reporter_name, created_at, updated_at, resolved_at, resolution. ``field``: the
        first row in order with, besides, environment, parent_id, parent_key, resolved_by_id and the tuples labels,
        components, fix_versions, affects_versions (RECORD_FIELDS: due is expected_end_date, assignee and reporter
        their id and name, sprint and project their id and name). ``group``: COUNT and SUM per value of
        ``group_by`` in SQL (a multi-valued field counts a task in each of its values' groups, a task with none
        in the None group), ranked by ``measure``, ties by label; at most 1,000 groups. ``count``/``points``:
        the aggregate only."""
        ...

    def tracker_values(self, caller: Caller) -> TrackerValues:
        """The words a question may use, read from the data: the distinct values (with counts) of the text and
        multi-valued fields of the tasks the caller may see (a value only on hidden tasks reads as missing), and
        every sprint, project and person (public names)."""
        ...

    def projects_for_matching(self) -> list[ProjectCard]:
        """Every project with its auto-summary, by PROJECT_ID."""
        ...

    def set_project_summary(self, project_id: int, summary: str | None, inputs: str | None = None) -> bool:
        """Store a project's auto-summary, AUTO_SUMMARY_AT and the fingerprint of what it was made from
        (AUTO_SUMMARY_INPUTS; None: unknown, the summary job remakes it); False if there is no such project."""
        ...

    def project_summary(self, project_id: int) -> tuple[str | None, dt.datetime | None] | None:
        """(AUTO_SUMMARY, AUTO_SUMMARY_AT) of one project; None if there is no such project."""
        ...

    def summary_sources(self, max_tasks: int) -> list[SummarySource]:
        """Every project, by PROJECT_ID, with its ``max_tasks`` most recent tasks (highest TASK_ID first)
        and its stored summary, time and fingerprint (the summary job's input)."""
        ...

    def vocabulary(self) -> Vocabulary:
        """Every employee's id and name, every project's and sprint's id and name (by id): the names a
        question may use (app/rag/task_questions.py)."""
        ...

    # --- one entity by id (the service applies the access rule: app/services/entities.py) -------
    def load_records(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        """The current source rows of these ids, as the worker loads them for the chunk templates
        (missing ids are absent)."""
        ...

    # --- erasure (the job's steps, the drain and the verdict: app/services/erasure.py) -----------
    def erase_employee(self, employee_id: int, documents: DocumentsPolicy | None, reassign_to: int | None,
                       seal_key: bytes) -> ErasureJob | None:
        """The job's first step, in one transaction: read the person's strings (app.rag.erasure.person_strings)
        and write the job row (ERASURE_JOBS, step "delete", the strings sealed with ``seal_key``), delete the
        employee's conversations and comments, delete or reassign their documents, unassign their tasks,
        delete the employee. None if there is no such employee; OwnedDocumentsError (nothing changed) if they
        own documents and ``documents`` is None. The triggers queue the affected chunks as for any write."""
        ...

    def erasure_job(self, employee_id: int) -> ErasureJob | None:
        """The job row of this employee's erasure, if one was ever started (it outlives the employee)."""
        ...

    def unfinished_erasures(self) -> list[ErasureJob]:
        """Jobs not at their last step, by employee id (stopped, or not proven)."""
        ...

    def record_erasure_step(self, employee_id: int, step: Step, outcome: dict, verdict: str | None) -> None:
        """Record the last step done, what the steps found so far and the verdict, in a transaction of its own."""
        ...

    def redact_copies(self, strings: Sequence[PersonString]) -> list[Redaction]:
        """In one transaction, replace every copy of the strings with app.rag.erasure.REDACTED where other
        people's data quotes a person (messages, conversation titles, project auto-summaries, queue errors);
        never in the tracker's own tables. Idempotent."""
        ...

    def purge_indexes(self) -> list[PurgeStep]:
        """Drop deleted rows from the lexical index (SQLite: FTS5 optimize; Oracle: text index sync and
        FULL optimize)."""
        ...

    def compact(self) -> list[PurgeStep]:
        """Make deleted rows unrecoverable from the engine's files where it can (SQLite: WAL checkpoint,
        VACUUM; Oracle: nothing it can reach, said in the step)."""
        ...

    def erasure_proof(self, strings: Sequence[PersonString]) -> list[ProofLine]:
        """Search every place the engine keeps data for each string; one line per string and place."""
        ...

    def forget_held_strings(self, employee_id: int, held: bytes | None) -> list[PurgeStep]:
        """Drop the job row's held strings (``held``: what it held, to check it is gone from the files)."""
        ...


def batched(items: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
