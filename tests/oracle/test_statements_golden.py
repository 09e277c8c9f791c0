"""Every Oracle statement's exact text and binds, pinned by tests/oracle/golden/ (one file per statement).

The engine runs against a recording fake of python-oracledb (tests/oracle/fakes.py): these tests check
what is SENT, not what a database does with it; the conformance suite's Oracle leg does that.
"""

from __future__ import annotations

from array import array

import numpy as np
import pytest

from app.domain import Caller, ChunkWrite, Role, Scope
from app.engines.base import ConflictError, ModelMissingError, UnavailableError
from app.engines.oracle import indexing_statements as indexing_sql
from app.engines.oracle import record_statements as record_sql
from app.engines.oracle import search_statements as search_sql
from app.engines.oracle.search import text_query
from app.entities import COMMENTS, PROJECTS, TASKS, Condition
from app.rag.fusion import RRF_K
from .fakes import GOLDEN, Reply, golden, ora_error, own_names, statement_modules

NOT_STATEMENTS = {"VECTOR_INDEX", "TEXT_INDEX", "VERSION_TABLE", "ACCESS_PREDICATE", "ERASURE_COLUMNS"}  # and private fragments
DEV = Caller(7, Role.DEVELOPER)
MANAGER = Caller(1, Role.MANAGER)


def statement_constants() -> dict[str, str]:
    """Every statement constant of every room (app/engines/oracle/*statements.py), each in the room that defines it."""
    return {
        name: value
        for module in statement_modules()
        for name, value in vars(module).items()
        if name in own_names(module) and not name.startswith("_") and name.isupper() and isinstance(value, str)
        and name not in NOT_STATEMENTS
    }


@pytest.mark.parametrize("name", sorted(statement_constants()))
def test_every_statement_constant_matches_its_golden_file(name):
    assert statement_constants()[name] == golden(name.lower())


def test_every_golden_file_names_its_facts_section_and_is_used():
    names = {p.stem for p in GOLDEN.glob("*.sql")}
    for name in names:
        golden(name)  # asserts the header
    constants = {n.lower() for n in statement_constants()}
    builders = names - constants
    # Builder outputs are pinned by the engine-driven tests below; all of them are referenced here.
    source = "".join(p.read_text() for p in GOLDEN.parent.glob("test_*golden.py"))
    assert all(f'"{b}"' in source for b in builders), sorted(b for b in builders if f'"{b}"' not in source)


def test_wipe_deletes_children_first_and_the_queue_last(fake_engine, conn):
    fake_engine.wipe()
    assert ";\n".join(conn.sqls) == golden("wipe")
    assert conn.events == ["commit"]


# --- queue ------------------------------------------------------------------------------------

def test_claim_sets_prefetch_and_arraysize_before_execute_and_fetches_only_the_batch(fake_engine, conn):
    rows = [(i, "task", 100 + i, "UPSERT", 0) for i in range(1, 40)]
    conn.replies.append(("FOR UPDATE SKIP LOCKED", Reply(rows=rows)))
    with fake_engine.indexing() as tx:
        claimed = tx.claim(8, 5)
    call = conn.calls[0]
    assert call.sql == golden("claim")
    assert call.binds == {"max_attempts": 5, "claim_window": 8 * indexing_sql.CLAIM_WINDOW_FACTOR}
    assert (call.prefetchrows, call.arraysize) == (8, 8)  # as they were AT execute time
    assert [r.dirty_id for r in claimed] == list(range(1, 9))
    assert all(isinstance(r.source_id, int) for r in claimed)
    assert conn.events == ["commit"]


def test_claim_is_a_rowid_window_wider_than_the_batch():
    # FACTS.md §6: FETCH FIRST directly under FOR UPDATE is ORA-02014, so the limit sits in a ROWID
    # subquery; that subquery ignores locks, so a window of exactly the batch gives a second
    # concurrent worker zero rows. The window must be wider than the batch.
    text = indexing_sql.CLAIM.upper()
    assert text.endswith("FOR UPDATE SKIP LOCKED")
    assert "ROWID IN (" in text and "FETCH FIRST :CLAIM_WINDOW ROWS ONLY)" in text
    assert indexing_sql.CLAIM_WINDOW_FACTOR >= 2


def test_claim_work_and_delete_share_one_transaction_and_roll_back_together(fake_engine, conn):
    with pytest.raises(RuntimeError):
        with fake_engine.indexing() as tx:
            tx.claim(4, 5)
            tx.delete_dirty([1, 2])
            raise RuntimeError("embedding failed")
    assert conn.events == ["rollback"]
    delete = conn.calls[-1]
    assert delete.kind == "executemany" and delete.sql == golden("delete_dirty")
    assert delete.binds == [{"dirty_id": 1}, {"dirty_id": 2}]


def test_empty_batches_send_nothing(fake_engine, conn):
    with fake_engine.indexing() as tx:
        tx.delete_dirty([])
        tx.write_chunks([])
        assert tx.claim(0, 5) == []
    fake_engine.record_failure({}, "x")
    assert conn.calls == []


def test_record_failure_and_retry(fake_engine, conn):
    fake_engine.record_failure({3: 1.0, 4: 8.0}, "boom " + "é" * 3000)
    call = conn.calls[0]
    assert call.sql == golden("record_failure") and call.kind == "executemany"
    assert [(b["dirty_id"], b["retry_after_s"]) for b in call.binds] == [(3, 1.0), (4, 8.0)]
    assert len(call.binds[0]["last_error"].encode()) <= 4000
    conn.replies.append(("ATTEMPTS = 0", Reply(rowcount=2)))
    assert fake_engine.retry_stuck() == 2
    assert conn.calls[-1].sql == golden("retry_stuck")
    assert conn.events == ["commit", "commit"]


# --- indexing ---------------------------------------------------------------------------------

def chunk(ix=0, owner=None):
    return ChunkWrite("task", 11, ix, owner, 3, None, f"[TASK #11] text {ix}", f"hash{ix}")


def test_write_chunks_merges_with_in_database_embedding_and_syncs_text_after_commit(fake_engine, conn):
    doc = ChunkWrite("doc", 12, 0, None, None, None, "[DOC #12] runbook", "hash2", "WIKI")
    with fake_engine.indexing() as tx:
        tx.write_chunks([chunk(0), chunk(1, owner=7), doc])
    # No stale write wins: each source's row is locked and re-read before the MERGE (never loaded
    # here, so "absent" is what the re-read must find: the fake returns no rows).
    # Parents first (REVIEW-2 W8): a task before a document, as a project delete locks its children.
    assert [c.sql for c in conn.calls[:4]] == [golden("lock_sources_task"), record_sql.load_sources("task", [11]).sql,
                                               golden("lock_sources_doc"), record_sql.load_sources("doc", [12]).sql]
    assert conn.calls[0].binds == {"id0": 11}
    # The stored upsert form (V12 RAG_SETTINGS; no row: this MERGE), read once per batch that writes.
    assert conn.calls[4].sql == golden("read_setting") and conn.calls[4].binds == {"setting_key": "UPSERT_FORM"}
    merge = conn.calls[5]
    assert merge.kind == "executemany" and merge.sql == golden("upsert_chunk")
    assert merge.binds[1] == {
        "source_type": "task", "source_id": 11, "chunk_ix": 1, "owner_employee_id": 7, "project_id": 3,
        "sprint_id": None, "doc_type": None, "content": "[TASK #11] text 1", "content_hash": "hash1",
        "embedding_model": "ALL_MINILM_L12_V2",  # RAG_CHUNK.EMBEDDING_MODEL (V15): the model mark's per-chunk half
    }
    assert merge.binds[2]["doc_type"] == "WIKI" and merge.binds[2]["source_type"] == "doc"
    assert set(merge.inputsizes) == {"owner_employee_id", "project_id", "sprint_id"}
    assert conn.events == ["commit"]
    sync = conn.calls[6]
    assert sync.sql == golden("sync_text_index") and sync.binds == {"idx_name": "RAG_CHUNK_TEXT_IDX"}


