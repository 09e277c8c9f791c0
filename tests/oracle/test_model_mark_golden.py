"""The Oracle model mark (app/engines/oracle/model_mark.py), the embedded engine's twin: RAG_SETTINGS rows
EMBEDDING_MODEL / EMBEDDING_MODEL_TARGET plus RAG_CHUNK.EMBEDDING_MODEL (V15), driven through the recording fake.

A process on another RAG_ORACLE_MODEL_NAME than the mark refuses to search (503 naming the swap) and claims no
rows; every process refuses to search while a swap is under way; the mark moves in the transaction whose writes
leave no chunk of another model. (tests/sqlite/test_model_swap.py proves the same contract on real SQLite.)
"""

from __future__ import annotations

from array import array

import numpy as np
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.domain import Caller, ChunkWrite, Role, Scope
from app.engines.base import ConflictError, EmbeddingModelError
from app.engines.oracle import settings_statements as sql
from app.engines.oracle.engine import OracleEngine
from app.rag import model_mark as judge

from .fakes import FakeConnection, FakePool, Reply, golden

MODEL = "ALL_MINILM_L12_V2"
OTHER = "MULTILINGUAL_E5_SMALL"
MANAGER = Caller(1, Role.MANAGER)


def engine_over(conn, settings):
    return OracleEngine(FakePool(conn), settings)


def marked(mark, target=None, has_chunks=1):
    return (golden("read_model_mark"), Reply(rows=[(mark, target, has_chunks)]))


def vec():
    return np.full(384, 0.05, dtype=np.float32)


def test_reading_the_mark_is_one_statement_with_its_keys_bound(settings):
    conn = FakeConnection([marked(MODEL)])
    assert engine_over(conn, settings).stored_model() == (MODEL, None)
    assert conn.sqls == [golden("read_model_mark")]
    assert conn.calls[0].binds == {"mark_key": "EMBEDDING_MODEL", "target_key": "EMBEDDING_MODEL_TARGET"}


@pytest.mark.parametrize("row, expected", [
    ((None, None, 1), ("ALL_MINILM_L12_V2", None)),  # chunks from before the mark: the default model's
    ((None, None, 0), (None, None)),  # nothing stored: any model may start
    ((MODEL, OTHER, 1), (MODEL, OTHER)),
])
def test_what_the_mark_means(settings, row, expected):
    conn = FakeConnection([(golden("read_model_mark"), Reply(rows=[row]))])
    assert engine_over(conn, settings).stored_model() == expected


def test_a_process_on_another_model_refuses_to_search_and_sends_no_query(settings):
    conn = FakeConnection([marked(OTHER)])
    with pytest.raises(EmbeddingModelError) as refused:
        engine_over(conn, settings).search(vec(), "login", MANAGER, 5, Scope(), "hybrid")
    message = str(refused.value)
    assert f"made by the embedding model {OTHER}" in message and MODEL in message
    assert "RAG_ORACLE_MODEL_NAME" in message and "ragctl backfill --force" in message
    assert conn.sqls == [golden("read_model_mark")]


def test_every_process_refuses_to_search_while_a_swap_is_under_way(settings):
    conn = FakeConnection([marked(OTHER, target=MODEL)])
    with pytest.raises(EmbeddingModelError, match=f"being re-embedded with {MODEL}"):
        engine_over(conn, settings).search(vec(), "login", MANAGER, 5, Scope(), "vector")
    assert "FETCH APPROX" not in "".join(conn.sqls)


def test_the_marked_model_searches_after_reading_the_mark_on_the_same_cursor(settings):
    conn = FakeConnection([marked(MODEL), ("FETCH APPROX", Reply(rows=[("task", 1, 0, "x", 0.1)] * 5))])
    result = engine_over(conn, settings).search(vec(), "login", MANAGER, 5, Scope(), "vector")
    assert conn.sqls[0] == golden("read_model_mark") and "FETCH APPROX" in conn.sqls[1]
    assert len(result.hits) == 5


