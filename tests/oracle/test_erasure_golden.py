"""Oracle erasure, driven through the recording fake: the exact statements and binds of the deletes,
the Oracle Text clean-up and the proof (tests/oracle/golden/erase_*.sql, proof_*.sql), and the order
the service runs them in. What Oracle does with them is the conformance suite's Oracle leg."""

from __future__ import annotations

import pytest

from app.engines.base import OwnedDocumentsError
from app.engines.oracle import statements as sql
from app.rag.erasure import ErasedText
from app.services.erasure import ErasureRefusedError, erase_employee
from app.services.indexing import DrainResult

from .fakes import Reply, golden, ora_error

SELECTS = ["erase_employee_row", "erase_authored_comments", "erase_owned_documents", "erase_assigned_tasks"]
CONVERSATION_READS = ["erase_conversation_titles", "erase_user_messages", "erase_count_messages"]
PROOF_COUNTS = ["proof_count_employees", "proof_count_projects", "proof_count_sprints", "proof_count_tasks",
                "proof_count_comments", "proof_count_documents", "proof_count_rag_chunk", "proof_count_rag_dirty",
                "proof_count_conversations", "proof_count_messages"]


def test_every_proof_table_has_its_golden_statement():
    assert PROOF_COUNTS == [f"proof_count_{table.lower()}" for table, _, _ in sql.PROOF_TABLES]
    for (table, columns, _), name in zip(sql.PROOF_TABLES, PROOF_COUNTS):
        assert sql.proof_count(table, columns) == golden(name)


def script(conn, documents=((9, "Zorbalina's plans", "Hyperborean soufflé"),)):
    conn.replies += [
        ("FROM EMPLOYEES WHERE EMPLOYEE_ID", Reply(rows=[("Zorbalina", "Quixotewick", "zq@example.com", "tg-7788")])),
        ("FROM COMMENTS WHERE AUTHOR_ID", Reply(rows=[(5, 11, "Flibbertigibbet incident")])),
        ("SELECT DOCUMENT_ID, TITLE, BODY", Reply(rows=list(documents))),
        ("FROM TASKS WHERE ASSIGNEE_ID", Reply(rows=[(12,), (11,)])),
        ("SELECT CONVERSATION_ID, TITLE", Reply(rows=[(4, "Zorbalina's sprint chat")])),
        ("m.ROLE = 'user'", Reply(rows=[(40, "Is the Quixotewick migration blocked?")])),
        ("SELECT COUNT(*) FROM MESSAGES", Reply(rows=[(2,)])),
    ]


def test_erase_deleting_documents_sends_the_deletes_in_one_transaction(fake_engine, conn):
    script(conn)
    report = fake_engine.erase_employee(7, "delete", None)
    assert conn.sqls == [golden(n) for n in SELECTS + CONVERSATION_READS + [
        "erase_delete_conversations", "erase_delete_comments", "erase_delete_documents", "erase_unassign_tasks",
        "erase_delete_employee"]]
    assert all(c.binds == {"employee_id": 7} for c in conn.calls)
    assert conn.events == ["commit"]
    assert report.documents_deleted == (9,) and report.documents_reassigned == ()
    assert report.tasks_unassigned == (12, 11) and report.tasks_reindexed == (11, 12)
    labels = {t.label: t.value for t in report.texts}
    assert labels["comment #5 body"] == "Flibbertigibbet incident"
    assert labels["document #9 body"] == "Hyperborean soufflé" and labels["telegram id"] == "tg-7788"
    assert labels["conversation #4 title"] == "Zorbalina's sprint chat"
    assert labels["message #40 content"] == "Is the Quixotewick migration blocked?"
    assert report.conversations_deleted == 1 and report.messages_deleted == 2


def test_erase_reassigning_documents_updates_the_owner(fake_engine, conn):
    script(conn)
    report = fake_engine.erase_employee(7, "reassign", 8)
    reassign = conn.calls[len(SELECTS + CONVERSATION_READS) + 2]  # after the conversations and comments
    assert reassign.sql == golden("erase_reassign_documents")
    assert reassign.binds == {"employee_id": 7, "reassign_to": 8}
    assert report.documents_reassigned == (9,) and report.reassigned_to == 8
    assert not any(t.label.startswith("document") for t in report.texts)  # they stay: not erased