def test_a_unit_locks_its_sources_parents_first_then_by_id(fake_engine, conn):
    """REVIEW-2 W8: DELETE FROM PROJECTS locks the project, then (ON DELETE SET NULL) its sprints, tasks and
    documents; a unit that locked a document before its project could deadlock with it (ORA-00060)."""
    writes = [ChunkWrite(t, i, 0, None, None, None, f"[{t}] {i}", "h") for t, i in
              (("doc", 2), ("task", 9), ("sprint", 4), ("task", 3), ("project", 7), ("doc", 1))]
    with fake_engine.indexing() as tx:
        tx.write_chunks(writes)
    locks = [c for c in conn.calls if c.sql.endswith("FOR UPDATE")]
    assert [(c.sql.split()[3], list(c.binds.values())) for c in locks] == [
        ("PROJECTS", [7]), ("SPRINTS", [4]), ("TASKS", [3, 9]), ("DOCUMENTS", [1, 2])]


def test_missing_model_while_indexing_is_a_model_missing_error(fake_engine, conn):
    conn.replies.append(("MERGE INTO", Reply(error=ora_error(40284, "model does not exist"))))
    with pytest.raises(ModelMissingError, match="ragctl oracle bootstrap"):
        with fake_engine.indexing() as tx:
            tx.write_chunks([chunk()])
    assert conn.events == ["rollback"]


def test_text_sync_failure_is_not_fatal(fake_engine, conn):
    conn.replies.append(("CTX_DDL", Reply(error=ora_error(20000, "sync refused"))))
    with fake_engine.indexing() as tx:
        tx.delete_chunks("task", 11, 2)
    assert conn.calls[2].sql == golden("delete_chunks")
    assert conn.calls[2].binds == {"source_type": "task", "source_id": 11, "from_ix": 2}


def test_load_sources_and_hashes(fake_engine, conn):
    import datetime as dt

    task_row = (11, "Fix login", "TODO", "HIGH", 5, "Sprint 1", 3, "Apollo", 7, "Ana", "Ruiz", 3, 2.5,
                dt.datetime(2026, 1, 2), "desc", None, None, None, None, None, None) + (None,) * 11 + (0,)
    conn.replies += [("FROM TASKS t", Reply(rows=[task_row])),
                     ("FROM COMMENTS", Reply(rows=[(11, "first", None, None, None, None),
                                                   (11, "second", None, None, None, None)])),
                     ("FROM TASK_LINKS", Reply(rows=[])),
                     ("CONTENT_HASH FROM RAG_CHUNK", Reply(rows=[(11, 0, "h0"), (11, 1, "h1")]))]
    with fake_engine.indexing() as tx:
        records = tx.load_sources("task", [11, 12])
        hashes = tx.chunk_hashes("task", [11, 12])
        for source_type, ids in (("sprint", [5]), ("project", [3]), ("doc", [9])):
            tx.load_sources(source_type, ids)
    assert conn.calls[0].sql == golden("load_sources_task") and conn.calls[0].binds == {"id0": 11, "id1": 12}
    assert conn.calls[1].sql == golden("task_comments") and conn.calls[1].binds == {"id0": 11}
    assert conn.calls[2].sql == golden("task_links") and conn.calls[2].binds == {"id0": 11}
    assert conn.calls[3].sql == golden("chunk_hashes")
    assert conn.calls[3].binds == {"source_type": "task", "id0": 11, "id1": 12}
    assert [c.sql for c in conn.calls[4:]] == [golden("load_sources_sprint"), golden("load_sources_project"),
                                               golden("load_sources_doc")]
    record = records[11]
    assert [c.body for c in record.comments] == ["first", "second"] and record.expected_end_date == dt.date(2026, 1, 2)
    assert record.story_points == 3.0 and hashes == {11: {0: "h0", 1: "h1"}}


def test_backfill_queries_and_enqueues(fake_engine, conn):
    conn.replies.append(("FROM TASKS x", Reply(rows=[(1,), (2,)])))
    assert fake_engine.enqueue_backfill(["task"]) == 2
    assert conn.calls[0].sql == golden("backfill_ids_missing") and conn.calls[0].binds == {"source_type": "task"}
    assert conn.calls[1].sql == golden("enqueue")
    assert conn.calls[1].binds == [{"source_type": "task", "source_id": 1}, {"source_type": "task", "source_id": 2}]
    conn.calls.clear()
    conn.replies.append(("FROM SPRINTS x", Reply(rows=[(4,)])))
    assert fake_engine.enqueue_backfill(["sprint"], project_id=3, force=True, limit=10, dry_run=True) == 1
    assert conn.calls[0].sql == golden("backfill_ids_forced_project_limited")
    assert conn.calls[0].binds == {"project_id": 3, "max_rows": 10}
    assert len(conn.calls) == 1 and conn.events[-1] == "rollback"  # dry run queues nothing


# --- read path --------------------------------------------------------------------------------

def vec(seed=0):
    return np.random.default_rng(seed).random(384, dtype=np.float32)


def rows(n, source_type="task"):
    return [(source_type, i, 0, f"chunk {i}", 0.1 * i) for i in range(1, n + 1)]


def visible_statistics(rows_seen=100, mean_length=20.0, holding=(5,)):
    """Replies to the text arm's statistics: N and the mean length, then n(t) for each term in order."""
    return [("AVG(CONTENT_CHARS)", Reply(rows=[(rows_seen, mean_length)])),
            *(("COUNT(*) FROM RAG_CHUNK WHERE CONTAINS", Reply(rows=[(n,)])) for n in holding)]


def test_embed_query_is_one_select_from_dual(fake_engine, conn):
    conn.replies.append(("VECTOR_EMBEDDING", Reply(rows=[(array("f", vec()),)])))
    out = fake_engine.embed_query("login bug")
    assert conn.calls[0].sql == golden("embed_query") and conn.calls[0].binds == {"q": "login bug"}
    assert out.dtype == np.float32 and out.shape == (384,)


def test_embed_query_without_model_tells_the_operator_what_to_run(fake_engine, conn):
    conn.replies.append(("VECTOR_EMBEDDING", Reply(error=ora_error(40284, "model does not exist"))))
    with pytest.raises(ModelMissingError, match="ragctl oracle bootstrap"):
        fake_engine.embed_query("login bug")


def test_unscoped_manager_search_is_the_plain_approx_query(fake_engine, conn):
    conn.replies.append(("FETCH APPROX", Reply(rows=rows(5))))
    result = fake_engine.search(vec(), "q", MANAGER, 5, Scope(), "vector")
    call = conn.calls[0]
    assert call.sql == golden("vector_search_manager_unscoped") and len(conn.calls) == 1
    assert set(call.binds) == {"qv", "k"} and call.binds["k"] == 5
    assert isinstance(call.binds["qv"], array) and call.binds["qv"].typecode == "f"
    assert result.answered_by == "approx" and [h.source_id for h in result.hits] == [1, 2, 3, 4, 5]
    assert result.hits[0].score == pytest.approx(1 - 0.1)


def test_short_filtered_approx_answer_falls_back_to_exact(fake_engine, conn):
    scope = Scope(project=3, sprint_id=5, source_types=("task", "doc"))
    conn.replies += [("FETCH APPROX", Reply(rows=rows(1))), ("FETCH EXACT", Reply(rows=rows(4)))]
    result = fake_engine.search(vec(), "q", DEV, 4, scope, "vector")
    approx, exact = conn.calls
    assert approx.sql == golden("vector_search_developer_scoped")
    assert exact.sql == golden("vector_search_developer_scoped_exact")
    expected = {"caller_id": 7, "project_id": 3, "sprint_id": 5, "st0": "task", "st1": "doc", "k": 4}
    assert {k: v for k, v in approx.binds.items() if k != "qv"} == expected
    assert {k: v for k, v in exact.binds.items() if k != "qv"} == expected
    assert result.answered_by == "exact-fallback" and len(result.hits) == 4