def test_a_process_on_another_model_claims_no_rows(settings):
    conn = FakeConnection([marked(OTHER)])
    with pytest.raises(EmbeddingModelError):
        with engine_over(conn, settings).indexing() as tx:
            tx.claim(8, 5)
    assert conn.sqls == [golden("read_model_mark")] and conn.events == ["rollback"]  # the rows wait, unfailed


def chunk(ix=0):
    return ChunkWrite("task", 11, ix, 7, 3, None, f"[TASK #11] text {ix}", f"hash{ix}")


def write(conn, settings):
    with engine_over(conn, settings).indexing() as tx:
        tx.write_chunks([chunk(0), chunk(1)])


def mark_calls(conn):
    return [(c.sql, c.binds) for c in conn.calls
            if c.sql in (golden("read_model_mark"), golden("lock_model_target"), golden("other_model_chunk"),
                         golden("write_setting"), golden("delete_setting"))]


def locked(target=MODEL):
    return (golden("lock_model_target"), Reply(rows=[(target,)] if target else []))


def test_the_write_that_leaves_no_chunk_of_another_model_ends_the_swap_before_the_commit(settings):
    conn = FakeConnection([marked(OTHER, target=MODEL), marked(OTHER, target=MODEL), locked(),
                           (golden("other_model_chunk"), Reply(rows=[(0,)]))])
    write(conn, settings)
    merge = next(c for c in conn.calls if c.sql == golden("upsert_chunk"))
    assert {b["embedding_model"] for b in merge.binds} == {MODEL}
    assert mark_calls(conn) == [
        (golden("read_model_mark"), {"mark_key": "EMBEDDING_MODEL", "target_key": "EMBEDDING_MODEL_TARGET"}),
        (golden("read_model_mark"), {"mark_key": "EMBEDDING_MODEL", "target_key": "EMBEDDING_MODEL_TARGET"}),
        (golden("lock_model_target"), {"target_key": "EMBEDDING_MODEL_TARGET"}),
        (golden("other_model_chunk"), {"legacy_model": OTHER, "embedding_model": MODEL}),
        (golden("write_setting"), {"setting_key": "EMBEDDING_MODEL", "setting_value": MODEL}),
        (golden("delete_setting"), {"setting_key": "EMBEDDING_MODEL_TARGET"})]
    assert conn.sqls.index(golden("upsert_chunk")) < conn.sqls.index(golden("other_model_chunk"))
    assert conn.events == ["commit"]  # one transaction: the writes and the mark together


def test_two_workers_writing_the_last_old_chunks_take_turns_on_the_target_row_and_the_second_ends_the_swap(settings):
    """REVIEW-3 W1, simulated: under read committed each worker's OTHER_MODEL_CHUNK sees the other's uncommitted
    chunk as old. Each locks the target row before it checks, so the second one checks after the first committed:
    the first still counts the second's chunk (1), the second, waiting on the lock until then, counts none (0) and
    ends the swap. Without the lock both would count 1 and the swap would never end."""
    first = FakeConnection([marked(OTHER, target=MODEL), marked(OTHER, target=MODEL), locked(),
                            (golden("other_model_chunk"), Reply(rows=[(1,)]))])  # B's chunk, uncommitted, is old
    second = FakeConnection([marked(OTHER, target=MODEL), marked(OTHER, target=MODEL), locked(),
                             (golden("other_model_chunk"), Reply(rows=[(0,)]))])  # after A's commit: none left
    for conn in (first, second):
        write(conn, settings)
        sent = conn.sqls
        assert sent.index(golden("lock_model_target")) < sent.index(golden("other_model_chunk"))
        assert sent.index(golden("upsert_chunk")) < sent.index(golden("lock_model_target"))
        assert conn.events == ["commit"]  # the lock is held until the unit's own commit
    assert golden("delete_setting") not in first.sqls and golden("delete_setting") in second.sqls


