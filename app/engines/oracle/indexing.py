"""The write path: the IndexingTx unit of work and the queue's bookkeeping (failures, backfill,
retry). Functions take an open connection; the engine acquires it and commits or rolls back."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.domain import SOURCE_TYPES, ChunkWrite, DirtyRow, SourceType
from app.records_model import SourceRecord
from app.engines.base import batched
from app.engines.oracle import model_mark, records, upsert
from app.engines.oracle import indexing_statements as indexing_sql
from app.engines.oracle import statements
from app.engines.oracle.errors import model_required

log = logging.getLogger(__name__)

IN_LIST_MAX = records.IN_LIST_MAX
# The order a unit of work locks its sources in: parents first, as a DELETE of a project (then its sprints, tasks
# and documents through ON DELETE SET NULL) or of a sprint (then its tasks) locks them (REVIEW-2 W8). Single-row API
# writes then never deadlock with the worker; docs/ORACLE.md lists the multi-row writes that still can (ORA-00060,
# retried).
LOCK_ORDER: dict[SourceType, int] = {"project": 0, "sprint": 1, "task": 2, "doc": 3}
ERROR_TEXT_MAX_BYTES = 3900  # RAG_DIRTY.LAST_ERROR is VARCHAR2(4000 BYTE)
SourceKey = tuple[SourceType, int]


class OracleIndexingTx:
    """The IndexingTx of one pooled connection; the engine commits or rolls it back."""

    def __init__(self, conn: Any, model_name: str) -> None:
        self._conn = conn
        self._model_name = model_name
        self.chunks_changed = False
        # What each source looked like when this unit read it (None: absent), and the verdict of the
        # write-time re-read: True when the source still matches, so writes derived from it may land.
        self._loaded: dict[SourceKey, SourceRecord | None] = {}
        self._current: dict[SourceKey, bool] = {}
        # Chunk writes and deletes wait for ``apply`` (the engine calls it before the commit), so every
        # source the unit touches is locked in one pass in LOCK_ORDER: two workers lock in the same order.
        self._ops: list[tuple] = []

    def claim(self, limit: int, max_attempts: int) -> list[DirtyRow]:
        """Lock at most ``limit`` of the oldest claimable rows, skipping rows other workers hold.

        SKIP LOCKED locks rows as they are fetched, and python-oracledb fetches ``prefetchrows``
        rows in the execute round trip and then ``arraysize`` per round trip whatever fetchmany
        asks for; both are set to the batch on a fresh cursor before execute (they are read only
        on a statement's first execution), so no more rows are locked than returned (FACTS.md §6).
        """
        if limit <= 0:
            return []
        with self._conn.cursor() as cur:  # a process on another model takes no rows: they wait, unfailed
            model_mark.check_write(cur, self._model_name)
        cur = self._conn.cursor()
        try:
            cur.prefetchrows = limit
            cur.arraysize = limit
            cur.execute(
                indexing_sql.CLAIM,
                max_attempts=int(max_attempts),
                claim_window=limit * indexing_sql.CLAIM_WINDOW_FACTOR,
            )
            rows = cur.fetchmany(limit)
        finally:
            cur.close()
        return [DirtyRow(int(d), t, int(s), a, int(n)) for d, t, s, a, n in rows]

    def load_sources(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        with self._conn.cursor() as cur:
            found = records.load_sources(cur, source_type, ids)
        for source_id in ids:
            self._loaded[(source_type, int(source_id))] = found.get(int(source_id))
        return found

    def chunk_hashes(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, dict[int, str]]:
        out: dict[int, dict[int, str]] = {}
        with self._conn.cursor() as cur:
            for chunk in batched([int(i) for i in ids], IN_LIST_MAX):
                statement = indexing_sql.chunk_hashes(source_type, chunk)
                cur.execute(statement.sql, statement.binds)
                for source_id, chunk_ix, content_hash in cur.fetchall():
                    out.setdefault(int(source_id), {})[int(chunk_ix)] = content_hash
        return out

    def write_chunks(self, chunks: Sequence[ChunkWrite]) -> None:
        if chunks:
            self._ops.append(("write", list(chunks)))

    def delete_chunks(self, source_type: SourceType, source_id: int, from_ix: int = 0) -> None:
        self._ops.append(("delete", source_type, int(source_id), int(from_ix)))

    def apply(self) -> None:
        """Lock and re-read every touched source once, then run the writes and deletes still current; then move the
        model mark (a first mark, or the end of a swap) in this same transaction."""
        if not self._ops:
            return
        with self._conn.cursor() as cur:  # read again in the writing transaction: a swap may have begun since
            model_mark.check_write(cur, self._model_name)
        touched: set[SourceKey] = set()
        for op in self._ops:
            if op[0] == "write":
                touched.update((c.source_type, int(c.source_id)) for c in op[1])
            else:
                touched.add((op[1], op[2]))
        fresh = self._still_current(touched)
        for op in self._ops:
            if op[0] == "write":
                self._merge([c for c in op[1] if (c.source_type, int(c.source_id)) in fresh])
            elif (op[1], op[2]) in fresh:
                with self._conn.cursor() as cur:
                    cur.execute(indexing_sql.DELETE_CHUNKS, source_type=op[1], source_id=op[2], from_ix=op[3])
                self.chunks_changed = True
        self._ops = []
        with self._conn.cursor() as cur:
            model_mark.after_write(cur, self._model_name)

    def _merge(self, chunks: Sequence[ChunkWrite]) -> None:
        if not chunks:  # executemany([]) fails on some driver versions (FACTS.md §11.7)
            return
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
                "embedding_model": self._model_name,  # RAG_CHUNK.EMBEDDING_MODEL (V15), for the model mark
            }
            for c in chunks
        ]
        two_step = upsert.stored_form(self._conn) == upsert.UPSERT_TWO_STEP  # read once per batch that writes
        with self._conn.cursor() as cur, model_required(self._model_name):
            upsert.run_or_fall_back(cur, self._model_name, rows, two_step)
        self.chunks_changed = True

    def delete_dirty(self, dirty_ids: Sequence[int]) -> None:
        if not dirty_ids:
            return
        with self._conn.cursor() as cur:
            cur.executemany(indexing_sql.DELETE_DIRTY, [{"dirty_id": int(i)} for i in dirty_ids])

    def _still_current(self, keys: Iterable[SourceKey]) -> set[SourceKey]:
        """The keys whose source, locked and re-read now, equals what this unit loaded.

        No stale write wins: the source rows stay locked until the commit, so an API write to one
        of them waits, and a worker that loaded an older version finds the difference here. A
        changed source keeps its chunks and is queued again. (A task's comments and names are not
        locked: a change to them that commits after this re-read has queued the task, and that
        later drain writes the newer text.)
        """
        unchecked = sorted({k for k in keys if k not in self._current}, key=lambda k: (LOCK_ORDER[k[0]], k[1]))
        by_type: dict[SourceType, list[int]] = {}
        for source_type, source_id in unchecked:
            by_type.setdefault(source_type, []).append(source_id)
        with self._conn.cursor() as cur:
            for source_type, ids in by_type.items():
                for chunk in batched(ids, IN_LIST_MAX):
                    statement = indexing_sql.lock_sources(source_type, chunk)
                    cur.execute(statement.sql, statement.binds)
                    cur.fetchall()
                current = records.load_sources(cur, source_type, ids)
                for source_id in ids:
                    same = current.get(source_id) == self._loaded.get((source_type, source_id))
                    self._current[(source_type, source_id)] = same
                    if not same:
                        log.info("skipped stale %s #%d (changed since it was read); queued again",
                                 source_type, source_id)
                        cur.execute(indexing_sql.ENQUEUE, source_type=source_type, source_id=source_id)
        return {k for k in keys if self._current[k]}


def sync_text_index(conn: Any) -> None:
    """Make fresh chunks visible to CONTAINS now rather than at the next automatic sync.

    Best effort, after the commit (SYNC_INDEX commits implicitly, FACTS.md §8B): the background
    maintenance of the search index catches up anyway.
    """
    try:
        with conn.cursor() as cur:
            cur.execute(indexing_sql.SYNC_TEXT_INDEX, idx_name=statements.TEXT_INDEX)
    except Exception as exc:
        log.warning("Oracle Text sync of %s failed (automatic maintenance will catch up): %s",
                    statements.TEXT_INDEX, exc)


# --- queue bookkeeping: the engine commits ------------------------------------------------------

def record_failure(cur: Any, retry_after_s: Mapping[int, float], error: str) -> None:
    message = error.encode("utf-8")[:ERROR_TEXT_MAX_BYTES].decode("utf-8", "ignore")
    cur.executemany(indexing_sql.RECORD_FAILURE,
                    [{"last_error": message, "retry_after_s": float(delay), "dirty_id": int(i)}
                     for i, delay in retry_after_s.items()])


def enqueue_backfill(
    cur: Any,
    source_types: Sequence[SourceType],
    project_id: int | None,
    force: bool,
    limit: int | None,
    dry_run: bool,
) -> int:
    """Queue UPSERTs (nothing when dry_run; the engine then rolls back); return the count."""
    unknown = sorted(set(source_types) - set(SOURCE_TYPES))
    if unknown:
        raise ValueError(f"unknown source type(s) {', '.join(unknown)}")
    total = 0
    for source_type in [t for t in SOURCE_TYPES if t in source_types]:
        remaining = None if limit is None else limit - total
        if remaining is not None and remaining <= 0:
            break
        statement = indexing_sql.backfill_ids(source_type, project_id, force, remaining)
        cur.execute(statement.sql, statement.binds)
        ids = [int(r[0]) for r in cur.fetchall()]
        total += len(ids)
        if dry_run:
            continue
        for chunk in batched(ids, 1000):
            cur.executemany(indexing_sql.ENQUEUE, [{"source_type": source_type, "source_id": i} for i in chunk])
    return total


def retry_stuck(cur: Any) -> int:
    cur.execute(indexing_sql.RETRY_STUCK)
    return cur.rowcount