def test_doc_types_scope_narrows_document_chunks_only(fake_engine, conn):
    scope = Scope(project=3, source_types=("task", "doc"), doc_types=("MEETING_NOTES", "WIKI"))
    conn.replies.append(("FETCH APPROX", Reply(rows=rows(2))))
    fake_engine.search(vec(), "q", DEV, 2, scope, "vector")
    call = conn.calls[0]
    assert call.sql == golden("vector_search_developer_doc_types") and len(conn.calls) == 1
    assert {k: v for k, v in call.binds.items() if k != "qv"} == {
        "caller_id": 7, "project_id": 3, "st0": "task", "st1": "doc", "dt0": "MEETING_NOTES", "dt1": "WIKI", "k": 2}


def test_project_none_scope(fake_engine, conn):
    conn.replies.append(("FETCH APPROX", Reply(rows=rows(2))))
    fake_engine.search(vec(), "q", MANAGER, 2, Scope(project="none"), "vector")
    assert conn.calls[0].sql == golden("vector_search_manager_project_none")
    assert set(conn.calls[0].binds) == {"qv", "k"}


def test_hybrid_fuses_vector_and_oracle_text_arms(fake_engine, conn):
    scope = Scope(project=3, sprint_id=5, source_types=("task", "doc"))
    vector_rows = [("task", 1, 0, "one", 0.2), ("task", 2, 0, "two", 0.3)] + rows(50)[2:]  # a full APPROX answer
    text_rows = [("doc", 9, 0, "XK-42 key", 0.7), ("task", 2, 0, "two", 0.3)]
    conn.replies += [("FETCH APPROX", Reply(rows=vector_rows)), *visible_statistics(holding=(1, 3, 4)),
                     ("ORDER BY SCORE(1)", Reply(rows=text_rows))]
    result = fake_engine.search(vec(), "Rotate XK-42, rotate!", DEV, 3, scope, "hybrid")
    vector_call, stats_call, *term_calls, text_call = conn.calls
    assert vector_call.binds["k"] == 50  # candidate_depth(3): the same depth as the SQLite engine
    # The statistics: the caller's visible set under the access rule, not the scope (it is theirs to see).
    assert stats_call.sql == golden("text_statistics_developer") and stats_call.binds == {"caller_id": 7}
    assert [c.sql for c in term_calls] == [golden("text_term_rows_developer")] * 3
    assert [c.binds for c in term_calls] == [{"caller_id": 7, "tq": t} for t in ("{Rotate}", "{XK}", "{42}")]
    assert text_call.sql == golden("text_search_developer_scoped")
    assert {k: v for k, v in text_call.binds.items() if k != "qv"} == {
        "caller_id": 7, "project_id": 3, "sprint_id": 5, "st0": "task", "st1": "doc",
        "tq": "{Rotate} ACCUM {XK} ACCUM {42}", "n": 200}  # TEXT_CANDIDATES: re-ranked, then the best 50
    keys = [(h.source_type, h.source_id) for h in result.hits]
    assert keys[0] == ("task", 2)  # in both arms
    assert ("doc", 9) in keys  # lexical-only hit keeps its distance from the text arm
    assert next(h for h in result.hits if h.source_id == 9).distance == pytest.approx(0.7)
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
    # each arm's rank of each hit (the console's explainer shows them), and the fused score they make
    ranked = {(h.source_type, h.source_id): (h.vector_rank, h.lexical_rank) for h in result.hits}
    assert ranked[("task", 2)] == (2, 2) and ranked[("doc", 9)] == (None, 1) and ranked[("task", 1)] == (1, None)
    for h in result.hits:
        assert h.score == pytest.approx(sum(1 / (RRF_K + r) for r in (h.vector_rank, h.lexical_rank) if r))


def test_vector_mode_ranks_are_the_order_and_lexical_ranks_are_none(fake_engine, conn):
    conn.replies.append(("FETCH APPROX", Reply(rows=rows(3))))
    result = fake_engine.search(vec(), "q", MANAGER, 3, Scope(), "vector")
    assert [(h.vector_rank, h.lexical_rank) for h in result.hits] == [(1, None), (2, None), (3, None)]


def test_hybrid_unscoped_manager_text_arm(fake_engine, conn):
    conn.replies += [("FETCH APPROX", Reply(rows=rows(50))), *visible_statistics()]  # 50 rows: no fallback
    fake_engine.search(vec(), "login", MANAGER, 2, Scope(), "hybrid")
    _, stats_call, term_call, text_call = conn.calls
    assert (stats_call.sql, stats_call.binds) == (golden("text_statistics_manager"), {})
    assert (term_call.sql, term_call.binds) == (golden("text_term_rows_manager"), {"tq": "{login}"})
    assert text_call.sql == golden("text_search_manager_unscoped")
    assert set(text_call.binds) == {"qv", "tq", "n"}


def test_lexical_mode_runs_only_the_text_arm_and_keeps_vector_distances(fake_engine, conn):
    text_rows = [("doc", 9, 0, "XK-42 key", 0.7), ("doc", 9, 1, "XK-42 again", 0.4), ("task", 2, 0, "two", 0.3)]
    conn.replies += [*visible_statistics(holding=(0, 2, 2)), ("ORDER BY SCORE(1)", Reply(rows=text_rows))]
    scope = Scope(project=3, sprint_id=5, source_types=("task", "doc"))
    result = fake_engine.search(vec(), "Rotate XK-42", DEV, 3, scope, "lexical")
    assert "FETCH APPROX" not in "".join(conn.sqls)  # the vector arm is not asked
    text_call = conn.calls[-1]
    assert text_call.sql == golden("text_search_developer_scoped")  # the hybrid text arm, unchanged
    assert text_call.binds["n"] == 200 and text_call.binds["tq"] == "{Rotate} ACCUM {XK} ACCUM {42}"
    assert result.mode == "lexical" and result.answered_by == "text"
    # BM25 over the visible statistics (the shorter chunk first, the one holding no term last); each distance
    # comes from its row.
    assert [(h.source_type, h.source_id, h.chunk_ix, h.distance) for h in result.hits] == [
        ("doc", 9, 0, pytest.approx(0.7)), ("doc", 9, 1, pytest.approx(0.4)), ("task", 2, 0, pytest.approx(0.3))]
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_lexical_mode_with_no_searchable_term_asks_nothing_and_finds_nothing(fake_engine, conn):
    result = fake_engine.search(vec(), "what is the and of it?", MANAGER, 5, Scope(), "lexical")
    assert result.hits == [] and conn.calls == []  # stop words only: no Text query, no error


def test_lexical_mode_reports_an_oracle_text_failure_hybrid_survives_it(fake_engine, conn):
    conn.replies += [*visible_statistics(),
                     ("ORDER BY SCORE(1)", Reply(error=ora_error(29902, "error in executing ODCIIndexStart")))]
    with pytest.raises(UnavailableError, match="29902") as failure:  # a 503 with Retry-After, not a 500
        fake_engine.search(vec(), "login", MANAGER, 2, Scope(), "lexical")
    assert failure.value.retry_after_s == 30 and "vector and hybrid search still work" in str(failure.value)
    conn.replies += [("FETCH APPROX", Reply(rows=rows(50))), ("AVG(CONTENT_CHARS)", Reply(rows=[(100, 20.0)])),
                     ("CONTAINS", Reply(error=ora_error(29902, "error in executing ODCIIndexStart")))]
    assert len(fake_engine.search(vec(), "login", MANAGER, 2, Scope(), "hybrid").hits) == 2