def test_owned_documents_without_a_policy_change_nothing(fake_engine, conn):
    script(conn)
    with pytest.raises(OwnedDocumentsError):
        fake_engine.erase_employee(7, None, None)
    assert conn.sqls == [golden(n) for n in SELECTS]  # reads only, then rollback
    assert conn.events == ["rollback"]


def test_unknown_employee_is_none(fake_engine, conn):
    assert fake_engine.erase_employee(99, "delete", None) is None
    assert conn.sqls == [golden("erase_employee_row")]


def test_purge_syncs_waiting_for_a_running_sync_then_fully_optimizes_the_text_index(fake_engine, conn):
    steps = fake_engine.purge_deleted()
    assert conn.sqls == [golden("purge_sync_text_index"), golden("optimize_text_index")]
    # REVIEW-2 W7: unlike the worker's LOCK_NOWAIT sync, the purge must really sync: default LOCK_WAIT, bounded work.
    assert "LOCK_NOWAIT" not in conn.sqls[0]
    assert conn.calls[0].binds == {"idx_name": "RAG_CHUNK_TEXT_IDX", "maxtime_min": 10}
    assert conn.calls[1].binds == {"idx_name": "RAG_CHUNK_TEXT_IDX"}
    assert [s.ok for s in steps] == [True, True]
    conn.calls.clear()
    conn.replies.append(("OPTIMIZE_INDEX", Reply(error=ora_error(20000, "DRG-10502: index does not exist"))))
    steps = fake_engine.purge_deleted()
    assert [s.ok for s in steps] == [True, False] and "DRG-10502" in steps[1].detail


I_TABLE, G_TABLE = "DR$RAG_CHUNK_TEXT_IDX$I", "DR$RAG_CHUNK_TEXT_IDX$G"


def test_proof_searches_every_text_column_and_the_text_index_tokens_with_bound_values(fake_engine, conn):
    conn.replies += [("FROM USER_TABLES", Reply(rows=[(I_TABLE,)])),
                     ("FROM EMPLOYEES", Reply(rows=[(1, 0, 0, 0)])),  # another employee shares the name
                     ("FROM DR$", Reply(rows=[("ANA",)])),
                     ("CONTAINS(CONTENT, :tq)", Reply(rows=[(2,)]))]  # ...and her chunks hold the word
    lines = fake_engine.erasure_proof([ErasedText("first name", "Ana_50%")])
    tokens = sql.text_tokens(I_TABLE, ["Ana"])
    assert sql.text_tokens(I_TABLE, ["Zorbalina", "Quixotewick"]).sql == golden("text_tokens_i")
    assert conn.sqls == ([golden("text_token_tables_present")] + [golden(n) for n in PROOF_COUNTS]
                         + [tokens.sql, golden("proof_contains")])
    assert conn.calls[0].binds == {"g_table": G_TABLE, "i_table": I_TABLE}
    assert all(c.binds["pattern"] == "%Ana\\_50\\%%" for c in conn.calls[1:-2])
    assert conn.calls[-2].binds == {"w0": "Ana"}  # words only: "_" and "%" never reach Oracle Text
    assert conn.calls[-1].binds == {"tq": "{ANA}"}  # REVIEW-2 U2: a braced term, not a quoted one
    by_place = {line.where: line for line in lines}
    assert by_place["source tables"].found and by_place["source tables"].source
    assert by_place["source tables"].detail == "EMPLOYEES.FIRST_NAME: 1 row(s)"
    assert not by_place["chunk table RAG_CHUNK"].found and not by_place["queue RAG_DIRTY"].found
    index = by_place[f"Oracle Text index tables ({I_TABLE})"]
    assert not index.found and "1 of its 1 longest word(s) indexed, each from a live chunk" in index.detail