@pytest.mark.parametrize("target", [None, "THIRD_MODEL"])
def test_a_writer_that_got_the_lock_after_another_ended_the_swap_does_nothing_more(settings, target):
    conn = FakeConnection([marked(OTHER, target=MODEL), marked(OTHER, target=MODEL), locked(target)])
    write(conn, settings)  # the row is gone (the other writer's commit ended the swap), or names another swap
    assert [s for s, _ in mark_calls(conn)][-1] == golden("lock_model_target") and conn.events == ["commit"]


@pytest.mark.parametrize("key", ["EMBEDDING_MODEL", "UPSERT_FORM"])
def test_ora_00001_on_a_settings_merge_is_someone_else_having_written_it(settings, key):
    """REVIEW-3 W1: two sessions MERGE-inserting the same new key (the first mark of an empty index; two workers
    storing the two-step form) race to ORA-00001 in the second. Only that statement is rolled back; the MERGE again
    finds the committed row and updates it, and the batch commits instead of failing into a retry."""
    from app.engines.oracle import upsert
    from tests.oracle.fakes import ora_error

    taken = (golden("write_setting"), Reply(error=ora_error(1, "unique constraint (APP.RAG_SETTINGS_PK) violated")))
    if key == "EMBEDDING_MODEL":
        conn = FakeConnection([marked(None, has_chunks=0), marked(None, has_chunks=1), taken])
        write(conn, settings)
        value = MODEL
    else:
        conn = FakeConnection([marked(MODEL), marked(MODEL), (golden("upsert_chunk"), Reply(error=ora_error(932, "x"))),
                               ("VECTOR_EMBEDDING", Reply(rows=[(array("f", [0.05] * 384),)])),
                               ("VECTOR_EMBEDDING", Reply(rows=[(array("f", [0.05] * 384),)])), taken])
        write(conn, settings)
        value = upsert.UPSERT_TWO_STEP
    writes = [c.binds for c in conn.calls if c.sql == golden("write_setting")]
    assert writes == [{"setting_key": key, "setting_value": value}] * 2 and conn.events == ["commit"]
    conn = FakeConnection([marked(None, has_chunks=0), marked(None, has_chunks=1),
                           (golden("write_setting"), Reply(error=ora_error(2291, "parent key not found")))])
    with pytest.raises(Exception, match="ORA-02291"):  # any other error is still an error
        write(conn, settings)
    assert conn.events == ["rollback"]


def test_a_swap_with_chunks_of_the_old_model_left_goes_on(settings):
    conn = FakeConnection([marked(OTHER, target=MODEL), marked(OTHER, target=MODEL), locked(),
                           (golden("other_model_chunk"), Reply(rows=[(1,)]))])
    write(conn, settings)
    assert [s for s, _ in mark_calls(conn)][-1] == golden("other_model_chunk")  # the mark stays


def test_the_old_model_cannot_write_into_a_swap(settings):
    conn = FakeConnection([marked(OTHER, target=MODEL)])
    engine = OracleEngine(FakePool(conn), settings.model_copy(update={"oracle_model_name": OTHER}))
    with pytest.raises(EmbeddingModelError, match=f"made by the embedding model {MODEL}"):
        with engine.indexing() as tx:
            tx.write_chunks([chunk()])
    assert golden("upsert_chunk") not in conn.sqls and conn.events == ["rollback"]


def test_the_first_vectors_of_an_empty_index_are_marked_and_a_marked_index_is_left_alone(settings):
    conn = FakeConnection([marked(None, has_chunks=0), marked(None, has_chunks=1)])
    write(conn, settings)
    assert mark_calls(conn)[-1] == (golden("write_setting"), {"setting_key": "EMBEDDING_MODEL", "setting_value": MODEL})
    conn = FakeConnection(defaults={sql.READ_MODEL_MARK: Reply(rows=[(MODEL, None, 1)])})
    write(conn, settings)
    assert [s for s, _ in mark_calls(conn)] == [golden("read_model_mark")] * 2