def test_the_text_arm_orders_by_the_callers_own_statistics_not_oracle_texts_score(fake_engine, conn):
    """Issue 26 point 6 on Oracle: SCORE counts chunks the caller cannot see, so its order is discarded and the
    candidates are ranked by BM25 over the visible counts. The same candidates in any SCORE order give the same
    ranking, and counts that make "layoffs" rare among what the caller sees put its chunk first."""
    candidates = [("doc", 1, 0, "layoffs", 0.5), ("doc", 2, 0, "picnic", 0.5), ("doc", 3, 0, "picnic picnic", 0.5)]
    orders = []
    for text_rows in (candidates, candidates[::-1], [candidates[1], candidates[0], candidates[2]]):
        fake_engine.text_statistics.invalidate()  # as a committed write does: the statistics are read again
        conn.replies += [*visible_statistics(rows_seen=40, mean_length=7.0, holding=(1, 9)),
                         ("ORDER BY SCORE(1)", Reply(rows=text_rows))]
        orders.append([h.source_id for h in fake_engine.search(vec(), "layoffs picnic", DEV, 3, Scope(),
                                                                "lexical").hits])
    assert orders == [[1, 3, 2]] * 3
    fake_engine.text_statistics.invalidate()
    conn.replies += [*visible_statistics(rows_seen=40, mean_length=7.0, holding=(9, 1)),
                     ("ORDER BY SCORE(1)", Reply(rows=candidates))]
    assert [h.source_id for h in fake_engine.search(vec(), "layoffs picnic", DEV, 3, Scope(), "lexical").hits] == [
        3, 2, 1]


def test_the_statistics_are_read_once_per_visibility_class_until_a_write_commits(fake_engine, conn):
    """REVIEW-4 W1: N, the mean length and each n(t) are cached per visibility class (a manager: every chunk; a
    developer: their own visible set) and per term; a write through the engine clears them once committed."""
    text_rows = [("doc", 9, 0, "login key", 0.7)]
    conn.replies += [*visible_statistics(holding=(5,)), ("ORDER BY SCORE(1)", Reply(rows=text_rows))]
    fake_engine.search(vec(), "login", DEV, 3, Scope(), "lexical")
    assert [c.sql for c in conn.calls][:2] == [golden("text_statistics_developer"), golden("text_term_rows_developer")]
    assert len(conn.calls) == 3 and "ORDER BY SCORE(1)" in conn.calls[2].sql
    conn.calls.clear()
    scope = Scope(project=3, sprint_id=5, source_types=("task", "doc"))
    conn.replies += [("ORDER BY SCORE(1)", Reply(rows=text_rows)), *visible_statistics(holding=(3,))[1:],
                     ("ORDER BY SCORE(1)", Reply(rows=text_rows))]
    fake_engine.search(vec(), "login", DEV, 3, scope, "lexical")  # a scope is not a visibility class
    assert [c.sql for c in conn.calls] == [golden("text_search_developer_scoped")]
    fake_engine.search(vec(), "LOGIN payroll", DEV, 3, Scope(), "lexical")  # only the new term is counted
    assert [c.binds.get("tq") for c in conn.calls[1:]] == ["{payroll}", "{LOGIN} ACCUM {payroll}"]
    conn.calls.clear()
    conn.replies += [*visible_statistics(holding=(1,)), ("ORDER BY SCORE(1)", Reply(rows=text_rows))]
    fake_engine.search(vec(), "login", Caller(8, Role.DEVELOPER), 3, Scope(), "lexical")  # another class
    assert [c.binds for c in conn.calls[:2]] == [{"caller_id": 8}, {"caller_id": 8, "tq": "{login}"}]
    conn.calls.clear()
    conn.replies += [("INSERT INTO TASKS", Reply(out={"new_id": [1]})), ("FROM TASKS WHERE", Reply(rows=[(1,) + (None,) * 10]))]
    fake_engine.create(TASKS, {})  # a committed write (its triggers may move chunks): the next search reads again
    assert conn.events[-1] == "commit"
    conn.calls.clear()
    conn.replies += [*visible_statistics(holding=(6,)), ("ORDER BY SCORE(1)", Reply(rows=text_rows))]
    fake_engine.search(vec(), "login", DEV, 3, Scope(), "lexical")
    assert [c.sql for c in conn.calls][:2] == [golden("text_statistics_developer"), golden("text_term_rows_developer")]


def test_the_statistics_cache_expires_and_never_keeps_a_value_read_across_a_write():
    """Another process's writes are seen within TTL_S; a value read while a write committed is not kept."""
    from app.engines.oracle.text_statistics import TextStatisticsCache

    now = [100.0]
    cache = TextStatisticsCache(ttl_s=10.0, max_terms=2, clock=lambda: now[0])
    generation = cache.generation()
    cache.put_totals(7, generation, 40, 7.5)
    cache.put_term(7, generation, "login", 3)
    assert cache.totals(7) == (40, 7.5) and cache.terms(7, ["login", "key"]) == ({"login": 3}, ["key"])
    assert cache.totals(None) is None and cache.terms(8, ["login"]) == ({}, ["login"])  # other classes
    now[0] += 10.0
    assert cache.totals(7) is None and cache.terms(7, ["login"]) == ({}, ["login"])  # expired
    stale = cache.generation()
    cache.invalidate()  # a write committed while that value was being read
    cache.put_totals(7, stale, 41, 7.0)
    cache.put_term(7, stale, "login", 4)
    assert cache.totals(7) is None and cache.terms(7, ["login"]) == ({}, ["login"])
    fresh = cache.generation()
    for term in ("a", "b", "c"):
        cache.put_term(7, fresh, term, 1)
    assert cache.terms(7, ["a", "b", "c"]) == ({"b": 1, "c": 1}, ["a"])  # bounded: the least recent went


def test_a_dropped_text_arm_is_reported_with_its_reason(fake_engine, conn):
    """REVIEW-4 W1: hybrid search survives a failed text arm, and says so (services.search counts it)."""
    from oracledb import errors as driver

    try:
        driver._raise_err(driver.ERR_CALL_TIMEOUT_EXCEEDED, timeout=60000)
    except Exception as exc:  # oracledb.DatabaseError: DPY-4024
        timeout = exc
    conn.replies += [("FETCH APPROX", Reply(rows=rows(50))), ("AVG(CONTENT_CHARS)", Reply(error=timeout))]
    result = fake_engine.search(vec(), "login", MANAGER, 2, Scope(), "hybrid")
    assert len(result.hits) == 2 and result.lexical_dropped == "timeout"
    conn.replies += [("FETCH APPROX", Reply(rows=rows(50))), *visible_statistics(),
                     ("ORDER BY SCORE(1)", Reply(error=ora_error(29902, "error in executing ODCIIndexStart")))]
    fake_engine.text_statistics.invalidate()
    assert fake_engine.search(vec(), "login", MANAGER, 2, Scope(), "hybrid").lexical_dropped == "error"
    conn.replies += [("FETCH APPROX", Reply(rows=rows(50))), ("ORDER BY SCORE(1)", Reply(rows=rows(2)))]
    assert fake_engine.search(vec(), "login", MANAGER, 2, Scope(), "hybrid").lexical_dropped is None
    # the service counts it: rag_lexical_arm_dropped_total{reason}
    from app import metrics
    from app.services.search import search as service_search

    before = metrics.LEXICAL_ARM_DROPPED.labels("timeout")._value.get()
    fake_engine.text_statistics.invalidate()
    conn.replies += [("FETCH APPROX", Reply(rows=rows(50))), ("AVG(CONTENT_CHARS)", Reply(error=timeout))]
    found = service_search(fake_engine, "login", MANAGER, 2, Scope(), "hybrid", vector=vec())
    assert found.result.lexical_dropped == "timeout" and len(found.result.hits) == 2
    assert metrics.LEXICAL_ARM_DROPPED.labels("timeout")._value.get() == before + 1


def test_no_visible_chunk_holding_a_term_asks_oracle_text_for_nothing(fake_engine, conn):
    conn.replies += visible_statistics(holding=(0, 0))
    assert fake_engine.search(vec(), "layoffs picnic", DEV, 3, Scope(), "lexical").hits == []
    assert not any("ORDER BY SCORE" in c.sql for c in conn.calls)


