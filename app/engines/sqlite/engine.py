"""The embedded engine: one SQLite file, sqlite-vec for durable vectors, FTS5 for lexical search,
an in-memory exact vector index for speed, and the in-process MiniLM for embeddings.

Concurrency: one apsw connection per thread (the FastAPI threadpool and the APScheduler thread
share the engine), WAL so readers never wait for the writer, and every write transaction starts
with BEGIN IMMEDIATE so two writers queue on busy_timeout instead of failing on lock upgrade.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import apsw
import numpy as np
import sqlite_vec

from app.config import Settings
from app.domain import (
    SOURCE_TYPES,
    Caller,
    ChunkWrite,
    DirtyRow,
    DocSource,
    FailingRow,
    ProjectSource,
    RagStatus,
    Role,
    Scope,
    SearchHit,
    SearchMode,
    SearchResult,
    SourceRecord,
    SourceType,
    SprintSource,
    TaskSource,
)
from app.engines.base import ConflictError, EngineError, batched
from app.engines.sqlite import faults
from app.engines.sqlite import migrate as migrations
from app.engines.sqlite.vector_index import VectorIndex
from app.entities import EntitySpec
from app.rag.access import audience, visible_audiences
from app.rag.fusion import candidate_depth, reciprocal_rank_fusion

BUSY_TIMEOUT_MS = 10_000
IN_BATCH = 500  # ids per IN (...) list, well under SQLite's bind limit
CHANGE_LOG_KEEP = 100_000  # RAG_CHUNK_CHANGES rows kept for lagging indexes in other processes
FAILING_ROWS_SHOWN = 10
MAX_QUERY_TOKENS = 64

# source type -> (table, primary key, column holding its project for backfill filters)
_SOURCE_TABLES: dict[str, tuple[str, str, str]] = {
    "task": ("TASKS", "TASK_ID", "PROJECT_ID"),
    "sprint": ("SPRINTS", "SPRINT_ID", "PROJECT_ID"),
    "project": ("PROJECTS", "PROJECT_ID", "PROJECT_ID"),
    "doc": ("DOCUMENTS", "DOCUMENT_ID", "PROJECT_ID"),
}
_NOW = "strftime('%Y-%m-%dT%H:%M:%f', 'now')"
_WORD = re.compile(r"\w+", re.UNICODE)


class SQLiteEngine:
    name = "sqlite"

    def __init__(self, path: str, embedder: Any | None = None) -> None:
        self.path = path
        self._embedder = embedder
        self._embedder_lock = threading.Lock()
        self._local = threading.local()
        self._connections: list[apsw.Connection] = []
        self._connections_lock = threading.Lock()
        self._index: VectorIndex | None = None
        self._index_lock = threading.Lock()
        # Claimed-but-unfinished queue rows of this process: SQLite has no SKIP LOCKED, so two
        # in-process workers at least skip each other's rows (another process may still overlap,
        # which is safe: upserts are idempotent and queue rows are deleted by exact id).
        self._inflight: set[int] = set()
        self._inflight_lock = threading.Lock()
        self._closed = False

    @classmethod
    def open(cls, settings: Settings, embedder: Any | None = None) -> SQLiteEngine:
        path = settings.sqlite_path
        if path != ":memory:":
            Path(path).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        return cls(path, embedder)

    # --- model ----------------------------------------------------------------------------------
    @property
    def embedder(self):
        if self._embedder is None:
            with self._embedder_lock:
                if self._embedder is None:  # loading ONNX Runtime is slow: only when first needed
                    from app.embedding.onnx_minilm import MiniLMEmbedder

                    self._embedder = MiniLMEmbedder()
        return self._embedder

    @property
    def model_name(self) -> str:
        if self._embedder is None:
            from app.embedding.onnx_minilm import MODEL_NAME

            return MODEL_NAME
        return self._embedder.model_name

    @property
    def dimensions(self) -> int:
        if self._embedder is None:
            from app.embedding.onnx_minilm import DIMENSIONS

            return DIMENSIONS
        return self._embedder.dimensions

    def embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed([text])[0]

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
            raise faults.unavailable(exc, self.path) or EngineError(
                f"cannot open SQLite database {self.path!r} with sqlite-vec: {exc}") from exc
        try:
            # SQLite silently opens a write-protected file read-only; every write would then fail.
            faults.refuse_read_only(conn, self.path)
            conn.set_busy_timeout(BUSY_TIMEOUT_MS)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except BaseException as exc:
            conn.close()
            if isinstance(exc, apsw.Error):
                raise faults.unavailable(exc, self.path) or EngineError(
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
            fault = faults.unavailable(exc, self.path)
            if fault is None:
                raise
            raise fault from exc

    def close(self) -> None:
        self._closed = True
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()

    # --- schema ---------------------------------------------------------------------------------
    def migrate(self) -> list[str]:
        return migrations.migrate(self.conn)

    def ping(self) -> None:
        try:
            pending = migrations.verify(self.conn, migrations.discover())
        except apsw.Error as exc:
            raise EngineError(f"SQLite database {self.path!r} does not answer: {exc}") from exc
        if pending:
            names = ", ".join(m.path.name for m in pending)
            raise EngineError(f"SQLite schema is not migrated (pending: {names}); run `ragctl migrate`")
        faults.check_writable(self.conn, self.path)  # ready means writes work too

    def wipe(self) -> None:
        with self._write() as conn:
            for table in ("COMMENTS", "TASKS", "SPRINTS", "DOCUMENTS", "PROJECTS", "EMPLOYEES",
                          "RAG_CHUNK", "RAG_VEC", "RAG_DIRTY", "RAG_CHUNK_CHANGES"):
                conn.execute(f"DELETE FROM {table}")
            # A new epoch tells every process's vector index to reload from scratch.
            conn.execute("UPDATE RAG_META SET VALUE = VALUE + 1 WHERE KEY = 'epoch'")

    # --- people ---------------------------------------------------------------------------------
    def caller(self, employee_id: int) -> Caller | None:
        row = self.conn.execute("SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE EMPLOYEE_ID = ?", (employee_id,)).fetchone()
        return Caller(row[0], Role(row[1])) if row else None

    def caller_by_telegram(self, telegram_id: str) -> Caller | None:
        row = self.conn.execute(
            "SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE TELEGRAM_ID = ?", (str(telegram_id),)
        ).fetchone()
        return Caller(row[0], Role(row[1])) if row else None

    # --- CRUD: identifiers only from EntitySpec, every value bound --------------------------------
    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
        entity.check_columns(values)
        columns = [c for c in entity.columns if c in values]
        select = ", ".join(entity.all_columns)
        if columns:
            sql = (f"INSERT INTO {entity.table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) "
                   f"RETURNING {select}")
        else:
            sql = f"INSERT INTO {entity.table} DEFAULT VALUES RETURNING {select}"
        with self._constraints(entity), self._write() as conn:
            row = conn.execute(sql, [_bind(values[c]) for c in columns]).fetchone()
        return _row(entity, row)

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {', '.join(entity.all_columns)} FROM {entity.table} WHERE {entity.pk} = ?", (row_id,)
        ).fetchone()
        return _row(entity, row) if row else None

    def list(self, entity: EntitySpec, limit: int, offset: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            f"SELECT {', '.join(entity.all_columns)} FROM {entity.table} ORDER BY {entity.pk} LIMIT ? OFFSET ?",
            (max(0, int(limit)), max(0, int(offset))),
        ).fetchall()
        return [_row(entity, r) for r in rows]

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None:
        entity.check_columns(values)
        columns = [c for c in entity.columns if c in values]
        if not columns:
            return self.get(entity, row_id)
        sql = (f"UPDATE {entity.table} SET {', '.join(f'{c} = ?' for c in columns)} WHERE {entity.pk} = ? "
               f"RETURNING {', '.join(entity.all_columns)}")
        with self._constraints(entity), self._write() as conn:
            row = conn.execute(sql, [*(_bind(values[c]) for c in columns), row_id]).fetchone()
        return _row(entity, row) if row else None

    def delete(self, entity: EntitySpec, row_id: int) -> bool:
        with self._constraints(entity), self._write() as conn:
            conn.execute(f"DELETE FROM {entity.table} WHERE {entity.pk} = ?", (row_id,))
            return conn.changes() > 0

    @contextmanager
    def _constraints(self, entity: EntitySpec) -> Iterator[None]:
        try:
            yield
        except apsw.ConstraintError as exc:
            raise ConflictError(f"{entity.name}: {exc}") from exc

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
            tx._apply()
        finally:
            with self._inflight_lock:
                self._inflight.difference_update(tx._claimed)

    def record_failure(self, dirty_ids: Sequence[int], error: str) -> None:
        with self._write() as conn:
            for ids in batched(list(dirty_ids), IN_BATCH):
                conn.execute(
                    f"UPDATE RAG_DIRTY SET ATTEMPTS = ATTEMPTS + 1, LAST_ERROR = ?, LAST_ATTEMPT_AT = {_NOW} "
                    f"WHERE DIRTY_ID IN ({_marks(ids)})",
                    (error[:4000], *ids),
                )

    def enqueue_backfill(
        self,
        source_types: Sequence[SourceType],
        project_id: int | None = None,
        force: bool = False,
        limit: int | None = None,
        dry_run: bool = False,
    ) -> int:
        unknown = set(source_types) - set(SOURCE_TYPES)
        if unknown:
            raise ValueError(f"unknown source type(s): {', '.join(sorted(unknown))}")
        total = 0
        with self._write() as conn:
            for source_type in [t for t in SOURCE_TYPES if t in source_types]:
                if limit is not None and total >= limit:
                    break
                table, pk, project_column = _SOURCE_TABLES[source_type]
                where, binds = ["1 = 1"], {"st": source_type, "project": project_id}
                if project_id is not None:
                    where.append(f"s.{project_column} = :project")
                if not force:
                    where.append(f"NOT EXISTS (SELECT 1 FROM RAG_CHUNK c WHERE c.SOURCE_TYPE = :st AND c.SOURCE_ID = s.{pk})")
                    where.append(f"NOT EXISTS (SELECT 1 FROM RAG_DIRTY d WHERE d.SOURCE_TYPE = :st AND d.SOURCE_ID = s.{pk})")
                select = f"SELECT :st, s.{pk}, 'UPSERT' FROM {table} s WHERE {' AND '.join(where)} ORDER BY s.{pk}"
                if limit is not None:
                    select += " LIMIT :room"
                    binds["room"] = int(limit) - total
                if dry_run:
                    total += conn.execute(f"SELECT COUNT(*) FROM ({select})", binds).fetchone()[0]
                else:
                    conn.execute(f"INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) {select}", binds)
                    total += conn.changes()
        return total

    def retry_stuck(self) -> int:
        with self._write() as conn:
            conn.execute("UPDATE RAG_DIRTY SET ATTEMPTS = 0 WHERE ATTEMPTS > 0")
            return conn.changes()

    def status(self, max_attempts: int) -> RagStatus:
        conn = self.conn
        pending, oldest_age, failing, stuck = conn.execute(
            "SELECT COUNT(*), (julianday('now') - julianday(MIN(ENQUEUED_AT))) * 86400.0,"
            " COUNT(*) FILTER (WHERE ATTEMPTS > 0), COUNT(*) FILTER (WHERE ATTEMPTS >= ?) FROM RAG_DIRTY",
            (max_attempts,),
        ).fetchone()
        failing_rows = [
            FailingRow(*row) for row in conn.execute(
                "SELECT DIRTY_ID, SOURCE_TYPE, SOURCE_ID, ATTEMPTS, LAST_ERROR FROM RAG_DIRTY WHERE ATTEMPTS > 0 "
                "ORDER BY ATTEMPTS DESC, DIRTY_ID LIMIT ?", (FAILING_ROWS_SHOWN,)
            )
        ]
        chunks = dict(conn.execute("SELECT SOURCE_TYPE, COUNT(*) FROM RAG_CHUNK GROUP BY SOURCE_TYPE").fetchall())
        with self._index_lock:
            indexed = len(self._index) if self._index is not None else None
        return RagStatus(
            engine=self.name,
            pending=pending,
            oldest_pending_age_s=max(0.0, oldest_age) if oldest_age is not None else None,
            failing=failing,
            stuck=stuck,
            chunks_by_source_type={t: chunks.get(t, 0) for t in SOURCE_TYPES},
            model_name=self.model_name,
            dimensions=self.dimensions,
            failing_rows=failing_rows,
            index={"vector_search": "exact, in-memory (numpy) mirrored from sqlite-vec",
                   "lexical_search": "FTS5 bm25", "indexed_vectors": indexed},
        )

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
        if mode not in ("vector", "hybrid"):
            raise ValueError(f"unknown search mode {mode!r}")
        audiences = visible_audiences(caller)
        conn = self.conn
        # Lock + one read transaction: the index is refreshed to this snapshot and the hits'
        # text is read from the same snapshot, so a chunk cannot vanish between the two.
        with self._index_lock:
            conn.execute("BEGIN")
            try:
                index = self._fresh_index(conn)
                if mode == "vector":
                    best = index.search(query_vector, k, audiences, scope)
                    ranked = [(int(c), 1.0 - float(d)) for c, d in zip(best.chunk_ids, best.distances)]
                    distances = {c: 1.0 - s for c, s in ranked}
                else:
                    ranked, distances = self._hybrid(conn, index, query_vector, query_text, audiences, k, scope)
                hits = self._hits(conn, ranked, distances)
            finally:
                conn.execute("COMMIT")
        return SearchResult(hits, mode, "memory")

    def _fresh_index(self, conn: apsw.Connection) -> VectorIndex:
        if self._index is None:
            self._index = VectorIndex(self.dimensions)
        self._index.refresh(conn)
        return self._index

    def _hybrid(self, conn, index, query_vector, query_text, audiences, k, scope):
        depth = candidate_depth(k)
        vector_ids = [int(c) for c in index.search(query_vector, depth, audiences, scope).chunk_ids]
        lexical_ids = self._lexical(conn, query_text, audiences, scope, depth)
        fused = reciprocal_rank_fusion(vector_ids, lexical_ids)[:k]
        distances = index.distances(query_vector, [c for c, _ in fused])
        return [(int(c), float(s)) for c, s in fused], distances

    def _lexical(self, conn, text: str, audiences, scope: Scope, limit: int) -> list[int]:
        match = fts_query(text)
        if match is None:
            return []
        where, binds = scope_filter(audiences, scope)
        sql = ("SELECT c.CHUNK_ID FROM RAG_FTS JOIN RAG_CHUNK c ON c.CHUNK_ID = RAG_FTS.rowid "
               f"WHERE RAG_FTS MATCH ? {''.join(' AND ' + w for w in where)} "
               "ORDER BY bm25(RAG_FTS), c.CHUNK_ID LIMIT ?")
        return [row[0] for row in conn.execute(sql, (match, *binds, limit))]

    def _hits(self, conn, ranked: list[tuple[int, float]], distances: dict[int, float]) -> list[SearchHit]:
        if not ranked:
            return []
        ids = [c for c, _ in ranked]
        rows = {
            row[0]: row[1:] for row in conn.execute(
                f"SELECT CHUNK_ID, SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT FROM RAG_CHUNK WHERE CHUNK_ID IN ({_marks(ids)})",
                ids,
            )
        }
        hits = []
        for chunk_id, score in ranked:
            source_type, source_id, chunk_ix, content = rows[chunk_id]
            hits.append(SearchHit(source_type, source_id, chunk_ix, content, distances[chunk_id], score))
        return hits


class SQLiteIndexingTx:
    """IndexingTx for SQLite; see ``SQLiteEngine.indexing`` for the locking argument."""

    def __init__(self, engine: SQLiteEngine) -> None:
        self._engine = engine
        self._conn = engine.conn
        self._claimed: set[int] = set()
        self._ops: list[tuple] = []

    def claim(self, limit: int, max_attempts: int) -> list[DirtyRow]:
        engine = self._engine
        with engine._inflight_lock:
            skip = engine._inflight - self._claimed
            rows = self._conn.execute(
                "SELECT DIRTY_ID, SOURCE_TYPE, SOURCE_ID, ACTION, ATTEMPTS FROM RAG_DIRTY WHERE ATTEMPTS < ? "
                "ORDER BY ENQUEUED_AT, DIRTY_ID LIMIT ?",
                (max_attempts, limit + len(skip)),
            ).fetchall()
            claimed = [DirtyRow(*row) for row in rows if row[0] not in skip][:limit]
            ids = {r.dirty_id for r in claimed}
            engine._inflight |= ids
            self._claimed |= ids
        return claimed

    def load_sources(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        loader = {"task": _load_tasks, "sprint": _load_sprints, "project": _load_projects, "doc": _load_docs}
        out: dict[int, SourceRecord] = {}
        for batch in batched(list(ids), IN_BATCH):
            out.update(loader[source_type](self._conn, batch))
        return out

    def chunk_hashes(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, dict[int, str]]:
        out: dict[int, dict[int, str]] = {}
        for batch in batched(list(ids), IN_BATCH):
            for source_id, chunk_ix, digest in self._conn.execute(
                "SELECT SOURCE_ID, CHUNK_IX, CONTENT_HASH FROM RAG_CHUNK "
                f"WHERE SOURCE_TYPE = ? AND SOURCE_ID IN ({_marks(batch)})",
                (source_type, *batch),
            ):
                out.setdefault(source_id, {})[chunk_ix] = digest
        return out

    def write_chunks(self, chunks: Sequence[ChunkWrite]) -> None:
        if not chunks:
            return
        vectors = np.asarray(self._engine.embedder.embed([c.content for c in chunks]), dtype=np.float32)
        if vectors.shape != (len(chunks), self._engine.dimensions):
            raise EngineError(f"embedder returned shape {vectors.shape} for {len(chunks)} chunks")
        self._ops.append(("write", list(chunks), vectors))

    def delete_chunks(self, source_type: SourceType, source_id: int, from_ix: int = 0) -> None:
        self._ops.append(("delete", source_type, source_id, from_ix))

    def delete_dirty(self, dirty_ids: Sequence[int]) -> None:
        self._ops.append(("dirty", list(dirty_ids)))

    def _apply(self) -> None:
        if not self._ops:
            return
        with self._engine._write() as conn:
            for op in self._ops:
                if op[0] == "write":
                    upsert_chunks(conn, op[1], op[2])
                elif op[0] == "delete":
                    conn.execute(
                        "DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = ? AND SOURCE_ID = ? AND CHUNK_IX >= ?", op[1:]
                    )
                else:
                    for ids in batched(op[1], IN_BATCH):
                        conn.execute(f"DELETE FROM RAG_DIRTY WHERE DIRTY_ID IN ({_marks(ids)})", ids)
            prune_change_log(conn)
        self._ops = []


# --- SQL helpers (module level so tests and benchmarks can seed chunks the same way) ------------

def upsert_chunks(conn: apsw.Connection, chunks: Sequence[ChunkWrite], vectors: np.ndarray) -> None:
    """Upsert chunks by (SOURCE_TYPE, SOURCE_ID, CHUNK_IX), keeping CHUNK_ID, and replace vectors.

    Call inside a write transaction. vec0 checks the vector's dimension.
    """
    for chunk, vector in zip(chunks, vectors):
        aud = audience(chunk.source_type, chunk.owner_employee_id)
        chunk_id = conn.execute(
            "INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, OWNER_EMPLOYEE_ID, PROJECT_ID, SPRINT_ID,"
            " DOC_TYPE, AUDIENCE, CONTENT, CONTENT_HASH) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (SOURCE_TYPE, SOURCE_ID, CHUNK_IX) DO UPDATE SET"
            " OWNER_EMPLOYEE_ID = excluded.OWNER_EMPLOYEE_ID, PROJECT_ID = excluded.PROJECT_ID,"
            " SPRINT_ID = excluded.SPRINT_ID, DOC_TYPE = excluded.DOC_TYPE, AUDIENCE = excluded.AUDIENCE,"
            f" CONTENT = excluded.CONTENT, CONTENT_HASH = excluded.CONTENT_HASH, UPDATED_AT = {_NOW} "
            "RETURNING CHUNK_ID",
            (chunk.source_type, chunk.source_id, chunk.chunk_ix, chunk.owner_employee_id, chunk.project_id,
             chunk.sprint_id, chunk.doc_type, aud, chunk.content, chunk.content_hash),
        ).fetchone()[0]
        conn.execute("DELETE FROM RAG_VEC WHERE CHUNK_ID = ?", (chunk_id,))
        conn.execute(
            "INSERT INTO RAG_VEC (CHUNK_ID, EMBEDDING, AUDIENCE, SOURCE_TYPE) VALUES (?, ?, ?, ?)",
            (chunk_id, np.ascontiguousarray(vector, dtype=np.float32).tobytes(), aud, chunk.source_type),
        )


def prune_change_log(conn: apsw.Connection) -> None:
    """Keep the change log bounded; an index that lagged past the cut reloads in full."""
    (max_seq,) = conn.execute("SELECT IFNULL(MAX(SEQ), 0) FROM RAG_CHUNK_CHANGES").fetchone()
    cut = max_seq - CHANGE_LOG_KEEP
    (pruned,) = conn.execute("SELECT VALUE FROM RAG_META WHERE KEY = 'pruned_through'").fetchone()
    if cut > pruned + CHANGE_LOG_KEEP // 10:  # prune in steps, not on every batch
        conn.execute("DELETE FROM RAG_CHUNK_CHANGES WHERE SEQ <= ?", (cut,))
        conn.execute("UPDATE RAG_META SET VALUE = ? WHERE KEY = 'pruned_through'", (cut,))


def fts_query(text: str) -> str | None:
    """User text as an FTS5 query that cannot be a syntax error: quoted words joined with OR."""
    words = _WORD.findall(text or "")[:MAX_QUERY_TOKENS]
    return " OR ".join(f'"{w}"' for w in words) if words else None


def scope_filter(audiences: Sequence[int] | None, scope: Scope, alias: str = "c") -> tuple[list[str], list[Any]]:
    """WHERE fragments (ANDed) and binds for the access rule and the scope on RAG_CHUNK."""
    where: list[str] = []
    binds: list[Any] = []
    if audiences is not None:
        where.append(f"{alias}.AUDIENCE IN ({_marks(audiences)})")
        binds.extend(audiences)
    if scope.project == "none":
        where.append(f"{alias}.PROJECT_ID IS NULL")
    elif scope.project != "all":
        where.append(f"{alias}.PROJECT_ID = ?")
        binds.append(int(scope.project))
    if scope.sprint_id is not None:
        where.append(f"{alias}.SPRINT_ID = ?")
        binds.append(int(scope.sprint_id))
    if scope.source_types is not None:
        where.append(f"{alias}.SOURCE_TYPE IN ({_marks(scope.source_types)})")
        binds.extend(scope.source_types)
    if scope.doc_types is not None:  # narrows document chunks only
        where.append(f"({alias}.SOURCE_TYPE <> 'doc' OR {alias}.DOC_TYPE IN ({_marks(scope.doc_types)}))")
        binds.extend(scope.doc_types)
    return where, binds


def _marks(items) -> str:
    return ", ".join("?" * len(items))


def _bind(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bool):
        return int(value)
    return value


def _row(entity: EntitySpec, row) -> dict[str, Any]:
    out = {}
    for name, value in zip(entity.all_columns, row):
        if name in entity.date_columns:
            value = _date(value)
        out[name.lower()] = value
    return out


def _date(value: Any) -> Any:
    """ISO text -> date; anything unparsable (written by another client) is returned as stored."""
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return value
    return value


def _opt_date(value: Any) -> dt.date | None:
    parsed = _date(value)
    return parsed if isinstance(parsed, dt.date) else None


def _load_tasks(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, TaskSource]:
    comments: dict[int, list[str]] = {}
    for task_id, body in conn.execute(
        f"SELECT TASK_ID, BODY FROM COMMENTS WHERE TASK_ID IN ({_marks(ids)}) ORDER BY TASK_ID, CREATED_AT, COMMENT_ID",
        ids,
    ):
        if body and body.strip():
            comments.setdefault(task_id, []).append(body)
    out = {}
    for row in conn.execute(
        "SELECT t.TASK_ID, t.TITLE, t.STATUS, t.PRIORITY, t.SPRINT_ID, s.NAME, t.PROJECT_ID, p.NAME,"
        " t.ASSIGNEE_ID, e.FIRST_NAME, e.LAST_NAME, t.STORY_POINTS, t.ESTIMATED_HOURS, t.EXPECTED_END_DATE,"
        " t.DESCRIPTION FROM TASKS t"
        " LEFT JOIN SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID"
        " LEFT JOIN PROJECTS p ON p.PROJECT_ID = t.PROJECT_ID"
        " LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = t.ASSIGNEE_ID"
        f" WHERE t.TASK_ID IN ({_marks(ids)})",
        ids,
    ):
        (task_id, title, status, priority, sprint_id, sprint_name, project_id, project_name, assignee_id,
         first, last, points, hours, due, description) = row
        out[task_id] = TaskSource(
            task_id, title or "", status, priority,
            sprint_id if sprint_name is not None else None, sprint_name,
            project_id if project_name is not None else None, project_name,
            assignee_id if (first is not None or last is not None) else None, first, last,
            points, hours, _opt_date(due), description, tuple(comments.get(task_id, ())),
        )
    return out


def _load_sprints(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, SprintSource]:
    return {
        sid: SprintSource(sid, name or "", status, pid if pname is not None else None, pname, goal,
                          _opt_date(start), _opt_date(end))
        for sid, name, status, pid, pname, goal, start, end in conn.execute(
            "SELECT s.SPRINT_ID, s.NAME, s.STATUS, s.PROJECT_ID, p.NAME, s.GOAL, s.START_DATE, s.END_DATE"
            " FROM SPRINTS s LEFT JOIN PROJECTS p ON p.PROJECT_ID = s.PROJECT_ID"
            f" WHERE s.SPRINT_ID IN ({_marks(ids)})",
            ids,
        )
    }


def _load_projects(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, ProjectSource]:
    return {
        pid: ProjectSource(pid, name or "", status, description, _opt_date(start), _opt_date(end))
        for pid, name, status, description, start, end in conn.execute(
            "SELECT PROJECT_ID, NAME, STATUS, DESCRIPTION, START_DATE, END_DATE FROM PROJECTS"
            f" WHERE PROJECT_ID IN ({_marks(ids)})",
            ids,
        )
    }


def _load_docs(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, DocSource]:
    return {
        did: DocSource(did, title or "", body, pid if pexists else None, owner if oexists else None, doc_type)
        for did, title, body, pid, pexists, owner, oexists, doc_type in conn.execute(
            "SELECT d.DOCUMENT_ID, d.TITLE, d.BODY, d.PROJECT_ID, p.PROJECT_ID IS NOT NULL,"
            " d.OWNER_EMPLOYEE_ID, e.EMPLOYEE_ID IS NOT NULL, d.DOC_TYPE FROM DOCUMENTS d"
            " LEFT JOIN PROJECTS p ON p.PROJECT_ID = d.PROJECT_ID"
            " LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = d.OWNER_EMPLOYEE_ID"
            f" WHERE d.DOCUMENT_ID IN ({_marks(ids)})",
            ids,
        )
    }