def test_a_forced_backfill_under_another_model_starts_the_swap_in_its_transaction(settings):
    conn = FakeConnection([marked(OTHER), marked(OTHER, target=MODEL), locked(),
                           (golden("other_model_chunk"), Reply(rows=[(1,)])),
                           ("FROM TASKS x", Reply(rows=[(1,), (2,)]))])
    assert engine_over(conn, settings).enqueue_backfill(["task", "sprint", "project", "doc"], force=True) == 2
    assert (golden("write_setting"), {"setting_key": "EMBEDDING_MODEL_TARGET", "setting_value": MODEL}) in mark_calls(conn)
    assert conn.sqls.index(golden("write_setting")) < conn.sqls.index(golden("enqueue")) and conn.events == ["commit"]


def test_a_filtered_forced_backfill_cannot_start_a_swap_it_could_never_finish(settings):
    conn = FakeConnection([marked(OTHER)])
    with pytest.raises(ConflictError, match="must cover everything"):
        engine_over(conn, settings).enqueue_backfill(["task"], force=True)
    assert conn.sqls == [golden("read_model_mark")] and conn.events == ["rollback"]


def test_a_forced_backfill_under_the_marked_model_is_no_swap(settings):
    conn = FakeConnection([marked(MODEL)])
    engine_over(conn, settings).enqueue_backfill(["task"], force=True, limit=3)
    assert golden("write_setting") not in conn.sqls


def test_migrate_marks_an_index_from_before_the_mark_with_the_upgrading_process_model(settings, monkeypatch):
    from app.engines.oracle import migrate

    monkeypatch.setattr(migrate, "migrate", lambda conn: ["15"])
    conn = FakeConnection([marked(None, has_chunks=1)])
    assert engine_over(conn, settings).migrate() == ["15"]
    assert mark_calls(conn)[-1] == (golden("write_setting"), {"setting_key": "EMBEDDING_MODEL", "setting_value": MODEL})
    assert conn.events == ["commit"]
    for row in ((MODEL, None, 1), (None, None, 0)):  # already marked; nothing stored
        conn = FakeConnection([(golden("read_model_mark"), Reply(rows=[row]))])
        engine_over(conn, settings).migrate()
        assert golden("write_setting") not in conn.sqls


def test_status_names_the_model_of_the_vectors_and_the_swap_target(settings):
    conn = FakeConnection([("MIN(ENQUEUED_AT)", Reply(rows=[(0, None, None, 0, 0)])),
                            ("GROUP BY SOURCE_TYPE, SOURCE_ID", Reply(rows=[(0,)])), marked(OTHER, target=MODEL)])
    index = engine_over(conn, settings).status(5).index
    assert (index["vectors_model"], index["swap_target"]) == (OTHER, MODEL)


def test_the_refusals_are_the_embedded_engines_with_the_oracle_setting():
    assert judge.search_refusal(OTHER, None, MODEL, "RAG_ORACLE_MODEL_NAME") == judge.mismatch(
        OTHER, MODEL, "RAG_ORACLE_MODEL_NAME")
    assert judge.write_refusal(None, None, MODEL, "X") is None and judge.is_swap(OTHER, None, MODEL)


def test_the_api_answers_a_search_on_another_model_with_a_503_naming_the_swap(settings):
    conn = FakeConnection([("EMPLOYEE_ID = :employee_id", Reply(rows=[(1, "MANAGER")])),
                           ("VECTOR_EMBEDDING", Reply(rows=[(array("f", [0.05] * 384),)])), marked(OTHER)])
    app_settings = settings.model_copy(update={"api_tokens": SecretStr("t"), "run_worker": False,
                                               "backfill_on_startup": False})
    with TestClient(create_app(app_settings, engine=engine_over(conn, app_settings)),
                    raise_server_exceptions=False) as client:
        answer = client.post("/api/v1/search", json={"question": "login bug", "employee_id": 1},
                             headers={"Authorization": "Bearer t"})
    assert answer.status_code == 503
    assert f"made by the embedding model {OTHER}" in answer.json()["detail"]
    assert "ragctl backfill --force" in answer.json()["detail"]