def test_a_token_no_live_chunk_holds_is_found_in_the_index_tables(fake_engine, conn):
    conn.replies += [("FROM USER_TABLES", Reply(rows=[(G_TABLE,), (I_TABLE,)])),
                     (lambda q: q.startswith(f"SELECT DISTINCT TOKEN_TEXT FROM {G_TABLE}"), Reply(rows=[])),
                     (lambda q: q.startswith(f"SELECT DISTINCT TOKEN_TEXT FROM {I_TABLE}"),
                      Reply(rows=[("FLIBBERTIGIBBET",), ("INCIDENT",)])),
                     ("CONTAINS(CONTENT, :tq)", Reply(rows=[(0,)])),  # FLIBBERTIGIBBET: a deleted row's token
                     ("CONTAINS(CONTENT, :tq)", Reply(rows=[(3,)]))]  # INCIDENT: other live chunks say it too
    [*_, index] = fake_engine.erasure_proof([ErasedText("comment #5 body", "Flibbertigibbet incident")])
    token_lookups = [c for c in conn.calls if c.sql.startswith("SELECT DISTINCT TOKEN_TEXT")]
    assert [c.sql.split(" WHERE")[0].rsplit(" ", 1)[1] for c in token_lookups] == [G_TABLE, I_TABLE]
    assert [c.binds["tq"] for c in conn.calls if c.sql == golden("proof_contains")] == [
        "{FLIBBERTIGIBBET}", "{INCIDENT}"]
    assert index.found and index.detail == "1 of its 2 longest word(s) remain as tokens no live chunk holds"
    assert "Flibbertigibbet" not in index.detail.lower().title()  # the erased words are never printed


def test_without_the_token_table_the_index_is_not_proven(fake_engine, conn):
    [*_, index] = fake_engine.erasure_proof([ErasedText("last name", "Quixotewick")])
    assert index.found and "not searched" in index.detail
    assert not any("TOKEN_TEXT" in q or "CONTAINS" in q for q in conn.sqls)


def test_a_text_too_long_to_bind_as_a_like_pattern_is_searched_by_its_pieces_only(fake_engine, conn):
    """REVIEW-2 W1: a 5,000-character comment bound whole into UPPER(col) LIKE UPPER(:pattern) travels as a LONG bind
    (ORA-01461, after the erasure has committed). Every pattern sent stays an ordinary VARCHAR2 bind."""
    from app.rag.erasure import proof_texts

    body = " ".join(f"Sentence {i} of the Snollygoster quarterly retrospective, written by Zorbalina." for i in range(70))
    assert len(body) > 5000
    texts = proof_texts([ErasedText("comment #5 body", body)])
    lines = fake_engine.erasure_proof(texts)
    patterns = [c.binds["pattern"] for c in conn.calls if "pattern" in c.binds]
    assert patterns and max(len(p.encode()) for p in patterns) <= sql.PROOF_PATTERN_MAX_BYTES
    assert body not in "".join(patterns)
    whole = [line for line in lines if line.label == "comment #5 body" and line.where == "every text column"]
    assert len(whole) == 1 and not whole[0].found and "searched by its parts" in whole[0].detail
    assert {line.label for line in lines} >= {"comment #5 body (part 1)", "comment #5 body (part 70)"}


def test_the_proof_pattern_limit_counts_utf8_bytes_of_the_escaped_pattern():
    from app.engines.oracle.erasure import bindable_pattern

    assert bindable_pattern("a" * 998) == "%" + "a" * 998 + "%"  # 1,000 bytes: an ordinary bind
    assert bindable_pattern("a" * 999) is None
    assert bindable_pattern("é" * 499) is not None and bindable_pattern("é" * 500) is None  # 2 bytes each
    assert bindable_pattern("%" * 499) is not None and bindable_pattern("%" * 500) is None  # escaping doubles it


def test_the_service_erases_drains_purges_and_fails_the_proof_when_a_chunk_still_holds_a_string(fake_engine, conn):
    script(conn, documents=())
    drained = []
    conn.replies.append(("COUNT(CASE WHEN UPPER(CONTENT)", Reply(rows=[(1,)])))  # a stale chunk
    runs = iter([DrainResult(claimed=3), DrainResult()])  # the service drains until a run claims nothing
    result = erase_employee(fake_engine, 7, lambda: drained.append(1) or next(runs))
    assert drained == [1, 1] and conn.events[0] == "commit"
    assert not result.ok and "still found in: chunk table RAG_CHUNK" in result.failures[0]
    # the order: deletes, then (after the drain) sync + optimize, then the proof
    sqls = conn.sqls
    assert sqls.index(golden("erase_delete_employee")) < sqls.index(golden("optimize_text_index")) < sqls.index(
        golden("text_token_tables_present")) < sqls.index(golden("proof_count_employees"))


def test_the_service_refuses_owned_documents_naming_the_flags(fake_engine, conn):
    script(conn)
    with pytest.raises(ErasureRefusedError, match="--delete-documents or --reassign-documents-to"):
        erase_employee(fake_engine, 7, lambda: DrainResult())
    assert conn.events == ["rollback"]
