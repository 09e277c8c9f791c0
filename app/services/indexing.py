"""The write path's use cases: queue re-indexing on demand, and drain RAG_DIRTY (claim, coalesce by
source, chunk, hash-skip, embed, delete the claimed rows).

One batch is one engine unit of work (``engine.indexing()``), so a crash, a failing embedder or
a failing database call rolls everything back and the claimed rows stay queued; the failure is
then recorded (ATTEMPTS+1, LAST_ERROR) in a transaction of its own.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.domain import SOURCE_TYPES, DirtyRow, SourceType
from app.embedding.models import model_digest
from app.engines.base import Engine, IndexingTx
from app.rag.chunking import MAX_INDEXED_CHARS, TokenCounter, chunk_record, unindexed_chars

log = logging.getLogger(__name__)


@dataclass
class DrainResult:
    claimed: int = 0
    sources: int = 0
    chunks_written: int = 0
    chunks_unchanged: int = 0
    sources_deleted: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    isolated: bool = False  # a retry run on its own source (see drain_batch): a short batch by design

    def add(self, other: DrainResult) -> None:
        for name in ("claimed", "sources", "chunks_written", "chunks_unchanged", "sources_deleted", "failed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors.extend(other.errors)


def coalesce(rows: Sequence[DirtyRow]) -> dict[tuple[SourceType, int], str]:
    """One action per source: the row with the highest DIRTY_ID wins."""
    latest: dict[tuple[SourceType, int], DirtyRow] = {}
    for row in rows:
        key = (row.source_type, row.source_id)
        if key not in latest or row.dirty_id > latest[key].dirty_id:
            latest[key] = row
    return {key: row.action for key, row in latest.items()}


@dataclass(frozen=True)
class Backoff:
    """Seconds a failed queue row waits before its next attempt: base, doubled per attempt, capped.

    The default (no wait) suits one-shot callers that drain right after fixing a cause; the
    worker uses RAG_RETRY_BACKOFF_MS / RAG_RETRY_BACKOFF_MAX_MS.
    """

    base_s: float = 0.0
    cap_s: float = 300.0

    def delay_s(self, attempts: int) -> float:
        """The wait after the ``attempts``-th failure (1, 2, ...)."""
        return min(self.cap_s, self.base_s * 2.0 ** max(0, attempts - 1))


def drain_batch(engine: Engine, count_tokens: TokenCounter, batch_size: int, max_attempts: int,
                backoff: Backoff = Backoff()) -> DrainResult:
    """Process at most one batch. Never raises for a processing failure: it is recorded instead.

    A row that failed before is retried alone (with the other rows of its source): a batch that
    fails charges every row in it, so one poisonous source must not keep failing the rows that
    happened to share its batch. The rows claimed but left out stay queued, untouched.
    """
    result = DrainResult()
    claimed: list[DirtyRow] = []
    try:
        with engine.indexing() as tx:
            claimed = _isolate_retry(tx.claim(batch_size, max_attempts))
            result.claimed = len(claimed)
            result.isolated = any(row.attempts > 0 for row in claimed)
            if claimed:
                _process(tx, claimed, count_tokens, result, engine.model_name)
                tx.delete_dirty([row.dirty_id for row in claimed])
    except Exception as exc:  # anything: the unit of work rolled back, the rows are still queued
        if not claimed:
            raise
        message = f"{type(exc).__name__}: {exc}"[:2000]
        log.warning("indexing batch of %d rows failed: %s", len(claimed), message)
        engine.record_failure({row.dirty_id: backoff.delay_s(row.attempts + 1) for row in claimed}, message)
        return DrainResult(claimed=len(claimed), failed=len(claimed), errors=[message])
    return result


def _isolate_retry(rows: list[DirtyRow]) -> list[DirtyRow]:
    """All rows, or, when one of them failed before, only the rows of that one source."""
    retry = next((row for row in rows if row.attempts > 0), None)
    if retry is None:
        return rows
    return [row for row in rows if (row.source_type, row.source_id) == (retry.source_type, retry.source_id)]


def drain(
    engine: Engine,
    count_tokens: TokenCounter,
    batch_size: int,
    max_attempts: int,
    max_batches: int | None = None,
    on_batch: Callable[[DrainResult], None] | None = None,
    backoff: Backoff = Backoff(),
) -> DrainResult:
    """Drain batch after batch until a batch comes back short or fails."""
    total = DrainResult()
    batches = 0
    while max_batches is None or batches < max_batches:
        result = drain_batch(engine, count_tokens, batch_size, max_attempts, backoff)
        batches += 1
        total.add(result)
        if on_batch:
            on_batch(result)
        if result.failed or (result.claimed < batch_size and not result.isolated):
            break
    return total


def enqueue_reindex(
    engine: Engine,
    source_types: Sequence[SourceType] | None = None,
    project_id: int | None = None,
    force: bool = False,
    limit: int | None = None,
    dry_run: bool = False,
    retry_failed: bool = False,
) -> dict[str, int]:
    """Queue a backfill (and optionally release stuck rows); used by the API and the CLI."""
    enqueued = engine.enqueue_backfill(
        tuple(source_types or SOURCE_TYPES), project_id=project_id, force=force, limit=limit, dry_run=dry_run
    )
    retried = engine.retry_stuck() if retry_failed and not dry_run else 0
    return {"enqueued": enqueued, "retried": retried}


def _process(tx: IndexingTx, rows: Sequence[DirtyRow], count_tokens: TokenCounter, result: DrainResult,
             model: str) -> None:
    actions = coalesce(rows)
    result.sources = len(actions)
    by_type: dict[SourceType, list[int]] = {}
    for (source_type, source_id), action in actions.items():
        if action == "DELETE":
            tx.delete_chunks(source_type, source_id)
            result.sources_deleted += 1
        else:
            by_type.setdefault(source_type, []).append(source_id)

    to_write = []
    for source_type, ids in by_type.items():
        records = tx.load_sources(source_type, ids)
        stored = tx.chunk_hashes(source_type, ids)
        for source_id in ids:
            record = records.get(source_id)
            if record is None:  # deleted after it was queued as an upsert
                tx.delete_chunks(source_type, source_id)
                result.sources_deleted += 1
                continue
            # The hash covers the model too: after a model change nothing is skipped as unchanged.
            chunks = [dataclasses.replace(c, content_hash=model_digest(model, c.content_hash))
                      for c in chunk_record(record, count_tokens)]
            if left_out := unindexed_chars(record):  # e.g. a row written past the API's limits
                log.warning("%s #%d: indexed its first %d characters, left out the last %d",
                            source_type, source_id, MAX_INDEXED_CHARS, left_out)
            old = stored.get(source_id, {})
            if any(ix >= len(chunks) for ix in old):
                tx.delete_chunks(source_type, source_id, from_ix=len(chunks))  # the entity shrank
            for chunk in chunks:
                if old.get(chunk.chunk_ix) == chunk.content_hash:
                    result.chunks_unchanged += 1
                else:
                    to_write.append(chunk)
    if to_write:
        tx.write_chunks(to_write)
        result.chunks_written = len(to_write)
