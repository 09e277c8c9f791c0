"""Erasure of an employee, identical on both engines: what is deleted, reassigned or refused, and the
proof's verdicts. (SQLite-only checks of the raw file bytes: tests/sqlite/test_sqlite_erasure.py.)"""

from __future__ import annotations

import pytest

from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, TASKS
from app.services.erasure import ErasureRefusedError, erase_employee
from app.services.records import InvalidRecordError, RecordNotFoundError
from app.services.search import search
from tests.support import comment, document, drain_all, employee, peek_queue, project, task


def seed(engine):
    ana = employee(engine, "Zorbalina", "Quixotewick", telegram_id="tg-77889")
    boss = employee(engine, "Mia", "Boss", role="MANAGER")
    p = project(engine, "Apollo")
    mine = task(engine, "Fix login", assignee_id=ana, project_id=p)
    theirs = task(engine, "Rotate keys", assignee_id=boss, project_id=p)
    c = comment(engine, theirs, "Flibbertigibbet marmalade incident", author_id=ana)
    kept = comment(engine, theirs, "Ordinary remark from the boss", author_id=boss)
    doc = document(engine, "Hyperborean rollout plan", "Quantum soufflé checklist", owner_id=ana, project_id=p)
    drain_all(engine)
    return dict(ana=ana, boss=boss, mine=mine, theirs=theirs, comment=c, kept=kept, doc=doc)


def chunk_texts(engine, boss_id):
    manager = engine.caller(boss_id)
    return [h.content for h in search(engine, "login keys plan incident remark", manager, 20, mode="vector").result.hits]


def test_erasure_deleting_documents_removes_everything_and_is_proven(engine):
    s = seed(engine)
    result = erase_employee(engine, s["ana"], lambda: drain_all(engine), delete_documents=True)
    assert result.ok, result.failures
    assert {v.verdict for v in result.verdicts} == {"erased"}
    assert {v.label for v in result.verdicts} >= {"first name", "last name", "email", "telegram id",
                                                   f"comment #{s['comment']} body", f"document #{s['doc']} title"}
    assert engine.get(EMPLOYEES, s["ana"]) is None and engine.get(DOCUMENTS, s["doc"]) is None
    assert engine.get(COMMENTS, s["comment"]) is None and engine.get(COMMENTS, s["kept"]) is not None
    assert engine.get(TASKS, s["mine"])["assignee_id"] is None
    texts = "\n".join(chunk_texts(engine, s["boss"]))
    assert "Zorbalina" not in texts and "Flibbertigibbet" not in texts and "Hyperborean" not in texts
    assert "Ordinary remark from the boss" in texts and "Assignee: unassigned" in texts
    assert peek_queue(engine) == []
    r = result.report
    assert r.comments_deleted == 1 and r.documents_deleted == (s["doc"],) and r.tasks_unassigned == (s["mine"],)
    assert set(r.tasks_reindexed) == {s["mine"], s["theirs"]}


def test_erasure_reassigning_documents_keeps_them_with_the_new_owner(engine):
    s = seed(engine)
    result = erase_employee(engine, s["ana"], lambda: drain_all(engine), reassign_documents_to=s["boss"])
    assert result.ok, result.failures
    assert engine.get(DOCUMENTS, s["doc"])["owner_employee_id"] == s["boss"]
    assert result.report.documents_reassigned == (s["doc"],) and result.report.reassigned_to == s["boss"]
    assert not any(v.label.startswith("document") for v in result.verdicts)  # not erased: reassigned
    boss = engine.caller(s["boss"])
    hits = search(engine, "Hyperborean rollout plan", boss, 3, mode="vector").result.hits
    assert hits[0].source_type == "doc" and hits[0].source_id == s["doc"]


def test_erasure_without_a_document_flag_is_refused_and_changes_nothing(engine):
    s = seed(engine)
    with pytest.raises(ErasureRefusedError, match="--delete-documents or --reassign-documents-to"):
        erase_employee(engine, s["ana"], lambda: drain_all(engine))
    assert engine.get(EMPLOYEES, s["ana"]) is not None and engine.get(COMMENTS, s["comment"]) is not None
    assert engine.get(TASKS, s["mine"])["assignee_id"] == s["ana"]
    assert peek_queue(engine) == []


