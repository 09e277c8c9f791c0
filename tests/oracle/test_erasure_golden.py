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


def test_purge_syncs_then_fully_optimizes_the_text_index(fake_engine, conn):
    steps = fake_engine.purge_deleted()
    assert conn.sqls == [golden("sync_text_index"), golden("optimize_text_index")]
    assert all(c.binds == {"idx_name": "RAG_CHUNK_TEXT_IDX"} for c in conn.calls)
    assert [s.ok for s in steps] == [True, True]
    conn.calls.clear()
    conn.replies.append(("OPTIMIZE_INDEX", Reply(error=ora_error(20000, "DRG-10502: index does not exist"))))
    steps = fake_engine.purge_deleted()
    assert [s.ok for s in steps] == [True, False] and "DRG-10502" in steps[1].detail


def test_proof_searches_every_text_column_and_the_text_index_with_bound_patterns(fake_engine, conn):
    conn.replies += [("FROM EMPLOYEES", Reply(rows=[(1, 0, 0, 0)])),  # another employee shares the name
                     ("FROM RAG_CHUNK\nWHERE CONTAINS", Reply(rows=[(0,)]))]
    lines = fake_engine.erasure_proof([ErasedText("first name", "Ana_50%")])
    assert conn.sqls == [golden(n) for n in PROOF_COUNTS] + [golden("proof_contains")]
    assert all(c.binds["pattern"] == "%Ana\\_50\\%%" for c in conn.calls)
    assert conn.calls[-1].binds["tq"] == '"Ana"'  # words only: "_" and "%" never reach CONTAINS
    by_place = {line.where: line for line in lines}
    assert by_place["source tables"].found and by_place["source tables"].source
    assert by_place["source tables"].detail == "EMPLOYEES.FIRST_NAME: 1 row(s)"
    assert not by_place["chunk table RAG_CHUNK"].found and not by_place["queue RAG_DIRTY"].found
    assert not by_place["Oracle Text index (CONTAINS)"].found


def test_the_service_erases_drains_purges_and_fails_the_proof_when_a_chunk_still_holds_a_string(fake_engine, conn):
    script(conn, documents=())
    drained = []
    conn.replies.append(("FROM RAG_CHUNK\nWHERE CONTAINS", Reply(rows=[(0,)])))
    conn.replies.append(("COUNT(CASE WHEN UPPER(CONTENT)", Reply(rows=[(1,)])))  # a stale chunk
    runs = iter([DrainResult(claimed=3), DrainResult()])  # the service drains until a run claims nothing
    result = erase_employee(fake_engine, 7, lambda: drained.append(1) or next(runs))
    assert drained == [1, 1] and conn.events[0] == "commit"
    assert not result.ok and "still found in: chunk table RAG_CHUNK" in result.failures[0]
    # the order: deletes, then (after the drain) sync + optimize, then the proof
    sqls = conn.sqls
    assert sqls.index(golden("erase_delete_employee")) < sqls.index(golden("optimize_text_index")) < sqls.index(
        golden("proof_count_employees"))


def test_the_service_refuses_owned_documents_naming_the_flags(fake_engine, conn):
    script(conn)
    with pytest.raises(ErasureRefusedError, match="--delete-documents or --reassign-documents-to"):
        erase_employee(fake_engine, 7, lambda: DrainResult())
    assert conn.events == ["rollback"]
