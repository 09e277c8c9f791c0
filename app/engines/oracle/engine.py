"""The Oracle AI Database 26ai engine: in-database embedding, IVF search, SKIP LOCKED queue.

The facade that satisfies ``app.engines.base.Engine``: transactions and model provisioning, the work delegated to
records, indexing, search and status; the pool is pooling.py's, the conversations engine_conversations.py's, the
erasure steps engine_erasure.py's. All SQL text lives in the ``*_statements.py`` modules (by room); errors are mapped
in ``errors.py``.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from app.config import Settings
from app.domain import (SEARCH_MODES, Caller, Page, ProjectCard, RagStatus, Scope, SearchMode, SearchResult,
    SourceType, SummarySource, TaskQuery, Vocabulary)
from app.records_model import SourceRecord, TaskLink
from app.engines.base import ConflictError, EngineError, SchemaNotMigratedError
from app.engines.oracle import conversations, indexing, model_mark, records, search, status, summaries, upsert
from app.engines.oracle import migrate as migrations
from app.engines.oracle import record_statements as record_sql
from app.engines.oracle import schema_statements as schema_sql
from app.engines.oracle import statements
from app.engines.oracle.errors import (MODEL_EXISTS, conflicts, model_missing, network_acl_denied,
                                      network_acl_hint, ora_code)
from app.engines.oracle.indexing import OracleIndexingTx
from app.engines.oracle.search import DIMENSIONS
from app.engines.oracle.engine_conversations import ConversationMethods
from app.engines.oracle.engine_erasure import ErasureMethods
from app.engines.oracle.members import ProjectMembership, with_memberships
from app.engines.oracle.pooling import ADMIN_CALL_TIMEOUT_MS, parse_database_url  # noqa: F401 (re-exported)
from app.engines.oracle.text_statistics import TextStatisticsCache
from app.engines.oracle.tracker import TrackerQueries
from app.entities import PROJECTS, Condition, EntitySpec
from app.rag.doctor import first_line
from app.rag.model_mark import forced_reindex_refusal

log = logging.getLogger(__name__)


class OracleEngine(TrackerQueries, ConversationMethods, ErasureMethods, ProjectMembership):
    name = "oracle"
    dimensions = DIMENSIONS

    def __init__(self, pool: Any, settings: Settings) -> None:
        self._pool = pool
        self._settings = settings
        self.access_rule = settings.access_rule  # how callers are resolved (members.with_memberships)
        self.model_name = statements.checked_model(settings.oracle_model_name)
        self._schema_ok = False  # remembered once true: a migrated schema stays migrated
        self.text_statistics = TextStatisticsCache()  # cleared by each committed write that moves chunks (W1)

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
            max=cls.pool_max(settings),
            increment=1,
            # The default POOL_GETMODE_WAIT waits forever for a free connection; wait_timeout applies to TIMEDWAIT
            # only, and its expiry raises DPY-4005 [CODE python-oracledb pool_params.py, impl/thin/pool.pyx;
            # tests/test_2400_pool.py 2438] (REVIEW-2 W3).
            getmode=oracledb.POOL_GETMODE_TIMEDWAIT,
            wait_timeout=settings.oracle_pool_wait_timeout_ms,
        )
        return cls(pool, settings)

    # --- schema and model -------------------------------------------------------------------
    def migrate(self) -> list[str]:
        with self._connection(ADMIN_CALL_TIMEOUT_MS) as conn:
            applied = migrations.migrate(conn)
            with conn.cursor() as cur:
                if model_mark.adopt(cur, self.model_name):  # chunks from before the mark: this deployment's model
                    log.info("marked the stored vectors as %s's (they predate the model mark)", self.model_name)
            conn.commit()
            self.text_statistics.invalidate()
            return applied

    def ping(self) -> None:
        self.check_schema()
        try:
            with self._connection() as conn, conn.cursor() as cur:
                cur.execute(schema_sql.MODEL_EXISTS, model_name=self.model_name)
                (models,) = cur.fetchone()
                if not models:
                    raise model_missing(self.model_name)
                # Ready means writes work too: a read-only database or tablespace refuses this row (ORA-16000,
                # ORA-00372: UnavailableError through _connection). A full tablespace does not: one short row fits
                # the first extent of RAG_SETTINGS, so ORA-01653 shows on the large tables' writes instead
                # (REVIEW-3 W5; docs/ORACLE.md, Readiness).
                cur.execute(schema_sql.READY_PROBE, setting_key=f"ready-probe:{uuid.uuid4().hex}")
                conn.rollback()
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"Oracle does not answer or refuses a write: {exc}") from exc

    def check_schema(self) -> None:
        if self._schema_ok:
            return
        try:
            with self._connection() as conn, conn.cursor() as cur:
                cur.execute(schema_sql.VERSION_TABLE_EXISTS)
                (exists,) = cur.fetchone()
                done: set[int] = set()
                if exists:
                    cur.execute(schema_sql.APPLIED_VERSIONS)
                    done = {int(v) for (v,) in cur.fetchall()}
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"Oracle does not answer: {exc}") from exc
        missing = [m.version for m in migrations.discover() if m.version not in done]
        if missing:
            raise SchemaNotMigratedError(
                f"the Oracle schema is not migrated (pending: {', '.join(f'V{v}' for v in missing)}): run "
                "`ragctl migrate` (or `ragctl oracle bootstrap`, which also loads the embedding model)")
        self._schema_ok = True

    def ensure_model(self) -> str:
        """Load the ONNX model once, guarded by USER_MINING_MODELS (FACTS.md §5)."""
        settings = self._settings
        with self._connection(ADMIN_CALL_TIMEOUT_MS) as conn, conn.cursor() as cur:
            cur.execute(schema_sql.MODEL_EXISTS, model_name=self.model_name)
            (present,) = cur.fetchone()
            if present:
                return f"model {self.model_name} already loaded"
            try:
                if settings.onnx_model_url is not None:
                    cur.execute(
                        schema_sql.LOAD_MODEL_CLOUD,
                        model_name=self.model_name,
                        model_uri=settings.onnx_model_url.get_secret_value(),
                    )
                    source = "RAG_ONNX_MODEL_URL (pre-authenticated URL)"
                else:
                    cur.execute(
                        schema_sql.LOAD_MODEL_DIRECTORY,
                        dir_name=settings.onnx_model_directory.upper(),
                        file_name=settings.onnx_model_file,
                        model_name=self.model_name,
                    )
                    source = f"directory {settings.onnx_model_directory.upper()}/{settings.onnx_model_file}"
            except Exception as exc:
                if ora_code(exc) == MODEL_EXISTS:  # another bootstrap won the race
                    return f"model {self.model_name} already loaded"
                if settings.onnx_model_url is not None and network_acl_denied(exc):
                    url, user = settings.onnx_model_url.get_secret_value(), parse_database_url(settings)[0]
                    hint = network_acl_hint(url, user)
                    raise EngineError(f"loading the ONNX model {self.model_name} failed: {hint}") from exc
                raise EngineError(
                    f"loading the ONNX model {self.model_name} failed: {exc}. Local development: run "
                    "scripts/fetch-onnx-model.sh and check the MODEL_DIR directory object; production: "
                    "set RAG_ONNX_MODEL_URL to the pre-authenticated URL (docs/ORACLE.md)."
                ) from exc
            conn.commit()
            return f"model {self.model_name} loaded from {source}"

    def choose_upsert_form(self) -> str:
        """Probe both upsert forms on a rolled-back scratch chunk and store the one that works (REVIEW-2 W4), so a
        database that refuses VECTOR_EMBEDDING inside the MERGE source never fails a worker's batch."""
        with self._connection() as conn:
            form, using_error, two_step_error = upsert.decide(conn, self.model_name, self.dimensions)
            if form is None:
                raise EngineError(f"neither chunk upsert form works on this database (MERGE: {first_line(using_error)}; "
                                  f"two-step: {first_line(two_step_error)}): run `ragctl oracle doctor` for details")
            with conn.cursor() as cur:
                upsert.store_form(cur, form)
            conn.commit()
        refused = f" (the MERGE with VECTOR_EMBEDDING is refused: {first_line(using_error)})" if using_error else ""
        return f"upsert form {form}{refused}"

    def rebuild_vector_index(self) -> str:
        """Recompute the IVF centroids from the data (FACTS.md §4): run after bulk loads."""
        with self._connection(ADMIN_CALL_TIMEOUT_MS) as conn, conn.cursor() as cur:
            cur.execute(schema_sql.COUNT_VECTORS)
            (vectors,) = cur.fetchone()
            if not vectors:
                return (f"{statements.VECTOR_INDEX} not rebuilt: RAG_CHUNK has no vectors yet "
                        "(Oracle refuses, DIA-51875)")
            cur.execute(schema_sql.REBUILD_VECTOR_INDEX, idx_name=statements.VECTOR_INDEX)
            conn.commit()
            return f"{statements.VECTOR_INDEX} rebuilt over {int(vectors)} vectors"

    def wipe(self) -> None:
        with self._connection() as conn, conn.cursor() as cur:
            for statement in record_sql.WIPE:
                cur.execute(statement)
            conn.commit()
            self.text_statistics.invalidate()

    # --- people and records -------------------------------------------------------------------
    def caller(self, employee_id: int) -> Caller | None:
        with self._connection() as conn, conn.cursor() as cur:
            found = records.caller(cur, record_sql.CALLER_BY_ID, employee_id=int(employee_id))
            return with_memberships(cur, found, self.access_rule)

    def caller_by_telegram(self, telegram_id: str) -> Caller | None:
        with self._connection() as conn, conn.cursor() as cur:
            found = records.caller(cur, record_sql.CALLER_BY_TELEGRAM, telegram_id=str(telegram_id))
            return with_memberships(cur, found, self.access_rule)

    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
        with self._connection() as conn, conn.cursor() as cur:
            row_id = records.create(cur, entity, values)
            conn.commit()
            self.text_statistics.invalidate()  # the access triggers move chunks in the writer's transaction
            return records.created(cur, entity, row_id)

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
        with self._connection() as conn, conn.cursor() as cur:
            return records.get(cur, entity, row_id)

    def list_records(self, entity: EntitySpec, where: Sequence[Condition], after: int | None,
                     limit: int) -> Page[dict[str, Any]]:
        with self._connection() as conn, conn.cursor() as cur:
            return records.list_page(cur, entity, where, after, limit)

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None:
        entity.check_columns(values)
        columns = [c for c in entity.columns if c in values]
        if not columns:
            return self.get(entity, row_id)
        with self._connection() as conn, conn.cursor() as cur:
            changed = records.update(cur, entity, row_id, columns, values)
            conn.commit()
            self.text_statistics.invalidate()
            return records.get(cur, entity, row_id) if changed else None

    def delete(self, entity: EntitySpec, row_id: int) -> bool:
        with self._connection() as conn, conn.cursor() as cur:
            deleted = records.delete(cur, entity, row_id)
            conn.commit()
            self.text_statistics.invalidate()
            return deleted

    # --- imported rows (app/sources) -----------------------------------------------------------
    @contextmanager
    def batch(self) -> Iterator[records.OracleRecordsTx]:
        """One transaction for a sync page: its upserts, links and cursor commit together or not at all."""
        with self._connection() as conn, conn.cursor() as cur:
            yield records.OracleRecordsTx(cur)
            conn.commit()
            self.text_statistics.invalidate()

    def find_by_external(self, entity: EntitySpec, source: str, keys: Sequence[str] | None) -> dict[str, int]:
        with self._connection() as conn, conn.cursor() as cur:
            return records.find_by_external(cur, entity, source, keys)

    def replace_task_links(self, task_id: int, links: Sequence[TaskLink]) -> bool:
        with self.batch() as tx:
            return tx.replace_task_links(task_id, links)

    def sync_cursor(self, source: str) -> str | None:
        with self._connection() as conn, conn.cursor() as cur:
            return records.sync_cursor(cur, source)

    def set_sync_cursor(self, source: str, value: str | None) -> None:
        with self.batch() as tx:
            tx.set_sync_cursor(source, value)

    def tasks_by_key(self, key: str) -> list[int]:
        with self._connection() as conn, conn.cursor() as cur:
            return records.tasks_by_key(cur, key)

    # --- write path -------------------------------------------------------------------------
    @contextmanager
    def indexing(self) -> Iterator[OracleIndexingTx]:
        """One transaction: claim, work and delete commit together or roll back together."""
        with self._connection(*self._worker_bound()) as conn:
            tx = OracleIndexingTx(conn, self.model_name)
            yield tx
            tx.apply()
            conn.commit()
            if tx.chunks_changed:
                indexing.sync_text_index(conn)
                self.text_statistics.invalidate()  # after the sync: n(t) counts what the text index holds

    def record_failure(self, retry_after_s: Mapping[int, float], error: str) -> None:
        if not retry_after_s:
            return
        with self._connection() as conn, conn.cursor() as cur:
            indexing.record_failure(cur, retry_after_s, error)
            conn.commit()

    def enqueue_backfill(
        self,
        source_types: Sequence[SourceType],
        project_id: int | None = None,
        force: bool = False,
        limit: int | None = None,
        dry_run: bool = False,
    ) -> int:
        bound = self._operator_bound("the backfill (INSERT ... SELECT over every source)") if force else (None, None)
        with self._connection(*bound) as conn, conn.cursor() as cur:
            if force and not dry_run:  # re-index everything: with another model, that is the swap
                refusal = forced_reindex_refusal(self.model_name, source_types, project_id, limit,
                                                 lambda: model_mark.swap_needed(cur, self.model_name))
                if refusal is not None:
                    raise ConflictError(refusal)
                model_mark.begin_swap(cur, self.model_name)
            total = indexing.enqueue_backfill(cur, source_types, project_id, force, limit, dry_run)
            if dry_run:
                conn.rollback()
            else:
                conn.commit()
            return total

    def retry_stuck(self) -> int:
        with self._connection() as conn, conn.cursor() as cur:
            count = indexing.retry_stuck(cur)
            conn.commit()
            return count

    # --- read path --------------------------------------------------------------------------
    def embed_query(self, text: str) -> np.ndarray:
        with self._connection() as conn, conn.cursor() as cur:
            return search.embed_query(cur, self.model_name, text)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        # The confirmed single-text VECTOR_EMBEDDING statement, once per text on one connection (MiniLM has no
        # query/passage prefixes, so a passage is embedded like a query); the caller bounds the count.
        with self._connection() as conn, conn.cursor() as cur:
            return np.stack([search.embed_query(cur, self.model_name, t) for t in texts]) if texts \
                else np.zeros((0, self.dimensions), dtype=np.float32)

    def search(
        self,
        query_vector: np.ndarray,
        query_text: str,
        caller: Caller,
        k: int,
        scope: Scope,
        mode: SearchMode,
    ) -> SearchResult:
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown search mode {mode!r}")
        qv = search.vector_bind(query_vector)  # a malformed vector fails before a connection is taken
        with self._connection() as conn, conn.cursor() as cur:
            model_mark.check_search(cur, self.model_name)  # vectors of two models are never compared
            return search.search(cur, qv, query_text, caller, k, scope, mode, self.text_statistics)

    def status(self, max_attempts: int) -> RagStatus:
        with self._connection() as conn, conn.cursor() as cur:
            result = status.status(cur, max_attempts, self.model_name, self.dimensions)
            # the model that made the stored vectors, and the one a swap re-embeds them with
            result.index["vectors_model"], result.index["swap_target"] = model_mark.read(cur)
            return result

    def stored_model(self) -> tuple[str | None, str | None]:
        """(the model that made the stored vectors, the model a swap is re-embedding them with)."""
        with self._connection() as conn, conn.cursor() as cur:
            return model_mark.read(cur)

    def find_tasks(self, caller: Caller, query: TaskQuery) -> list[dict[str, Any]]:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.find_tasks(cur, caller, query)

    def projects_for_matching(self) -> list[ProjectCard]:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.projects_for_matching(cur)

    def set_project_summary(self, project_id: int, summary: str | None, inputs: str | None = None) -> bool:
        with self._connection() as conn, conn.cursor() as cur:
            with conflicts(PROJECTS):
                changed = summaries.set_project_summary(cur, project_id, summary, inputs)
            conn.commit()
            return changed

    def summary_sources(self, max_tasks: int) -> list[SummarySource]:
        with self._connection() as conn, conn.cursor() as cur:
            return summaries.summary_sources(cur, max_tasks)

    def project_summary(self, project_id: int) -> tuple[str | None, dt.datetime | None] | None:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.project_summary(cur, project_id)

    def vocabulary(self) -> Vocabulary:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.vocabulary(cur)

    def load_records(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        with self._connection() as conn, conn.cursor() as cur:
            return records.load_sources(cur, source_type, ids)
