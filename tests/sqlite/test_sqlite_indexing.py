"""The SQLite unit of indexing work: buffered writes, all-or-nothing, no write lock while embedding."""

from __future__ import annotations

import threading

import pytest

from app.domain import ChunkWrite
from app.entities import DOCUMENTS, PROJECTS, TASKS
from app.rag.chunking import content_hash

from .helpers import dirty_rows


def _chunk(source_id, text="hola mundo"):
    return ChunkWrite("task", source_id, 0, None, None, None, text, content_hash(text))


def _count(engine, table):
    return engine.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_nothing_is_written_when_the_body_raises(sqlite_engine):
    e = sqlite_engine
    t = e.create(TASKS, {"TITLE": "t"})["task_id"]

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        with e.indexing() as tx:
            rows = tx.claim(10, 5)
            tx.write_chunks([_chunk(t)])
            tx.delete_dirty([r.dirty_id for r in rows])
            raise Boom
    assert _count(e, "RAG_CHUNK") == 0 and _count(e, "RAG_VEC") == 0
    assert dirty_rows(e) == {("task", t, "UPSERT")}


def test_clean_exit_applies_everything_and_keeps_rows_enqueued_meanwhile(sqlite_engine, other_engine):
    e = sqlite_engine
    t = e.create(TASKS, {"TITLE": "t"})["task_id"]
    u = e.create(TASKS, {"TITLE": "u"})["task_id"]
    with e.indexing() as tx:
        rows = tx.claim(10, 5)
        tx.load_sources("task", [t, u])
        tx.write_chunks([_chunk(t), _chunk(u)])
        # No write lock is held while the body runs: another writer is not blocked.
        other_engine.update(TASKS, t, {"TITLE": "changed meanwhile"})
        tx.delete_dirty([r.dirty_id for r in rows])
    # u is written; t changed after it was read, so its (stale) chunk is not, and t stays queued.
    assert e.conn.execute("SELECT SOURCE_ID FROM RAG_CHUNK").fetchall() == [(u,)] and _count(e, "RAG_VEC") == 1
    assert e.conn.execute("SELECT COUNT(*) FROM RAG_FTS WHERE RAG_FTS MATCH 'mundo'").fetchone()[0] == 1
    assert dirty_rows(e) == {("task", t, "UPSERT")}  # the later write is still queued


def test_rewrite_keeps_chunk_id_and_delete_from_ix_trims(sqlite_engine):
    e = sqlite_engine
    with e.indexing() as tx:
        tx.write_chunks([_chunk(1), ChunkWrite("task", 1, 1, None, None, None, "dos", content_hash("dos"))])
    first_id = e.conn.execute("SELECT CHUNK_ID FROM RAG_CHUNK WHERE CHUNK_IX = 0").fetchone()[0]
    with e.indexing() as tx:
        assert tx.chunk_hashes("task", [1]) == {1: {0: content_hash("hola mundo"), 1: content_hash("dos")}}
        tx.write_chunks([_chunk(1, "adiós")])
        tx.delete_chunks("task", 1, from_ix=1)
    assert e.conn.execute("SELECT CHUNK_ID, CONTENT FROM RAG_CHUNK").fetchall() == [(first_id, "adiós")]
    assert _count(e, "RAG_VEC") == 1
    assert e.conn.execute("SELECT COUNT(*) FROM RAG_FTS WHERE RAG_FTS MATCH 'adios'").fetchone()[0] == 1
    assert e.conn.execute("SELECT COUNT(*) FROM RAG_FTS WHERE RAG_FTS MATCH 'mundo'").fetchone()[0] == 0


def test_concurrent_in_process_claims_do_not_overlap(sqlite_engine):
    e = sqlite_engine
    for i in range(10):
        e.create(TASKS, {"TITLE": f"t{i}"})
    seen, barrier = {}, threading.Barrier(2, timeout=10)

    def worker(name):
        with e.indexing() as tx:
            seen[name] = {r.dirty_id for r in tx.claim(4, 5)}
            barrier.wait()

    threads = [threading.Thread(target=worker, args=(n,)) for n in "ab"]
    for th in threads:
        th.start()
    for th in threads:
        th.join(20)
    assert len(seen["a"]) == len(seen["b"]) == 4 and not seen["a"] & seen["b"]
    assert not e._inflight  # released on exit