@pytest.mark.parametrize("text, expected", [
    ("login bug", "{login} ACCUM {bug}"),
    ('a (b) OR "c" NEAR{d}; -- %', "{b} ACCUM {c} ACCUM {NEAR} ACCUM {d}"),  # a, or: stop words
    # Oracle Text operators and reserved words are plain terms inside braces (FACTS.md §12.4).
    ("near about within accum minus", "{near} ACCUM {within} ACCUM {accum} ACCUM {minus}"),
    ("NEAR ABOUT WITHIN ACCUM MINUS FUZZY", "{NEAR} ACCUM {WITHIN} ACCUM {ACCUM} ACCUM {MINUS} ACCUM {FUZZY}"),
    ("42 2024 007", "{42} ACCUM {2024} ACCUM {007}"),  # digits only
    ("Login login LOGIN", "{Login}"),
    ("snake_case _ %", "{snake} ACCUM {case}"),  # '_' and '%' are CONTAINS wildcards
    (r"{k1} \k2} $k3 ?k4 !k5 =k6 >k7 ;k8 ,k9 &k10 |k11 ~k12 k13*", " ACCUM ".join(f"{{k{i}}}" for i in range(1, 14))),
    ("?!", ""),
    ("and or not", ""),  # stop words only: the Text arm is skipped
    ("what is the status of it?", "{status}"),
    ("x" * 256 + " kept", "{kept}"),  # over Oracle Text's 255-byte token limit: dropped
    ("ñ" * 127 + " kept", "{" + "ñ" * 127 + "} ACCUM {kept}"),  # 254 bytes: kept
])
def test_text_query_is_brace_escaped_accum_terms(text, expected):
    assert text_query(text) == expected


def test_text_query_has_at_most_32_terms():
    assert text_query(" ".join(f"w{i}" for i in range(100))) == " ACCUM ".join(f"{{w{i}}}" for i in range(32))


# --- people and CRUD --------------------------------------------------------------------------

def test_callers(fake_engine, conn):
    conn.replies += [("EMPLOYEE_ID = :employee_id", Reply(rows=[(7, "DEVELOPER")]))]
    assert fake_engine.caller(7) == DEV
    assert fake_engine.caller_by_telegram("tg-1") is None
    assert conn.calls[0].sql == golden("caller_by_id") and conn.calls[0].binds == {"employee_id": 7}
    assert conn.calls[1].sql == golden("caller_by_telegram") and conn.calls[1].binds == {"telegram_id": "tg-1"}


def test_create_returns_the_identity_key_and_the_stored_row(fake_engine, conn):
    stored = (42, "Fix", None, "TODO", None, None, 3) + (None,) * 21
    conn.replies += [("INSERT INTO TASKS", Reply(rowcount=1, out={"new_id": [42]})),
                     ("FROM TASKS WHERE", Reply(rows=[stored]))]
    row = fake_engine.create(TASKS, {"TITLE": "Fix", "STATUS": "TODO", "PROJECT_ID": 3, "DESCRIPTION": None})
    insert, select, values = conn.calls  # no list given: no TASK_VALUES write
    assert insert.sql == golden("crud_insert_tasks")
    assert {k: v for k, v in insert.binds.items() if k != "new_id"} == {
        "v_title": "Fix", "v_status": "TODO", "v_project_id": 3}
    assert select.sql == golden("crud_select_tasks") and select.binds == {"row_id": 42}
    assert values.sql == golden("task_values") and values.binds == {"id0": 42}
    assert row["task_id"] == 42 and row["title"] == "Fix" and "description" in row and row["labels"] == []
    assert conn.events == ["commit"]


def test_a_task_write_keeps_its_values_and_display_text_from_one_list(fake_engine, conn):
    """TASK_VALUES rows and the display CLOB come from the same normalised list, in the task's transaction; only the
    difference is written (executemany), and the lists are read back from TASK_VALUES."""
    import datetime as dt

    import oracledb

    stored = (42, "Fix") + (None,) * 26
    conn.replies += [("INSERT INTO TASKS", Reply(rowcount=1, out={"new_id": [42]})),
                     ("FROM TASK_VALUES WHERE TASK_ID = :task_id", Reply(rows=[])),
                     ("FROM TASKS WHERE", Reply(rows=[stored])),
                     ("FROM TASK_VALUES\nWHERE", Reply(rows=[(42, "LABEL", "ui"), (42, "LABEL", "Backend")]))]
    row = fake_engine.create(TASKS, {"TITLE": "Fix", "LABELS": ["ui", " Backend", "ui"], "COMPONENTS": [],
                                     "CREATED_AT": dt.datetime(2026, 11, 2, 9, 30)})
    insert, read, write, *_ = conn.calls
    assert insert.binds["v_labels"] == "Backend, ui" and "v_components" not in insert.binds  # [] is NULL
    assert insert.inputsizes == {"v_created_at": oracledb.DB_TYPE_TIMESTAMP}
    assert read.sql == golden("values_of_task") and read.binds == {"task_id": 42}
    assert write.kind == "executemany" and write.sql == golden("insert_task_value")
    assert write.binds == [{"task_id": 42, "field_name": "LABEL", "field_value": "Backend"},
                           {"task_id": 42, "field_name": "LABEL", "field_value": "ui"}]
    assert row["labels"] == ["Backend", "ui"] and row["components"] == [] and conn.events == ["commit"]
    conn.calls.clear()
    conn.replies += [("UPDATE TASKS", Reply(rowcount=1)),
                     ("FROM TASK_VALUES WHERE TASK_ID = :task_id", Reply(rows=[("LABEL", "Backend"), ("LABEL", "ui")]))]
    fake_engine.update(TASKS, 42, {"LABELS": ["ui", "mobile"]})
    update, read, delete, insert, *_ = conn.calls
    assert update.binds == {"v_labels": "mobile, ui", "row_id": 42}
    assert delete.kind == "executemany" and delete.sql == golden("delete_task_value")
    assert delete.binds == [{"task_id": 42, "field_name": "LABEL", "field_value": "Backend"}]
    assert insert.binds == [{"task_id": 42, "field_name": "LABEL", "field_value": "mobile"}]


def test_the_v18_backfill_splits_the_display_text_of_tasks_without_values(conn):
    """Oracle V18 cannot split the V16 CLOBs in a confirmed SQL shape: the runner fills TASK_VALUES after the version's
    statements, a keyset page at a time, the same split as SQLite V13."""
    from app.engines.oracle import task_values

    page = [(3, "backend, ui", None, "Release 2.1", None), (9, ", ", "API", None, None)]
    conn.replies += [("FROM TASKS t", Reply(rows=page)), ("FROM TASK_VALUES WHERE", Reply(rows=[])),
                     ("FROM TASK_VALUES WHERE", Reply(rows=[]))]
    assert task_values.backfill(conn) == 2
    first = conn.calls[0]
    assert first.sql == golden("task_values_backfill") and first.binds == {"after_id": 0, "max_rows": 500}
    inserts = [c.binds for c in conn.calls if c.sql == golden("insert_task_value")]
    assert inserts == [[{"task_id": 3, "field_name": f, "field_value": v}
                        for f, v in (("FIX_VERSION", "Release 2.1"), ("LABEL", "backend"), ("LABEL", "ui"))],
                       [{"task_id": 9, "field_name": "COMPONENT", "field_value": "API"}]]


def test_create_with_defaults_only(fake_engine, conn):
    conn.replies += [("INSERT INTO TASKS", Reply(out={"new_id": [1]})),
                     ("FROM TASKS WHERE", Reply(rows=[(1,) + (None,) * 10]))]
    fake_engine.create(TASKS, {})
    assert conn.calls[0].sql == golden("crud_insert_tasks_defaults")