def test_a_shared_first_name_is_still_present_legitimately(engine):
    s = seed(engine)
    employee(engine, "Zorbalina", "Other")  # a second Zorbalina keeps the name in EMPLOYEES
    result = erase_employee(engine, s["ana"], lambda: drain_all(engine), delete_documents=True)
    assert result.ok, result.failures
    verdict = {v.label: v for v in result.verdicts}
    assert verdict["first name"].verdict == "still present legitimately"
    assert any("EMPLOYEES.FIRST_NAME" in w for w in verdict["first name"].where)
    assert verdict["last name"].verdict == "erased"


def test_an_employee_who_wrote_a_5000_character_comment_is_erased_and_proven(engine):
    """REVIEW-2 W1: on Oracle the whole comment cannot be a LIKE pattern (a LONG bind, ORA-01461 after the erase
    committed): the proof searches it by its pieces, and the request still ends with a proof."""
    s = seed(engine)
    long_body = " ".join(f"Paragraph {i}: the Snollygoster ledger reconciliation stalled on Zorbalina's review "
                         "while the quarterly close waited for the auditors and the treasury desk." for i in range(34))
    assert len(long_body) > 5000
    long_comment = comment(engine, s["theirs"], long_body, author_id=s["ana"])
    drain_all(engine)
    result = erase_employee(engine, s["ana"], lambda: drain_all(engine), delete_documents=True)
    assert result.ok, result.failures
    verdict = {v.label: v.verdict for v in result.verdicts}
    label = f"comment #{long_comment} body"
    assert verdict[label] == "erased" and verdict[f"{label} (part 1)"] == "erased"
    assert engine.get(COMMENTS, long_comment) is None
    assert "Snollygoster" not in "\n".join(chunk_texts(engine, s["boss"]))


def test_bad_requests_change_nothing(engine):
    s = seed(engine)
    for kwargs, error in (({"delete_documents": True, "reassign_documents_to": s["boss"]}, ValueError),
                          ({"reassign_documents_to": s["ana"]}, ValueError),
                          ({"reassign_documents_to": 999_999}, InvalidRecordError)):
        with pytest.raises(error):
            erase_employee(engine, s["ana"], lambda: drain_all(engine), **kwargs)
    with pytest.raises(RecordNotFoundError):
        erase_employee(engine, 999_999, lambda: drain_all(engine), delete_documents=True)
    assert engine.get(EMPLOYEES, s["ana"]) is not None and engine.get(DOCUMENTS, s["doc"]) is not None


def test_erasure_deletes_the_employees_conversations_and_proves_their_text_gone(engine):
    s = seed(engine)
    conv = engine.create_conversation(s["ana"], "all", None, "Vexillological sprint chat")
    engine.append_turn(conv.conversation_id, "Is the Snollygoster migration blocked?", "Nothing says so.", ["[TASK #1]"])
    boss_conv = engine.create_conversation(s["boss"], "all", None, "Boss chat")
    engine.append_turn(boss_conv.conversation_id, "status?", "fine", [])
    result = erase_employee(engine, s["ana"], lambda: drain_all(engine), delete_documents=True)
    assert result.ok, result.failures
    verdict = {v.label: v.verdict for v in result.verdicts}
    assert verdict[f"conversation #{conv.conversation_id} title"] == "erased"
    user_message = engine_message_label(result)
    assert verdict[user_message] == "erased"
    assert any(line.where == "conversation tables" for line in result.proof)
    assert result.report.conversations_deleted == 1 and result.report.messages_deleted == 2
    assert engine.get_conversation(conv.conversation_id) is None
    assert engine.list_messages(conv.conversation_id, None, 10).items == []
    assert engine.list_messages(boss_conv.conversation_id, None, 10).total == 2  # someone else's stays


def engine_message_label(result):
    [label] = [v.label for v in result.verdicts if v.label.startswith("message #")]
    return label


def test_the_proof_searches_the_conversation_tables(engine):
    s = seed(engine)
    conv = engine.create_conversation(s["ana"], "all", None, None)
    engine.append_turn(conv.conversation_id, "Snollygoster quarterly numbers", "none", [])
    # Another employee's conversation quotes Ana's words: a copy outside the tracker's data, so not proven.
    other = engine.create_conversation(s["boss"], "all", None, "Quixotewick follow-up")
    engine.append_turn(other.conversation_id, "Snollygoster quarterly numbers", "ok", [])
    result = erase_employee(engine, s["ana"], lambda: drain_all(engine), delete_documents=True)
    verdict = {v.label: v for v in result.verdicts}
    assert verdict[engine_message_label(result)].verdict == "FOUND"
    assert any("conversation tables" in w for w in verdict[engine_message_label(result)].where)
    assert verdict["last name"].verdict == "FOUND"  # the boss's conversation title holds it
    assert not result.ok