def test_load_sources_reads_joined_text(sqlite_engine):
    e = sqlite_engine
    p = e.create(PROJECTS, {"NAME": "Apolo", "START_DATE": "2025-02-01"})["project_id"]
    t = e.create(TASKS, {"TITLE": "t", "PROJECT_ID": p, "EXPECTED_END_DATE": "2025-03-04"})["task_id"]
    d = e.create(DOCUMENTS, {"TITLE": "d", "BODY": "b", "PROJECT_ID": p})["document_id"]
    with e.indexing() as tx:
        task = tx.load_sources("task", [t, 999])[t]
        assert task.project_name == "Apolo" and task.expected_end_date.isoformat() == "2025-03-04"
        assert tx.load_sources("project", [p])[p].start_date.isoformat() == "2025-02-01"
        assert tx.load_sources("doc", [d])[d].project_id == p
        assert tx.load_sources("task", [999]) == {}


def test_failures_status_retry_and_backfill(sqlite_engine):
    e = sqlite_engine
    p = e.create(PROJECTS, {"NAME": "P"})["project_id"]
    tasks = [e.create(TASKS, {"TITLE": f"t{i}", "PROJECT_ID": p if i < 2 else None})["task_id"] for i in range(4)]
    ids = [r[0] for r in e.conn.execute("SELECT DIRTY_ID FROM RAG_DIRTY ORDER BY DIRTY_ID")]
    e.record_failure({ids[0]: 0.0}, "boom")
    status = e.status(max_attempts=1)
    assert (status.pending, status.queue_rows, status.failing, status.stuck) == (5, 5, 1, 1)
    assert status.failing_rows[0].last_error == "boom" and status.oldest_pending_age_s >= 0
    assert status.chunks_by_source_type == {"task": 0, "sprint": 0, "project": 0, "doc": 0}
    assert status.dimensions == 384 and status.model_name
    assert e.retry_stuck() == 1 and e.status(1).stuck == 0

    e.conn.execute("DELETE FROM RAG_DIRTY")
    assert e.enqueue_backfill(["task"], dry_run=True) == 4 and dirty_rows(e) == set()
    assert e.enqueue_backfill(["task"], project_id=p, limit=1) == 1
    assert e.enqueue_backfill(["task"]) == 3  # the queued one is not queued twice
    assert e.enqueue_backfill(["task", "project"], force=True, limit=2) == 2
    with pytest.raises(ValueError):
        e.enqueue_backfill(["comment"])
    assert len(tasks) == 4


def test_status_counts_pending_entities_not_queue_rows(sqlite_engine):
    """Issue 33, finding 8: an entity queued by several writes (rows left from before a pass, each comment of a
    task) is one pending entity; the rows are counted beside it, and failing and stuck stay rows."""
    e = sqlite_engine
    p = e.create(PROJECTS, {"NAME": "P"})["project_id"]
    busy = e.create(TASKS, {"TITLE": "t0", "PROJECT_ID": p})["task_id"]
    quiet = e.create(TASKS, {"TITLE": "t1"})["task_id"]
    for n in range(3):
        e.update(TASKS, busy, {"TITLE": f"t0 v{n}"})
    queued = [(t, i) for t, i in e.conn.execute("SELECT SOURCE_TYPE, SOURCE_ID FROM RAG_DIRTY")]
    assert queued.count(("task", busy)) >= 4 and queued.count(("task", quiet)) == 1  # several rows for one task
    entities = len(set(queued))
    assert entities == 3  # the project, the two tasks
    status = e.status(max_attempts=5)
    assert (status.pending, status.queue_rows) == (entities, len(queued))
    rows_of_busy = [r[0] for r in e.conn.execute(
        "SELECT DIRTY_ID FROM RAG_DIRTY WHERE SOURCE_TYPE = 'task' AND SOURCE_ID = ?", (busy,))]
    e.record_failure({rows_of_busy[0]: 0.0, rows_of_busy[1]: 0.0}, "boom")
    status = e.status(max_attempts=1)
    assert (status.pending, status.failing, status.stuck) == (3, 2, 2)  # one entity, two failing rows
    e.conn.execute("DELETE FROM RAG_DIRTY WHERE SOURCE_TYPE = 'task' AND SOURCE_ID = ?", (busy,))
    assert (e.status(5).pending, e.status(5).queue_rows) == (2, 2)