@pytest.mark.parametrize("code", [2291, 1, 2292, 2290])
def test_constraint_violations_are_conflicts(fake_engine, conn, code):
    conn.replies.append(("INSERT INTO COMMENTS", Reply(error=ora_error(code, "constraint violated"))))
    with pytest.raises(ConflictError):
        fake_engine.create(COMMENTS, {"TASK_ID": 999_999, "BODY": "orphan"})
    assert conn.events == ["rollback"]


def test_list_update_delete(fake_engine, conn):
    import datetime as dt

    project_row = (3, "Zeus", "DONE", "Payments", dt.datetime(2026, 1, 1), None)
    conn.replies += [("ORDER BY PROJECT_ID", Reply(rows=[project_row])), ("COUNT(*)", Reply(rows=[(1,)])),
                     ("UPDATE PROJECTS", Reply(rowcount=1)), ("FROM PROJECTS WHERE", Reply(rows=[project_row])),
                     ("DELETE FROM PROJECTS", Reply(rowcount=0))]
    listed = fake_engine.list_records(PROJECTS, [], None, 10)
    assert listed.items[0]["start_date"] == dt.date(2026, 1, 1) and (listed.total, listed.more) == (1, False)
    assert [c.sql for c in conn.calls] == [golden("crud_page_projects"), golden("crud_count_projects")]
    assert conn.calls[0].binds == {"max_rows": 11} and conn.calls[1].binds == {}
    updated = fake_engine.update(PROJECTS, 3, {"NAME": "Zeus", "STATUS": "DONE"})
    assert updated["status"] == "DONE"
    assert conn.calls[2].sql == golden("crud_update_projects")
    assert conn.calls[2].binds == {"v_name": "Zeus", "v_status": "DONE", "row_id": 3}
    assert fake_engine.update(PROJECTS, 4, {"STATUS": "X"}) is None  # rowcount 0: no such row
    assert fake_engine.delete(PROJECTS, 3) is False
    assert conn.calls[-1].sql == golden("crud_delete_projects") and conn.calls[-1].binds == {"row_id": 3}


# --- status, model, index ---------------------------------------------------------------------

def test_status_reports_queue_chunks_and_measured_index_accuracy(fake_engine, conn):
    import datetime as dt

    now = dt.datetime(2026, 1, 1, 12, 0, 0)
    conn.replies += [
        ("MIN(ENQUEUED_AT)", Reply(rows=[(5, now - dt.timedelta(seconds=30), now, 1, 1)])),
        ("GROUP BY SOURCE_TYPE, SOURCE_ID", Reply(rows=[(2,)])),  # 5 rows of 2 entities
        ("ORDER BY ATTEMPTS DESC", Reply(rows=[(5, "task", 11, 3, "boom again")])),
        ("GROUP BY SOURCE_TYPE", Reply(rows=[("doc", 2), ("task", 9)])),
        ("FROM USER_INDEXES", Reply(rows=[("VECTOR", "NEIGHBOR_PARTITIONS_IVF", "VALID")])),
        ("EMBEDDING IS NOT NULL FETCH", Reply(rows=[(array("f", vec()),)])),
        ("INDEX_ACCURACY_QUERY", Reply(out={"report": "Accuracy achieved (100%) is 10% higher"})),
    ]
    status = fake_engine.status(max_attempts=3)
    assert [c.sql for c in conn.calls] == [golden(n) for n in (
        "queue_status", "queue_entities", "failing_rows", "chunks_by_type", "vector_index_info", "sample_vector", "index_accuracy")]
    assert conn.calls[0].binds == {"max_attempts": 3}
    accuracy = conn.calls[-1].binds
    assert accuracy["index_name"] == "RAG_CHUNK_EMB_IDX" and accuracy["top_k"] == 10
    assert accuracy["target_accuracy"] == 90 and accuracy["qv"].typecode == "f"
    assert (status.pending, status.queue_rows, status.failing, status.stuck) == (2, 5, 1, 1)  # pending: entities
    assert status.oldest_pending_age_s == 30.0 and conn.calls[1].binds == {}
    assert status.failing_rows[0].last_error == "boom again"
    assert status.chunks_by_source_type == {"doc": 2, "task": 9}
    assert status.index["subtype"] == "NEIGHBOR_PARTITIONS_IVF" and "Accuracy" in status.index["accuracy"]
    assert (status.engine, status.model_name, status.dimensions) == ("oracle", "ALL_MINILM_L12_V2", 384)


def test_status_says_why_accuracy_is_not_measured(fake_engine, conn):
    conn.replies += [("MIN(ENQUEUED_AT)", Reply(rows=[(0, None, None, 0, 0)])),
                     ("GROUP BY SOURCE_TYPE, SOURCE_ID", Reply(rows=[(0,)])),
                     ("FROM USER_INDEXES", Reply(rows=[("VECTOR", "NEIGHBOR_PARTITIONS_IVF", "VALID")]))]
    status = fake_engine.status(5)
    assert status.oldest_pending_age_s is None and "no vectors" in status.index["accuracy"]


def test_model_is_loaded_once_from_the_directory_object(fake_engine, conn):
    conn.replies.append(("USER_MINING_MODELS", Reply(rows=[(0,)])))
    assert "loaded" in fake_engine.ensure_model()
    check, load = conn.calls
    assert check.sql == golden("model_exists") and check.binds == {"model_name": "ALL_MINILM_L12_V2"}
    assert load.sql == golden("load_model_directory")
    # REVIEW-2 W5: 23ai's LOAD_ONNX_MODEL has no default for metadata (PLS-00306 without it on 23.4-23.x).
    assert 'metadata => JSON(\'{"function" : "embedding", "embeddingOutput" : "embedding"' in load.sql
    assert load.binds == {"dir_name": "MODEL_DIR", "file_name": "all_MiniLM_L12_v2.onnx",
                          "model_name": "ALL_MINILM_L12_V2"}
    conn.calls.clear()
    conn.replies.append(("USER_MINING_MODELS", Reply(rows=[(1,)])))
    assert "already" in fake_engine.ensure_model() and len(conn.calls) == 1


def test_model_is_loaded_from_the_pre_authenticated_url(conn, settings):
    from app.engines.oracle.engine import OracleEngine
    from .fakes import FakePool

    from pydantic import SecretStr

    par = "https://objectstorage.example/p/secret/o/all_MiniLM_L12_v2.onnx"
    engine = OracleEngine(FakePool(conn), settings.model_copy(update={"onnx_model_url": SecretStr(par)}))
    conn.replies.append(("USER_MINING_MODELS", Reply(rows=[(0,)])))
    engine.ensure_model()
    load = conn.calls[1]
    assert load.sql == golden("load_model_cloud") and "metadata => JSON(" in load.sql
    assert load.binds == {"model_name": "ALL_MINILM_L12_V2", "model_uri": par}


def test_rebuild_index(fake_engine, conn):
    conn.replies.append(("COUNT(*) FROM RAG_CHUNK", Reply(rows=[(0,)])))
    assert "not rebuilt" in fake_engine.rebuild_vector_index()
    assert conn.sqls == [golden("count_vectors")]
    conn.replies.append(("COUNT(*) FROM RAG_CHUNK", Reply(rows=[(1200,)])))
    assert "rebuilt over 1200" in fake_engine.rebuild_vector_index()
    assert conn.calls[-1].sql == golden("rebuild_vector_index")
    assert conn.calls[-1].binds == {"idx_name": "RAG_CHUNK_EMB_IDX"}


