"""The Oracle AI Database 26ai engine: in-database embedding, IVF search, SKIP LOCKED queue.

All SQL text lives in ``statements.py``; this module only binds values, moves rows in and out
and maps Oracle errors onto the contract's errors (app.engines.base).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

import numpy as np

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
from app.engines.base import ConflictError, EngineError, ModelMissingError, batched
from app.engines.oracle import migrate as migrations
from app.engines.oracle import statements as sql
from app.entities import EntitySpec
from app.rag.fusion import candidate_depth, reciprocal_rank_fusion

log = logging.getLogger(__name__)

DIMENSIONS = 384
IN_LIST_MAX = 500  # ids per IN list (Oracle allows 1000 expressions: ORA-01795)
TEXT_QUERY_MAX_TOKENS = 32
ERROR_TEXT_MAX_BYTES = 3900  # RAG_DIRTY.LAST_ERROR is VARCHAR2(4000 BYTE)
QUERY_TEXT_MAX_BYTES = 4000  # VECTOR_EMBEDDING input is a VARCHAR2 (FACTS.md §2)
ACCURACY_TOP_K = 10
ACCURACY_TARGET = 90

# ORA codes that mean "this write broke a constraint".
_CONFLICT_CODES = {
    1: "a unique value is already taken",  # ORA-00001
    1400: "a required value is missing",  # ORA-01400
    1407: "a required value is missing",  # ORA-01407
    2290: "a value is not allowed",  # ORA-02290 check constraint
    2291: "a referenced row does not exist",  # ORA-02291
    2292: "other rows still reference this row",  # ORA-02292
}
_MODEL_MISSING = 40284  # ORA-40284: model does not exist (FACTS.md §2)
_MODEL_EXISTS = 40204  # ORA-40204: model already exists (FACTS.md §2)


def ora_code(exc: BaseException) -> int | None:
    """The ORA-nnnnn number of a python-oracledb error, if it carries one."""
    err = exc.args[0] if getattr(exc, "args", None) else None
    code = getattr(err, "code", None)
    return code if isinstance(code, int) else None


def model_missing(model_name: str, exc: BaseException | None = None) -> ModelMissingError:
    return ModelMissingError(
        f"The embedding model {model_name} is not loaded in this Oracle schema (ORA-40284). "
        "Run `ragctl oracle bootstrap` (or scripts/bootstrap) to apply migrations and load it; "
        "see docs/ORACLE.md." + (f" [{exc}]" if exc else "")
    )


def parse_database_url(settings: Settings) -> tuple[str, str, str]:
    """``oracle://user[:password]@host[:port]/service`` -> (user, password, dsn)."""
    parts = urlsplit(settings.database_url)
    if parts.scheme != "oracle" or not parts.hostname or not parts.path.strip("/"):
        raise EngineError(
            "RAG_DATABASE_URL must look like oracle://user[:password]@host:port/service, "
            f"e.g. oracle://app@localhost:1521/FREEPDB1 (got scheme {parts.scheme!r})"
        )
    user = unquote(parts.username) if parts.username else settings.oracle_user
    if not user:
        raise EngineError("no Oracle user: put it in RAG_DATABASE_URL or set RAG_ORACLE_USER")
    if parts.password is not None:
        password = unquote(parts.password)
    elif settings.oracle_password is not None:
        password = settings.oracle_password.get_secret_value()
    else:
        raise EngineError("no Oracle password: set RAG_ORACLE_PASSWORD (or put it in RAG_DATABASE_URL)")
    dsn = f"{parts.hostname}:{parts.port or 1521}/{parts.path.strip('/')}"
    return user, password, dsn


