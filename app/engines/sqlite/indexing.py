"""The write path: the IndexingTx unit of work, chunk upserts and the queue's bookkeeping
(failures, backfill, retry)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import apsw
import numpy as np

from app.domain import SOURCE_TYPES, ChunkWrite, DirtyRow, SourceType
from app.records_model import SourceRecord
from app.engines.base import EngineError, batched
from app.engines.sqlite import model_mark, records
from app.engines.sqlite import statements as sql
from app.rag.access import audience

if TYPE_CHECKING:
    from app.engines.sqlite.engine import SQLiteEngine

log = logging.getLogger(__name__)

IN_BATCH = records.IN_BATCH
SourceKey = tuple[SourceType, int]
CHANGE_LOG_KEEP = 100_000  # RAG_CHUNK_CHANGES rows kept for lagging indexes in other processes


class SQLiteIndexingTx:
    """IndexingTx for SQLite; see ``SQLiteEngine.indexing`` for the locking argument."""

    def __init__(self, engine: SQLiteEngine) -> None:
        self._engine = engine
        self._conn = engine.conn
        self._claimed: set[int] = set()
        self._ops: list[tuple] = []
        # What each source looked like when this unit read it (None: absent). The writes derived from
        # it are applied only if the source still looks the same inside the write transaction.
        self._loaded: dict[SourceKey, SourceRecord | None] = {}
        self.holds_drain_lock = False

    def claim(self, limit: int, max_attempts: int) -> list[DirtyRow]:
        engine = self._engine
        # A process with another model than the index's must not take rows it cannot index.
        model_mark.check_write(self._conn, engine.model_name)
        if not self.holds_drain_lock:  # held until the unit ends: another process claims what it left
            if not engine.drain_lock.acquire():
                log.info("another process is draining this database: nothing claimed now")
                return []
            self.holds_drain_lock = True
        with engine._inflight_lock:
            skip = engine._inflight - self._claimed
            rows = self._conn.execute(sql.CLAIM, (max_attempts, limit + len(skip))).fetchall()
            claimed = [DirtyRow(*row) for row in rows if row[0] not in skip][:limit]
            ids = {r.dirty_id for r in claimed}
            engine._inflight |= ids
            self._claimed |= ids
        return claimed

    def load_sources(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
        found = records.load_sources(self._conn, source_type, ids)
        for source_id in ids:
            self._loaded[(source_type, source_id)] = found.get(source_id)
        return found

    def chunk_hashes(self, source_type: SourceType, ids: Sequence[int]) -> dict[int, dict[int, str]]:
        out: dict[int, dict[int, str]] = {}
        for batch in batched(list(ids), IN_BATCH):
            for source_id, chunk_ix, stored in self._conn.execute(sql.chunk_hashes(batch), (source_type, *batch)):
                out.setdefault(source_id, {})[chunk_ix] = model_mark.hash_for(self._engine.model_name, stored)
        return out

    def write_chunks(self, chunks: Sequence[ChunkWrite]) -> None:
        if not chunks:
            return
        vectors = np.asarray(self._engine.embedder.embed([c.content for c in chunks]), dtype=np.float32)
        if vectors.shape != (len(chunks), self._engine.dimensions):
            raise EngineError(f"embedder returned shape {vectors.shape} for {len(chunks)} chunks")
        model = self._engine.model_name
        tagged = [dataclasses.replace(c, content_hash=model_mark.tag_hash(model, c.content_hash)) for c in chunks]
        self._ops.append(("write", tagged, vectors))

    def delete_chunks(self, source_type: SourceType, source_id: int, from_ix: int = 0) -> None:
        self._ops.append(("delete", source_type, source_id, from_ix))

    def delete_dirty(self, dirty_ids: Sequence[int]) -> None:
        self._ops.append(("dirty", list(dirty_ids)))

    def apply(self) -> None:
        """Run the buffered writes in one write transaction (the engine calls this on a clean exit).

        No stale write wins: SQLite has one writer at a time, so re-reading the touched sources here
        sees exactly what the write lands on. A source that changed since it was read (another
        worker, or an API write, got there first) keeps its current chunks, and is queued again so
        its current state is indexed even if the row that announced the change was already taken.
        """
        if not self._ops:
            return
        with self._engine._write() as conn:
            model_mark.check_write(conn, self._engine.model_name)  # under the write lock: authoritative
            stale = self._changed_since_loaded(conn, self._touched())
            for op in self._ops:
                if op[0] == "write":
                    upsert_chunks(conn, [c for c in op[1] if (c.source_type, c.source_id) not in stale],
                                  [v for c, v in zip(op[1], op[2]) if (c.source_type, c.source_id) not in stale])
                elif op[0] == "delete":
                    if (op[1], op[2]) not in stale:
                        conn.execute(sql.DELETE_CHUNKS, op[1:])
                else:
                    for ids in batched(op[1], IN_BATCH):
                        conn.execute(sql.delete_dirty(ids), ids)
            for source_type, source_id in sorted(stale):
                conn.execute(sql.ENQUEUE_UPSERT, (source_type, source_id))
            prune_change_log(conn)
            model_mark.after_write(conn, self._engine.model_name)
        if stale:
            log.info("skipped %d stale source(s) changed since they were read, queued again: %s",
                     len(stale), ", ".join(f"{t} #{i}" for t, i in sorted(stale)))
        self._ops = []

    def _touched(self) -> set[SourceKey]:
        keys: set[SourceKey] = set()
        for op in self._ops:
            if op[0] == "write":
                keys.update((c.source_type, c.source_id) for c in op[1])
            elif op[0] == "delete":
                keys.add((op[1], op[2]))
        return keys

    def _changed_since_loaded(self, conn: apsw.Connection, keys: Iterable[SourceKey]) -> set[SourceKey]:
        """Sources whose current row differs from what this unit read (a DELETE action read nothing: absent)."""
        by_type: dict[SourceType, list[int]] = {}
        for source_type, source_id in keys:
            by_type.setdefault(source_type, []).append(source_id)
        stale: set[SourceKey] = set()
        for source_type, ids in by_type.items():
            current = records.load_sources(conn, source_type, ids)
            stale.update((source_type, i) for i in ids if current.get(i) != self._loaded.get((source_type, i)))
        return stale

    @property
    def claimed(self) -> set[int]:
        return self._claimed


def upsert_chunks(conn: apsw.Connection, chunks: Sequence[ChunkWrite], vectors: np.ndarray) -> None:
    """Upsert chunks by (SOURCE_TYPE, SOURCE_ID, CHUNK_IX), keeping CHUNK_ID, and replace vectors.

    Call inside a write transaction. vec0 checks the vector's dimension. Module level so tests
    and benchmarks can seed chunks the same way.
    """
    for chunk, vector in zip(chunks, vectors):
        aud = audience(chunk.source_type, chunk.owner_employee_id)
        chunk_id = conn.execute(
            sql.UPSERT_CHUNK,
            (chunk.source_type, chunk.source_id, chunk.chunk_ix, chunk.owner_employee_id, chunk.project_id,
             chunk.sprint_id, chunk.doc_type, aud, chunk.content, chunk.content_hash),
        ).fetchone()[0]
        conn.execute(sql.DELETE_VECTOR, (chunk_id,))
        conn.execute(
            sql.INSERT_VECTOR,
            (chunk_id, np.ascontiguousarray(vector, dtype=np.float32).tobytes(), aud, chunk.source_type),
        )


def prune_change_log(conn: apsw.Connection) -> None:
    """Keep the change log bounded; an index that lagged past the cut reloads in full."""
    (max_seq,) = conn.execute(sql.MAX_CHANGE_SEQ).fetchone()
    cut = max_seq - CHANGE_LOG_KEEP
    (pruned,) = conn.execute(sql.PRUNED_THROUGH).fetchone()
    if cut > pruned + CHANGE_LOG_KEEP // 10:  # prune in steps, not on every batch
        conn.execute(sql.PRUNE_CHANGES, (cut,))
        conn.execute(sql.SET_PRUNED_THROUGH, (cut,))


# --- queue bookkeeping: call inside a write transaction -----------------------------------------

def record_failure(conn: apsw.Connection, retry_after_s: Mapping[int, float], error: str) -> None:
    """ATTEMPTS+1 and LAST_ERROR; each row waits its own delay before it is claimed again."""
    conn.executemany(sql.RECORD_FAILURE, [(error[:4000], float(delay), dirty_id)
                                          for dirty_id, delay in retry_after_s.items()])


def enqueue_backfill(
    conn: apsw.Connection,
    source_types: Sequence[SourceType],
    project_id: int | None,
    force: bool,
    limit: int | None,
    dry_run: bool,
) -> int:
    unknown = set(source_types) - set(SOURCE_TYPES)
    if unknown:
        raise ValueError(f"unknown source type(s): {', '.join(sorted(unknown))}")
    total = 0
    for source_type in [t for t in SOURCE_TYPES if t in source_types]:
        if limit is not None and total >= limit:
            break
        binds = {"st": source_type, "project": project_id}
        select = sql.backfill_select(source_type, project_id is not None, force, limit is not None)
        if limit is not None:
            binds["room"] = int(limit) - total
        if dry_run:
            total += conn.execute(sql.backfill_count(select), binds).fetchone()[0]
        else:
            conn.execute(sql.backfill_insert(select), binds)
            total += conn.changes()
    return total


def retry_stuck(conn: apsw.Connection) -> int:
    conn.execute(sql.RETRY_STUCK)
    return conn.changes()