def test_ping_requires_migrations_and_the_model_then_tries_a_write_it_rolls_back(fake_engine, conn):
    from app.engines.base import SchemaNotMigratedError
    from app.engines.oracle.migrate import discover

    versions = [(m.version,) for m in discover()]
    conn.replies += [("USER_TABLES", Reply(rows=[(0,)]))]
    with pytest.raises(SchemaNotMigratedError, match="ragctl migrate"):
        fake_engine.ping()
    assert conn.sqls == [golden("version_table_exists")]
    conn.calls.clear()
    conn.replies += [("USER_TABLES", Reply(rows=[(1,)])), ("FROM RAG_SCHEMA_VERSION", Reply(rows=versions)),
                     ("USER_MINING_MODELS", Reply(rows=[(0,)]))]
    with pytest.raises(ModelMissingError, match="ragctl oracle bootstrap"):
        fake_engine.ping()
    assert conn.sqls == [golden(n) for n in ("version_table_exists", "applied_versions", "model_exists")]
    conn.calls.clear()
    conn.events.clear()
    conn.replies += [("USER_MINING_MODELS", Reply(rows=[(1,)]))]
    fake_engine.ping()  # the schema check is remembered once it passed
    assert conn.sqls == [golden(n) for n in ("model_exists", "ready_probe")]
    assert conn.calls[-1].binds["setting_key"].startswith("ready-probe:") and conn.events == ["rollback"]


def test_a_database_that_refuses_the_probe_write_is_unavailable(fake_engine, conn):
    from app.engines.base import UnavailableError
    from app.engines.oracle.migrate import discover

    conn.replies += [("USER_TABLES", Reply(rows=[(1,)])),
                     ("FROM RAG_SCHEMA_VERSION", Reply(rows=[(m.version,) for m in discover()])),
                     ("USER_MINING_MODELS", Reply(rows=[(1,)])),
                     ("INSERT INTO RAG_SETTINGS", Reply(error=ora_error(16000, "database open for read-only access")))]
    with pytest.raises(UnavailableError, match="read-only"):
        fake_engine.ping()


def test_readiness_does_not_claim_to_catch_a_full_tablespace():
    """REVIEW-3 W5: one short RAG_SETTINGS row fits the table's first extent, so READY_PROBE passes on a full
    tablespace (ORA-01653 needs a new extent); the code and the docs say only what the probe proves."""
    import inspect
    from pathlib import Path

    from app.engines.oracle.engine import OracleEngine

    ping = inspect.getsource(OracleEngine.ping)
    assert "or a full one" not in ping and "A full tablespace does not" in ping
    readiness = Path("docs/ORACLE.md").read_text(encoding="utf-8").split("- **Readiness**")[1].split("\n- ")[0]
    assert "full tablespace is not\n  detected" in readiness and "ORA-16000" in readiness


def test_the_model_name_is_the_only_spliced_value():
    assert "ALL_MINILM_L12_V2 USING :q" in search_sql.embed_query("all_minilm_l12_v2")
    with pytest.raises(ValueError):
        search_sql.embed_query("X USING 1 AS data) FROM dual --")


def test_admin_commands_turn_driver_errors_into_engine_errors(monkeypatch, settings):
    import oracledb

    from app.engines.base import EngineError
    from app.engines.oracle.engine import OracleEngine
    from app.services import oracle_admin

    def refuse(_settings):
        raise oracledb.OperationalError("DPY-6005: cannot connect to database")

    monkeypatch.setattr(OracleEngine, "open", classmethod(lambda cls, s: refuse(s)))
    with pytest.raises(EngineError, match="oracle bootstrap failed: DPY-6005"):
        oracle_admin.bootstrap(settings)
    with pytest.raises(EngineError, match="rebuild-index failed"):
        oracle_admin.rebuild_index(settings)


def test_bootstrap_migrates_then_loads_the_model(monkeypatch, fake_engine, settings):
    from app.engines.oracle.engine import OracleEngine
    from app.services import oracle_admin

    monkeypatch.setattr(OracleEngine, "open", classmethod(lambda cls, s: fake_engine))
    monkeypatch.setattr(fake_engine, "migrate", lambda: ["1", "5"])
    monkeypatch.setattr(fake_engine, "ensure_model", lambda: "model ALL_MINILM_L12_V2 loaded from x")
    monkeypatch.setattr(fake_engine, "choose_upsert_form", lambda: "upsert form merge_using")
    assert oracle_admin.bootstrap(settings) == (
        "applied migrations 1, 5; model ALL_MINILM_L12_V2 loaded from x; upsert form merge_using")


# --- binds vs placeholders, every branch of every builder ---------------------------------------

def test_the_fake_refuses_extra_missing_and_reserved_binds():
    from .fakes import check_binds

    check_binds("SELECT 1 FROM T WHERE A = :a AND B = :a", {"a": 1})  # a repeated name is one bind
    check_binds("SELECT ':x' FROM T -- :y\n/*+ :z */", {})  # literals, comments and hints hold none
    with pytest.raises(AssertionError, match="extra"):
        check_binds("SELECT 1 FROM T WHERE A = :a", {"a": 1, "b": 2})  # DPY-4008
    with pytest.raises(AssertionError, match="missing"):
        check_binds("SELECT 1 FROM T WHERE A = :a AND B = :b", {"a": 1})  # ORA-01008
    with pytest.raises(AssertionError, match="ORA-01745"):
        check_binds("SELECT 1 FROM T WHERE A = :size", {"size": 1})


@pytest.mark.parametrize("caller", [DEV, MANAGER])
@pytest.mark.parametrize("project", ["all", "none", 3])
@pytest.mark.parametrize("sprint_id", [None, 5])
@pytest.mark.parametrize("source_types", [None, ("doc",), ("task", "sprint", "project", "doc")])
@pytest.mark.parametrize("doc_types", [None, ("WIKI",), ("MEETING_NOTES", "RELEASE-NOTES", "WIKI")])
def test_every_search_branch_binds_exactly_its_placeholders(caller, project, sprint_id, source_types, doc_types):
    from .fakes import check_binds

    scope = Scope(project=project, sprint_id=sprint_id, source_types=source_types, doc_types=doc_types)
    for exact in (False, True):
        text, binds = search_sql.vector_search(caller, scope, exact)
        check_binds(text, {**binds, "qv": None, "k": 1})
    text, binds = search_sql.text_search(caller, scope)
    check_binds(text, {**binds, "tq": None, "qv": None, "n": 1})
    text, binds = search_sql.text_statistics(caller)
    check_binds(text, binds)
    text, binds = search_sql.text_term_rows(caller)
    check_binds(text, {**binds, "tq": None})


@pytest.mark.parametrize("source_type", ["task", "sprint", "project", "doc"])
def test_every_backfill_and_loader_branch_binds_exactly_its_placeholders(source_type):
    from .fakes import check_binds

    for project_id in (None, 3):
        for force in (False, True):
            for limit in (None, 10):
                statement = indexing_sql.backfill_ids(source_type, project_id, force, limit)
                check_binds(statement.sql, statement.binds)
    for statement in (record_sql.load_sources(source_type, [1, 2, 3]), indexing_sql.chunk_hashes(source_type, [1]),
                      record_sql.task_comments([1, 2]), record_sql.task_links([1, 2])):
        check_binds(statement.sql, statement.binds)


def test_every_crud_builder_binds_exactly_its_placeholders():
    from app.entities import ENTITIES

    from .fakes import check_binds

    for entity in ENTITIES.values():
        columns = list(entity.columns)
        binds = record_sql.crud_binds(columns, dict.fromkeys(columns))
        check_binds(record_sql.crud_insert(entity, columns), {**binds, "new_id": None})
        check_binds(record_sql.crud_insert(entity, []), {"new_id": None})
        check_binds(record_sql.crud_update(entity, columns), {**binds, "row_id": 1})
        check_binds(record_sql.crud_select(entity), {"row_id": 1})
        check_binds(record_sql.crud_delete(entity), {"row_id": 1})
        every = [Condition(c.lower(), c, "eq", 1) for c in columns]
        page, count = record_sql.crud_page(entity, every, 7, 3), record_sql.crud_count(entity, every)
        check_binds(page.sql, page.binds)
        check_binds(count.sql, count.binds)