class OracleEngine:
    name = "oracle"
    dimensions = DIMENSIONS

    def __init__(self, pool: Any, settings: Settings) -> None:
        self._pool = pool
        self._settings = settings
        self.model_name = sql.checked_model(settings.oracle_model_name)

    @classmethod
    def open(cls, settings: Settings) -> OracleEngine:
        import oracledb  # deferred: the SQLite path never loads the driver

        user, password, dsn = parse_database_url(settings)
        # CLOB source columns come back as str, not LOB locators (FACTS.md §11.6). VECTOR columns
        # fetch as array('f') by default (FACTS.md §1). Thin mode: python-oracledb's default.
        oracledb.defaults.fetch_lobs = False
        pool = oracledb.create_pool(
            user=user,
            password=password,
            dsn=dsn,
            min=settings.oracle_pool_min,
            max=max(settings.oracle_pool_max, settings.oracle_pool_min),
            increment=1,
        )
        return cls(pool, settings)

    def close(self) -> None:
        self._pool.close(force=True)

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        conn = self._pool.acquire()
        try:
            yield conn
        except BaseException:
            try:
                conn.rollback()
            except Exception as exc:  # a dead connection: the pool discards it; keep the first error
                log.warning("rollback failed: %s", exc)
            raise
        finally:
            self._pool.release(conn)

    # --- schema and model -------------------------------------------------------------------
    def migrate(self) -> list[str]:
        with self._connection() as conn:
            return migrations.migrate(conn)

    def ping(self) -> None:
        try:
            with self._connection() as conn, conn.cursor() as cur:
                cur.execute(sql.PING)
                cur.fetchone()
                cur.execute(sql.VERSION_TABLE_EXISTS)
                (exists,) = cur.fetchone()
                done: set[int] = set()
                if exists:
                    cur.execute(sql.APPLIED_VERSIONS)
                    done = {int(v) for (v,) in cur.fetchall()}
                missing = [m.version for m in migrations.discover() if m.version not in done]
                if missing:
                    raise EngineError(
                        f"the Oracle schema is not migrated (pending: {', '.join(f'V{v}' for v in missing)}); "
                        "run `ragctl oracle bootstrap`"
                    )
                cur.execute(sql.MODEL_EXISTS, model_name=self.model_name)
                (models,) = cur.fetchone()
                if not models:
                    raise model_missing(self.model_name)
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"Oracle does not answer: {exc}") from exc

    def ensure_model(self) -> str:
        """Load the ONNX model once, guarded by USER_MINING_MODELS (FACTS.md §5)."""
        settings = self._settings
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(sql.MODEL_EXISTS, model_name=self.model_name)
            (present,) = cur.fetchone()
            if present:
                return f"model {self.model_name} already loaded"
            try:
                if settings.onnx_model_url is not None:
                    cur.execute(
                        sql.LOAD_MODEL_CLOUD,
                        model_name=self.model_name,
                        model_uri=settings.onnx_model_url.get_secret_value(),
                    )
                    source = "RAG_ONNX_MODEL_URL (pre-authenticated URL)"
                else:
                    cur.execute(
                        sql.LOAD_MODEL_DIRECTORY,
                        dir_name=settings.onnx_model_directory.upper(),
                        file_name=settings.onnx_model_file,
                        model_name=self.model_name,
                    )
                    source = f"directory {settings.onnx_model_directory.upper()}/{settings.onnx_model_file}"
            except Exception as exc:
                if ora_code(exc) == _MODEL_EXISTS:  # another bootstrap won the race
                    return f"model {self.model_name} already loaded"
                raise EngineError(
                    f"loading the ONNX model {self.model_name} failed: {exc}. Local development: run "
                    "scripts/fetch-onnx-model.sh and check the MODEL_DIR directory object; production: "
                    "set RAG_ONNX_MODEL_URL to the pre-authenticated URL (docs/ORACLE.md)."
                ) from exc
            conn.commit()
            return f"model {self.model_name} loaded from {source}"

    def rebuild_vector_index(self) -> str:
        """Recompute the IVF centroids from the data (FACTS.md §4): run after bulk loads."""
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(sql.COUNT_VECTORS)
            (vectors,) = cur.fetchone()
            if not vectors:
                return f"{sql.VECTOR_INDEX} not rebuilt: RAG_CHUNK has no vectors yet (Oracle refuses, DIA-51875)"
            cur.execute(sql.REBUILD_VECTOR_INDEX, idx_name=sql.VECTOR_INDEX)
            conn.commit()
            return f"{sql.VECTOR_INDEX} rebuilt over {int(vectors)} vectors"

    def wipe(self) -> None:
        with self._connection() as conn, conn.cursor() as cur:
            for statement in sql.WIPE:
                cur.execute(statement)
            conn.commit()

    # --- people -----------------------------------------------------------------------------
    def caller(self, employee_id: int) -> Caller | None:
        return self._caller(sql.CALLER_BY_ID, employee_id=int(employee_id))

    def caller_by_telegram(self, telegram_id: str) -> Caller | None:
        return self._caller(sql.CALLER_BY_TELEGRAM, telegram_id=str(telegram_id))

    def _caller(self, statement: str, **binds: Any) -> Caller | None:
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(statement, binds)
            row = cur.fetchone()
        return Caller(int(row[0]), Role(row[1])) if row else None

    # --- CRUD -------------------------------------------------------------------------------
    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
        entity.check_columns(values)
        # Omitted and None are the same on insert, except that column defaults apply.
        columns = [c for c in entity.columns if values.get(c) is not None]
        binds = sql.crud_binds(columns, _bind_values(entity, values))
        with self._connection() as conn, conn.cursor() as cur:
            new_id = cur.var(int)
            with _conflicts(entity):
                cur.execute(sql.crud_insert(entity, columns), {**binds, "new_id": new_id})
            row_id = _returned_id(new_id)
            conn.commit()
            row = self._get(cur, entity, row_id)
        if row is None:
            raise EngineError(f"{entity.name} {row_id} vanished right after it was created")
        return row

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
        with self._connection() as conn, conn.cursor() as cur:
            return self._get(cur, entity, row_id)

    def _get(self, cur: Any, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
        cur.execute(sql.crud_select(entity), row_id=int(row_id))
        row = cur.fetchone()
        return _row(entity, row) if row else None

    def list(self, entity: EntitySpec, limit: int, offset: int) -> list[dict[str, Any]]:
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(sql.crud_list(entity), skip_rows=max(0, int(offset)), max_rows=max(0, int(limit)))
            return [_row(entity, r) for r in cur.fetchall()]

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None:
        entity.check_columns(values)
        columns = [c for c in entity.columns if c in values]
        if not columns:
            return self.get(entity, row_id)
        binds = sql.crud_binds(columns, _bind_values(entity, values))
        with self._connection() as conn, conn.cursor() as cur:
            with _conflicts(entity):
                cur.execute(sql.crud_update(entity, columns), {**binds, "row_id": int(row_id)})
            changed = cur.rowcount
            conn.commit()
            return self._get(cur, entity, row_id) if changed else None

    def delete(self, entity: EntitySpec, row_id: int) -> bool:
        with self._connection() as conn, conn.cursor() as cur:
            with _conflicts(entity):
                cur.execute(sql.crud_delete(entity), row_id=int(row_id))
            deleted = cur.rowcount > 0
            conn.commit()
            return deleted

    # --- write path -------------------------------------------------------------------------
    @contextmanager
    def indexing(self) -> Iterator[OracleIndexingTx]:
        """One transaction: claim, work and delete commit together or roll back together."""
        with self._connection() as conn:
            tx = OracleIndexingTx(conn, self.model_name)
            yield tx
            conn.commit()
            if tx.chunks_changed:
                self._sync_text_index(conn)

    def _sync_text_index(self, conn: Any) -> None:
        """Make fresh chunks visible to CONTAINS now rather than at the next automatic sync.

        Best effort, after the commit (SYNC_INDEX commits implicitly, FACTS.md §8B): the background
        maintenance of the search index catches up anyway.
        """
        try:
            with conn.cursor() as cur:
                cur.execute(sql.SYNC_TEXT_INDEX, idx_name=sql.TEXT_INDEX)
        except Exception as exc:
            log.warning("Oracle Text sync of %s failed (automatic maintenance will catch up): %s",
                        sql.TEXT_INDEX, exc)

    def record_failure(self, dirty_ids: Sequence[int], error: str) -> None:
        if not dirty_ids:
            return
        message = error.encode("utf-8")[:ERROR_TEXT_MAX_BYTES].decode("utf-8", "ignore")
        with self._connection() as conn, conn.cursor() as cur:
            cur.executemany(sql.RECORD_FAILURE, [{"last_error": message, "dirty_id": int(i)} for i in dirty_ids])
            conn.commit()

    def enqueue_backfill(
        self,
        source_types: Sequence[SourceType],
        project_id: int | None = None,
        force: bool = False,
        limit: int | None = None,
        dry_run: bool = False,
    ) -> int:
        unknown = sorted(set(source_types) - set(SOURCE_TYPES))
        if unknown:
            raise ValueError(f"unknown source type(s) {', '.join(unknown)}")
        total = 0
        with self._connection() as conn, conn.cursor() as cur:
            for source_type in [t for t in SOURCE_TYPES if t in source_types]:
                remaining = None if limit is None else limit - total
                if remaining is not None and remaining <= 0:
                    break
                statement = sql.backfill_ids(source_type, project_id, force, remaining)
                cur.execute(statement.sql, statement.binds)
                ids = [int(r[0]) for r in cur.fetchall()]
                total += len(ids)
                if dry_run:
                    continue
                for chunk in batched(ids, 1000):
                    cur.executemany(sql.ENQUEUE, [{"source_type": source_type, "source_id": i} for i in chunk])
            if dry_run:
                conn.rollback()
            else:
                conn.commit()
        return total

    def retry_stuck(self) -> int:
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(sql.RETRY_STUCK)
            count = cur.rowcount
            conn.commit()
            return count

    # --- read path --------------------------------------------------------------------------
    def embed_query(self, text: str) -> np.ndarray:
        text = text.encode("utf-8")[:QUERY_TEXT_MAX_BYTES].decode("utf-8", "ignore")
        with self._connection() as conn, conn.cursor() as cur:
            try:
                cur.execute(sql.embed_query(self.model_name), q=text)
            except Exception as exc:
                if ora_code(exc) == _MODEL_MISSING:
                    raise model_missing(self.model_name, exc) from exc
                raise
            (vector,) = cur.fetchone()
        return np.asarray(vector, dtype=np.float32)

    def search(
        self,
        query_vector: np.ndarray,
        query_text: str,
        caller: Caller,
        k: int,
        scope: Scope,
        mode: SearchMode,
    ) -> SearchResult:
        qv = _vector_bind(query_vector)
        with self._connection() as conn, conn.cursor() as cur:
            pool = k if mode == "vector" else candidate_depth(k)
            vector_rows, answered_by = self._vector_arm(cur, caller, scope, qv, pool)
            if mode == "vector":
                hits = [_hit(row, 1.0 - _distance(row)) for row in vector_rows[:k]]
                return SearchResult(hits, mode, answered_by)
            text_rows = self._text_arm(cur, caller, scope, qv, query_text, pool)
        by_key = {_key(row): row for row in text_rows}
        by_key.update({_key(row): row for row in vector_rows})
        fused = reciprocal_rank_fusion([_key(r) for r in vector_rows], [_key(r) for r in text_rows])
        hits = [_hit(by_key[key], score) for key, score in fused[:k]]
        return SearchResult(hits, mode, answered_by)

    def _vector_arm(self, cur: Any, caller: Caller, scope: Scope, qv: array, k: int) -> tuple[list, str]:
        """FETCH APPROX; when it comes back short, the same query with FETCH EXACT (FACTS.md §3, §11.1).

        IVF plans only look inside the probed partitions, so a filtered approximate query can
        return fewer than k rows (even 0) although k are visible. The exact rerun answers with
        every visible row. (An unfiltered short answer means the table holds fewer than k chunks
        or the probes missed: the exact rerun is right, and cheap, there too.)
        """
        text, binds = sql.vector_search(caller, scope, exact=False)
        cur.execute(text, {**binds, "qv": qv, "k": k})
        rows = cur.fetchall()
        if len(rows) >= k:
            return rows, "approx"
        text, binds = sql.vector_search(caller, scope, exact=True)
        cur.execute(text, {**binds, "qv": qv, "k": k})
        return cur.fetchall(), "exact-fallback"

    def _text_arm(self, cur: Any, caller: Caller, scope: Scope, qv: array, query_text: str, n: int) -> list:
        tq = text_query(query_text)
        if not tq:
            return []
        text, binds = sql.text_search(caller, scope)
        try:
            cur.execute(text, {**binds, "tq": tq, "qv": qv, "n": n})
            return cur.fetchall()
        except Exception as exc:  # Oracle Text trouble must not take vector search down with it
            log.warning("Oracle Text arm of hybrid search failed, answering from vectors only: %s", exc)
            return []

    def status(self, max_attempts: int) -> RagStatus:
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(sql.QUEUE_STATUS, max_attempts=int(max_attempts))
            pending, oldest, now, failing, stuck = cur.fetchone()
            cur.execute(sql.FAILING_ROWS)
            failing_rows = [
                FailingRow(int(d), str(t), int(s), int(a), e) for d, t, s, a, e in cur.fetchall()
            ]
            cur.execute(sql.CHUNKS_BY_TYPE)
            by_type = {str(t): int(n) for t, n in cur.fetchall()}
            index = self._index_status(cur)
        age = (now - oldest).total_seconds() if oldest is not None and now is not None else None
        return RagStatus(
            engine=self.name,
            pending=int(pending),
            oldest_pending_age_s=age,
            failing=int(failing or 0),
            stuck=int(stuck or 0),
            chunks_by_source_type=by_type,
            model_name=self.model_name,
            dimensions=self.dimensions,
            failing_rows=failing_rows,
            index=index,
        )

    def _index_status(self, cur: Any) -> dict[str, object]:
        """The IVF index's type/status and its measured accuracy (DBMS_VECTOR.INDEX_ACCURACY_QUERY)."""
        info: dict[str, object] = {"name": sql.VECTOR_INDEX}
        try:
            cur.execute(sql.VECTOR_INDEX_INFO, index_name=sql.VECTOR_INDEX)
            row = cur.fetchone()
            if row is None:
                info["state"] = "missing: run `ragctl oracle bootstrap`"
                return info
            info.update(type=row[0], subtype=row[1], state=row[2])
            cur.execute(sql.SAMPLE_VECTOR)
            sample = cur.fetchone()
            if sample is None:
                info["accuracy"] = "not measured: RAG_CHUNK has no vectors yet"
                return info
            report = cur.var(str, 32767)
            cur.execute(
                sql.INDEX_ACCURACY,
                report=report,
                index_name=sql.VECTOR_INDEX,
                qv=sample[0],
                top_k=ACCURACY_TOP_K,
                target_accuracy=ACCURACY_TARGET,
            )
            info["accuracy"] = report.getvalue()
        except Exception as exc:  # status must answer even when the probe cannot
            info["accuracy"] = f"not measured: {exc}"
        return info


class OracleIndexingTx:
    """The IndexingTx of one pooled connection; the engine commits or rolls it back."""

    def __init__(self, conn: Any, model_name: str) -> None:
        self._conn = conn
        self._model_name = model_name
        self.chunks_changed = False

    def claim(self, limit: int, max_attempts: int) -> list[DirtyRow]:
        """Lock at most ``limit`` of the oldest claimable rows, skipping rows other workers hold.

        SKIP LOCKED locks rows as they are fetched, and python-oracledb fetches ``prefetchrows``
        rows in the execute round trip and then ``arraysize`` per round trip whatever fetchmany
        asks for; both are set to the batch on a fresh cursor before execute (they are read only
        on a statement's first execution), so no more rows are locked than returned (FACTS.md §6).
        """
        if limit <= 0:
            return []
        cur = self._conn.cursor()
        try:
            cur.prefetchrows = limit
            cur.arraysize = limit
            cur.execute(
                sql.CLAIM,
                max_attempts=int(max_attempts),
                claim_window=limit * sql.CLAIM_WINDOW_FACTOR,
            )
            rows = cur.fetchmany(limit)
        finally:
            cur.close()
        return [DirtyRow(int(d), t, int(s), a, int(n)) for d, t, s, a, n in rows]

    def load_sources(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        out: dict[int, SourceRecord] = {}
        with self._conn.cursor() as cur:
            for chunk in batched([int(i) for i in ids], IN_LIST_MAX):
                statement = sql.load_sources(source_type, chunk)
                cur.execute(statement.sql, statement.binds)
                rows = cur.fetchall()
                comments: dict[int, list[str]] = {}
                if source_type == "task" and rows:
                    statement = sql.task_comments([int(r[0]) for r in rows])
                    cur.execute(statement.sql, statement.binds)
                    for task_id, body in cur.fetchall():
                        comments.setdefault(int(task_id), []).append(body or "")
                for row in rows:
                    record = _source(source_type, row, comments)
                    out[_record_id(record)] = record
        return out

    def chunk_hashes(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, dict[int, str]]:
        out: dict[int, dict[int, str]] = {}
        with self._conn.cursor() as cur:
            for chunk in batched([int(i) for i in ids], IN_LIST_MAX):
                statement = sql.chunk_hashes(source_type, chunk)
                cur.execute(statement.sql, statement.binds)
                for source_id, chunk_ix, content_hash in cur.fetchall():
                    out.setdefault(int(source_id), {})[int(chunk_ix)] = content_hash
        return out

    def write_chunks(self, chunks: Sequence[ChunkWrite]) -> None:
        if not chunks:  # executemany([]) fails on some driver versions (FACTS.md §11.7)
            return
        import oracledb

        rows = [
            {
                "source_type": c.source_type,
                "source_id": int(c.source_id),
                "chunk_ix": int(c.chunk_ix),
                "owner_employee_id": c.owner_employee_id,
                "project_id": c.project_id,
                "sprint_id": c.sprint_id,
                "doc_type": c.doc_type,
                "content": c.content,
                "content_hash": c.content_hash,
            }
            for c in chunks
        ]
        with self._conn.cursor() as cur:
            # Nullable numbers: a first row of None must not make the bind a string.
            cur.setinputsizes(
                owner_employee_id=oracledb.DB_TYPE_NUMBER,
                project_id=oracledb.DB_TYPE_NUMBER,
                sprint_id=oracledb.DB_TYPE_NUMBER,
            )
            try:
                cur.executemany(sql.upsert_chunk(self._model_name), rows)
            except Exception as exc:
                if ora_code(exc) == _MODEL_MISSING:
                    raise model_missing(self._model_name, exc) from exc
                raise
        self.chunks_changed = True

    def delete_chunks(self, source_type: SourceType, source_id: int, from_ix: int = 0) -> None:
        with self._conn.cursor() as cur:
            cur.execute(sql.DELETE_CHUNKS, source_type=source_type, source_id=int(source_id), from_ix=int(from_ix))
        self.chunks_changed = True

    def delete_dirty(self, dirty_ids: Sequence[int]) -> None:
        if not dirty_ids:
            return
        with self._conn.cursor() as cur:
            cur.executemany(sql.DELETE_DIRTY, [{"dirty_id": int(i)} for i in dirty_ids])


# --- helpers ------------------------------------------------------------------------------------

def text_query(text: str) -> str:
    """User text as an Oracle Text query that cannot be a syntax error: '"tok1" ACCUM "tok2"' (FACTS.md §8B).

    ``_`` splits tokens too: ``\\w`` keeps it, and in a CONTAINS query ``_`` (like ``%``) is a wildcard,
    so a token such as ``_`` or ``a_b`` would expand instead of matching literally.
    """
    tokens: list[str] = []
    seen: set[str] = set()
    for token in re.split(r"[\W_]+", text):
        if token and token.lower() not in seen:
            seen.add(token.lower())
            tokens.append(token)
    return " ACCUM ".join(f'"{t}"' for t in tokens[:TEXT_QUERY_MAX_TOKENS])


@contextmanager
def _conflicts(entity: EntitySpec) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        reason = _CONFLICT_CODES.get(ora_code(exc) or 0)
        if reason is None:
            raise
        raise ConflictError(f"{entity.name}: {reason} ({exc})") from exc


def _returned_id(var: Any) -> int:
    value = var.getvalue()
    if isinstance(value, list):  # DML RETURNING INTO: one value per affected row
        value = value[0]
    return int(value)


def _bind_values(entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, bool):
            value = int(value)
        elif isinstance(value, str) and name in entity.date_columns:
            value = dt.date.fromisoformat(value[:10])
        elif isinstance(value, str) and name == "CREATED_AT":
            value = dt.datetime.fromisoformat(value)
        out[name] = value
    return out


def _row(entity: EntitySpec, row: Sequence[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in zip(entity.all_columns, row):
        if name in entity.date_columns and isinstance(value, dt.datetime):
            value = value.date()  # Oracle DATE carries a time of day; these columns are dates
        out[name.lower()] = value
    return out


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    return value


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _source(source_type: str, row: Sequence[Any], comments: dict[int, list[str]]) -> SourceRecord:
    if source_type == "task":
        (task_id, title, status, priority, sprint_id, sprint_name, project_id, project_name, assignee_id,
         first, last, points, hours, due, description) = row
        return TaskSource(
            int(task_id), title, status, priority, _opt_int(sprint_id), sprint_name, _opt_int(project_id),
            project_name, _opt_int(assignee_id), first, last, _number(points), _number(hours), _date(due),
            description, tuple(comments.get(int(task_id), ())),
        )
    if source_type == "sprint":
        sprint_id, name, status, project_id, project_name, goal, start, end = row
        return SprintSource(int(sprint_id), name, status, _opt_int(project_id), project_name, goal,
                            _date(start), _date(end))
    if source_type == "project":
        project_id, name, status, description, start, end = row
        return ProjectSource(int(project_id), name, status, description, _date(start), _date(end))
    document_id, title, body, project_id, owner, doc_type = row
    return DocSource(int(document_id), title, body, _opt_int(project_id), _opt_int(owner), doc_type)


def _record_id(record: SourceRecord) -> int:
    match record:
        case TaskSource():
            return record.task_id
        case SprintSource():
            return record.sprint_id
        case ProjectSource():
            return record.project_id
    return record.document_id


def _vector_bind(vector: np.ndarray) -> array:
    """FLOAT32 binds as array('f'): a list would bind as FLOAT64 (FACTS.md §1, §11.3)."""
    values = np.ascontiguousarray(np.asarray(vector, dtype=np.float32).ravel())
    if values.size != DIMENSIONS or not np.all(np.isfinite(values)):
        raise ValueError(f"the query vector must be {DIMENSIONS} finite floats (FACTS.md §11.4)")
    out = array("f")
    out.frombytes(values.tobytes())
    return out


def _key(row: Sequence[Any]) -> tuple[str, int, int]:
    return (row[0], int(row[1]), int(row[2]))


def _distance(row: Sequence[Any]) -> float:
    return 2.0 if row[4] is None else float(row[4])  # NULL only for a chunk without a vector


def _hit(row: Sequence[Any], score: float) -> SearchHit:
    return SearchHit(
        source_type=row[0],
        source_id=int(row[1]),
        chunk_ix=int(row[2]),
        content=row[3],
        distance=_distance(row),
        score=float(score),
    )