def test_a_filtered_keyset_page_binds_every_filter(fake_engine, conn):
    """The filters of GET /tasks as app.services.records builds them: every value a named bind, the
    "none" of an id an IS NULL, "due after D" as >= D + 1 day."""
    import datetime as dt

    from app.services.records import conditions

    where = conditions(TASKS, {"assignee_id": 7, "status": "todo", "priority": "High", "sprint_id": "none",
                               "project_id": 2, "due_before": dt.date(2026, 5, 1), "due_after": dt.date(2026, 4, 1)})
    conn.replies += [("FROM TASKS", Reply(rows=[])), ("COUNT(*) FROM TASKS", Reply(rows=[(0,)]))]
    page = fake_engine.list_records(TASKS, where, 41, 25)
    assert (page.items, page.total, page.more) == ([], 0, False)
    assert [c.sql for c in conn.calls] == [golden("crud_page_tasks_every_filter"),
                                           golden("crud_count_tasks_every_filter")]
    filters = {"f_assignee_id": 7, "f_status": "todo", "f_priority": "High", "f_project_id": 2,
               "f_due_before": dt.date(2026, 5, 1), "f_due_after": dt.date(2026, 4, 2)}
    assert conn.calls[0].binds == {**filters, "after_id": 41, "max_rows": 26}
    assert conn.calls[1].binds == filters


def test_a_condition_on_another_entitys_column_sends_nothing(fake_engine, conn):
    with pytest.raises(ValueError, match="unknown column"):
        fake_engine.list_records(PROJECTS, [Condition("x", "TITLE", "eq", 1)], None, 10)
    with pytest.raises(ValueError, match="unsafe bind name"):
        Condition("x; DROP TABLE TASKS", "TITLE", "eq", 1)
    assert conn.calls == []


# --- faults: "not now" is a 503 with Retry-After, never a 500 -----------------------------------

@pytest.mark.parametrize("code, retry_after", [(1653, 60), (1536, 60), (16000, 30), (3113, 10), (60, 1)])
def test_a_full_tablespace_or_a_read_only_database_is_unavailable_and_rolled_back(fake_engine, conn, code,
                                                                                 retry_after):
    from app.engines.base import UnavailableError

    conn.replies.append(("UPDATE PROJECTS", Reply(error=ora_error(code, "no room"))))
    with pytest.raises(UnavailableError, match=f"ORA-{code:05d}") as caught:
        fake_engine.update(PROJECTS, 3, {"NAME": "Zeus"})
    assert caught.value.retry_after_s == retry_after and conn.events == ["rollback"]


def test_other_oracle_errors_are_not_turned_into_unavailable(fake_engine, conn):
    from app.engines.base import UnavailableError

    conn.replies.append(("UPDATE PROJECTS", Reply(error=ora_error(904, "invalid identifier"))))
    with pytest.raises(Exception) as caught:
        fake_engine.update(PROJECTS, 3, {"NAME": "Zeus"})
    assert not isinstance(caught.value, UnavailableError)


def test_no_connection_from_the_pool_is_unavailable(settings):
    from app.engines.base import UnavailableError
    from app.engines.oracle.engine import OracleEngine

    class DeadPool:
        def acquire(self):
            raise ora_error(12541, "TNS:no listener")

    with pytest.raises(UnavailableError, match="cannot get an Oracle connection"):
        OracleEngine(DeadPool(), settings).caller(1)


# --- TIMESTAMP binds keep their fractional seconds (FACTS.md §12.2) ------------------------------

def test_a_comment_created_at_binds_as_timestamp_not_date(fake_engine, conn):
    import datetime as dt

    import oracledb

    stamp = "2026-03-04 05:06:07.123456"
    conn.replies += [("INSERT INTO COMMENTS", Reply(out={"new_id": [5]})),
                     ("FROM COMMENTS WHERE", Reply(rows=[(5, 11, None, "hi", dt.datetime.fromisoformat(stamp))])),
                     ("UPDATE COMMENTS", Reply(rowcount=1))]
    fake_engine.create(COMMENTS, {"TASK_ID": 11, "BODY": "hi", "CREATED_AT": stamp})
    insert, select = conn.calls
    assert insert.binds["v_created_at"] == dt.datetime(2026, 3, 4, 5, 6, 7, 123456)
    assert insert.inputsizes == {"v_created_at": oracledb.DB_TYPE_TIMESTAMP}
    assert select.inputsizes == {}  # python-oracledb applies them to the next execute only
    fake_engine.update(COMMENTS, 5, {"CREATED_AT": stamp})
    update = conn.calls[2]
    assert update.sql.startswith("UPDATE COMMENTS SET CREATED_AT = :v_created_at")
    assert update.inputsizes == {"v_created_at": oracledb.DB_TYPE_TIMESTAMP}


def test_writes_without_a_timestamp_set_no_input_sizes(fake_engine, conn):
    conn.replies += [("INSERT INTO COMMENTS", Reply(out={"new_id": [5]})),
                     ("FROM COMMENTS WHERE", Reply(rows=[(5, 11, None, "hi", None)]))]
    fake_engine.create(COMMENTS, {"TASK_ID": 11, "BODY": "hi"})
    assert conn.calls[0].inputsizes == {}


# --- docs/ORACLE.md's statement table -----------------------------------------------------------

# Helpers of the statement modules that build no statement of their own (their output is part of one that is listed).
NOT_LISTED = {"VECTOR_INDEX", "TEXT_INDEX", "ACCESS_PREDICATE", "checked_model", "in_list", "crud_binds",
              "ERASURE_COLUMNS"}
# tracker_statements.py (the typed query): its fragment builders are parts of the statements
# listed (tracker_aggregate, tracker_rows, tracker_groups), not statements of their own.
TRACKER_HELPERS = {"access", "predicate", "where", "blocked"}


def _statement_table() -> str:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "ORACLE.md").read_text(encoding="utf-8")
    start = text.index("## Every Oracle statement: its source and the doctor check that proves it")
    return text[start:text.index("\n### ", start)]


def test_every_statement_is_in_the_docs_table_with_its_source_and_what_proves_it(doctor_check_names):
    """docs/ORACLE.md lists every statement of every statement module with its source and the doctor check that
    proves it (or "conformance": a confirmed plain shape the Oracle leg runs); a check it names must exist."""
    import inspect

    table = _statement_table()
    names = {n for module in statement_modules() for n, v in vars(module).items() if n in own_names(module) and (
        (n.isupper() and isinstance(v, str)) or n == "WIPE"
        or inspect.isfunction(v)) and not n.startswith("_")} - NOT_LISTED - TRACKER_HELPERS
    missing = sorted(n for n in names if not any(f"`{n}{end}" in table for end in ("`", " ", "(")))
    assert not missing, f"statements missing from docs/ORACLE.md's table: {missing}"
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| Statement")]
    assert len(rows) > 40
    for row in rows:
        _statement, source, proved = (cell.strip() for cell in row.strip("|").split(" | "))
        assert source, row
        checks = proved.split("`")[1::2]  # backticked: doctor checks, or the statements/tests they name
        assert checks or proved.startswith(("conformance", "—")), row
        unknown = [c for c in checks if c not in doctor_check_names and c.split("(")[0].split(" ")[0] not in names
                   and not c.startswith("test_") and not c.endswith(".py")]
        assert not unknown, f"{unknown} are not doctor checks: {row}"


@pytest.fixture
def doctor_check_names():
    from app.config import Settings
    from app.services import oracle_doctor

    from .test_doctor_golden import BATCH, TOP_K, healthy

    main, extra = healthy()
    conns = iter([main, *extra])
    settings = Settings(database_url="oracle://app:apppw@localhost:1521/FREEPDB1", batch_size=BATCH, top_k=TOP_K)
    results, _ = oracle_doctor.run(settings, connect=lambda: next(conns))
    return {r.name for r in results}


def test_every_doctor_check_is_in_the_docs_doctor_table(doctor_check_names):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "ORACLE.md").read_text(encoding="utf-8")
    section = text[text.index("## `ragctl oracle doctor`"):text.index("## Every Oracle statement")]
    assert sorted(n for n in doctor_check_names if f"`{n}`" not in section) == []
