"""The Oracle conversation, task-finding and project-summary statements, driven through the recording
fake (tests/oracle/golden/*.sql): exact text, binds, and what commits together. What Oracle does with
them is the conformance suite's Oracle leg (tests/conformance/test_conversations.py)."""

from __future__ import annotations

import datetime as dt

import oracledb
import pytest

from app.domain import Named, Person, TurnFacts, Vocabulary
from app.engines.base import ConflictError
from app.engines.oracle import erasure_statements as sql

from .fakes import FakeVar, Reply, golden, ora_error

NOW = dt.datetime(2025, 5, 1, 12, 0, 0)
CONV_ROW = (5, 7, "Login bug", "all", None, NOW, NOW)


def returning(value):
    """A reply that fills the statement's RETURNING INTO :new_id variable."""
    return Reply(out={"new_id": value})


def test_create_conversation_inserts_commits_and_reads_it_back(fake_engine, conn):
    conn.replies += [("INSERT INTO CONVERSATIONS", returning([5])), ("FROM CONVERSATIONS WHERE", Reply(rows=[CONV_ROW]))]
    created = fake_engine.create_conversation(7, "all", None, "Login bug")
    insert, select = conn.calls
    assert insert.sql == golden("insert_conversation")
    assert {k: v for k, v in insert.binds.items() if k != "new_id"} == {
        "employee_id": 7, "title": "Login bug", "rag_scope": "all", "pinned_project_id": None}
    assert isinstance(insert.binds["new_id"], FakeVar)
    assert select.sql == golden("get_conversation") and select.binds == {"conversation_id": 5}
    assert conn.events == ["commit"]
    assert created.conversation_id == 5 and created.rag_scope == "all" and created.created_at == NOW


def test_a_malformed_scope_sends_nothing(fake_engine, conn):
    for bad in ("0", "-3", "project", "", "01", True):
        with pytest.raises(ValueError):
            fake_engine.create_conversation(7, bad, None, None)
        with pytest.raises(ValueError):
            fake_engine.set_conversation_scope(5, bad)
    assert conn.calls == []


def test_unknown_employee_is_a_conflict_and_rolled_back(fake_engine, conn):
    conn.replies.append(("INSERT INTO CONVERSATIONS", Reply(error=ora_error(2291, "integrity constraint violated"))))
    with pytest.raises(ConflictError):
        fake_engine.create_conversation(999, "all", None, None)
    assert conn.events == ["rollback"]


def test_list_scope_and_delete(fake_engine, conn):
    older = (4, 7, "Older", "all", None, NOW, NOW - dt.timedelta(microseconds=1500))
    conn.replies += [("ORDER BY UPDATED_AT DESC", Reply(rows=[CONV_ROW, older])),
                     ("COUNT(*) FROM CONVERSATIONS", Reply(rows=[(3,)]))]
    page = fake_engine.list_conversations(7, None, 1)
    assert [c.conversation_id for c in page.items] == [5] and (page.total, page.more) == (3, True)
    assert [c.sql for c in conn.calls] == [golden("list_conversations"), golden("count_conversations")]
    assert conn.calls[0].binds == {"employee_id": 7, "max_rows": 2}  # one past the page: is there another?
    assert conn.calls[1].binds == {"employee_id": 7}

    conn.calls.clear()
    conn.replies += [("ORDER BY UPDATED_AT DESC", Reply(rows=[older])),
                     ("COUNT(*) FROM CONVERSATIONS", Reply(rows=[(3,)]))]
    stamp = NOW.replace(microsecond=123456)
    page = fake_engine.list_conversations(7, (stamp, 5), 20)
    assert [c.conversation_id for c in page.items] == [4] and page.more is False
    after = conn.calls[0]
    assert after.sql == golden("list_conversations_after")
    assert after.binds == {"employee_id": 7, "after_updated": stamp, "after_id": 5, "max_rows": 21}
    # A datetime binds as DATE and would drop the microseconds the keyset compares (FACTS.md §12.2).
    assert after.inputsizes == {"after_updated": oracledb.DB_TYPE_TIMESTAMP}

    conn.calls.clear()
    conn.replies += [("UPDATE CONVERSATIONS SET RAG_SCOPE", Reply(rowcount=1)),
                     ("FROM CONVERSATIONS WHERE", Reply(rows=[(*CONV_ROW[:3], "12", *CONV_ROW[4:])]))]
    assert fake_engine.set_conversation_scope(5, 12).rag_scope == "12"
    assert conn.calls[0].sql == golden("set_conversation_scope")
    assert conn.calls[0].binds == {"rag_scope": "12", "conversation_id": 5, "scope_project_id": 12}
    assert fake_engine.set_conversation_scope(6, "none") is None  # rowcount 0: no such conversation (or pinned)
    assert conn.calls[-1].binds == {"rag_scope": "none", "conversation_id": 6, "scope_project_id": None}

    conn.calls.clear()
    conn.replies.append(("DELETE FROM CONVERSATIONS", Reply(rowcount=1)))
    assert fake_engine.delete_conversation(5) is True
    assert conn.calls[0].sql == golden("delete_conversation") and conn.calls[0].binds == {"conversation_id": 5}
    assert fake_engine.delete_conversation(5) is False


def test_append_turn_bumps_inserts_both_then_commits_once(fake_engine, conn):
    conn.replies += [("UPDATE CONVERSATIONS SET UPDATED_AT", Reply(rowcount=1)),
                     ("INSERT INTO MESSAGES", returning([41])), ("INSERT INTO MESSAGES", returning([42])),
                     ("MESSAGE_ID IN", Reply(rows=[(41, 5, "user", "who?", "[]", NOW, None, None, None, None, None),
                                                   (42, 5, "assistant", "Ana [TASK #3]", '["[TASK #3]"]', NOW,
                                                    "[TASK #3]", '[["task",3,0]]', "all", None, None)]))]
    facts = TurnFacts(focus="[TASK #3]", retrieved=(("task", 3, 0),), rag_scope="all")
    user, answer = fake_engine.append_turn(5, "who?", "Ana [TASK #3]", ["[TASK #3]"], facts=facts)
    touch, first, second, read = conn.calls
    assert touch.sql == golden("touch_conversation") and touch.binds == {"conversation_id": 5}
    assert first.sql == second.sql == golden("insert_message")
    assert [(c.binds["message_role"], c.binds["content"], c.binds["citations"]) for c in (first, second)] == [
        ("user", "who?", "[]"), ("assistant", "Ana [TASK #3]", '["[TASK #3]"]')]
    assert [(c.binds["focus"], c.binds["retrieved"], c.binds["used_scope"], c.binds["llm_error"])
            for c in (first, second)] == [(None, None, None, None), ("[TASK #3]", '[["task",3,0]]', "all", None)]
    assert read.sql == golden("get_turn") and read.binds == {"user_id": 41, "answer_id": 42}
    assert conn.events == ["commit"]
    assert (user.role, answer.citations) == ("user", ("[TASK #3]",))
    assert answer.facts == facts and user.facts == TurnFacts()


def test_every_entity_of_an_answer_is_inserted_in_the_turns_transaction_and_read_back_by_range(fake_engine, conn):
    """MESSAGE_ENTITIES (V17): one executemany row per entity, uncapped, before the one commit; the recent
    window and a page read them in one range statement only when they hold an answer."""
    entities = tuple(("task", i) for i in range(1, 161))
    conn.replies += [("UPDATE CONVERSATIONS SET UPDATED_AT", Reply(rowcount=1)),
                     ("INSERT INTO MESSAGES", returning([41])), ("INSERT INTO MESSAGES", returning([42])),
                     ("MESSAGE_ID IN", Reply(rows=[(41, 5, "user", "q", "[]", NOW, None, None, None, None, None),
                                                   (42, 5, "assistant", "a", "[]", NOW, None, None, None, None, None)]))]
    _, answer = fake_engine.append_turn(5, "q", "a", [], facts=TurnFacts(entities=entities))
    touch, first, second, many, read = conn.calls
    assert many.sql == golden("insert_message_entity") and many.kind == "executemany"
    assert many.binds == [{"message_id": 42, "source_type": "task", "source_id": i} for i in range(1, 161)]
    assert conn.events == ["commit"] and read.sql == golden("get_turn") and answer.facts.entities == entities

    conn.calls.clear()
    rows = [(7, 5, "assistant", "b", "[]", NOW, None, None, None, None, None),
            (6, 5, "user", "q", "[]", NOW, None, None, None, None, None),
            (4, 5, "assistant", "a", "[]", NOW, None, None, None, None, None)]
    conn.replies += [("ORDER BY MESSAGE_ID DESC", Reply(rows=rows)),
                     ("FROM MESSAGE_ENTITIES", Reply(rows=[(4, "doc", 2), (4, "task", 9), (7, "task", 3)]))]
    window = fake_engine.recent_messages(5, 3)
    assert conn.calls[1].sql == golden("message_entities_between")
    assert conn.calls[1].binds == {"conversation_id": 5, "first_id": 4, "last_id": 7}
    assert [m.facts.entities for m in window] == [(("doc", 2), ("task", 9)), (), (("task", 3),)]


def test_a_scope_chosen_during_the_turn_is_set_before_the_one_commit(fake_engine, conn):
    conn.replies += [("UPDATE CONVERSATIONS SET UPDATED_AT", Reply(rowcount=1)),
                     ("INSERT INTO MESSAGES", returning([41])), ("INSERT INTO MESSAGES", returning([42])),
                     ("UPDATE CONVERSATIONS SET RAG_SCOPE", Reply(rowcount=1)),
                     ("MESSAGE_ID IN", Reply(rows=[(41, 5, "user", "q", "[]", NOW, None, None, None, None, None), (42, 5, "assistant", "a", "[]", NOW, None, None, None, None, None)]))]
    fake_engine.append_turn(5, "q", "a", [], rag_scope="none")
    scope = conn.calls[3]
    assert scope.sql == golden("set_conversation_scope")
    assert scope.binds == {"rag_scope": "none", "conversation_id": 5, "scope_project_id": None}
    assert conn.events == ["commit"] and conn.calls[4].sql == golden("get_turn")


def test_a_scope_the_pin_refuses_rolls_the_turn_back(fake_engine, conn):
    """The scope write changes no row (the conversation was pinned meanwhile): nothing of the turn stays."""
    conn.replies += [("UPDATE CONVERSATIONS SET UPDATED_AT", Reply(rowcount=1)),
                     ("INSERT INTO MESSAGES", returning([41])), ("INSERT INTO MESSAGES", returning([42])),
                     ("UPDATE CONVERSATIONS SET RAG_SCOPE", Reply(rowcount=0))]
    with pytest.raises(ConflictError, match="pinned"):
        fake_engine.append_turn(5, "q", "a", [], rag_scope="all")
    assert conn.calls[3].sql == golden("set_conversation_scope") and conn.events == ["rollback"]


def test_append_turn_failing_second_insert_rolls_everything_back(fake_engine, conn):
    conn.replies += [("UPDATE CONVERSATIONS SET UPDATED_AT", Reply(rowcount=1)),
                     ("INSERT INTO MESSAGES", returning([41])),
                     ("INSERT INTO MESSAGES", Reply(error=ora_error(1400, "cannot insert NULL")))]
    with pytest.raises(ConflictError):
        fake_engine.append_turn(5, "who?", None, [])
    assert conn.events == ["rollback"]


def test_append_turn_to_an_unknown_conversation_inserts_nothing(fake_engine, conn):
    with pytest.raises(ConflictError, match="does not exist"):
        fake_engine.append_turn(99, "who?", "nobody", [])
    assert conn.sqls == [golden("touch_conversation")] and conn.events == ["rollback"]


def test_messages_pages_and_the_recent_window(fake_engine, conn):
    rows = [(i, 5, "user", f"m{i}", "[]", NOW, None, None, None, None, None) for i in (3, 2)]
    conn.replies.append(("ORDER BY MESSAGE_ID DESC", Reply(rows=rows)))
    assert [m.message_id for m in fake_engine.recent_messages(5, 2)] == [2, 3]  # oldest first
    assert conn.calls[0].sql == golden("recent_messages") and conn.calls[0].binds == {"conversation_id": 5, "max_rows": 2}
    conn.replies.append(("COUNT(*) FROM MESSAGES", Reply(rows=[(0,)])))
    page = fake_engine.list_messages(5, 20, 10)
    assert [c.sql for c in conn.calls[1:]] == [golden("list_messages"), golden("count_messages")]
    assert conn.calls[1].binds == {"conversation_id": 5, "after_id": 20, "max_rows": 11}
    assert conn.calls[2].binds == {"conversation_id": 5} and (page.items, page.total, page.more) == ([], 0, False)


def test_projects_and_summaries(fake_engine, conn):
    conn.replies.append(("AUTO_SUMMARY FROM PROJECTS", Reply(rows=[(2, "Apollo", "Launch", None)])))
    [card] = fake_engine.projects_for_matching()
    assert conn.calls[0].sql == golden("projects_for_matching") and card.auto_summary is None
    conn.replies.append(("UPDATE PROJECTS SET AUTO_SUMMARY", Reply(rowcount=1)))
    assert fake_engine.set_project_summary(2, "Apollo ships the launch." * 300) is True  # > 4000 bytes: a CLOB
    assert conn.calls[1].sql == golden("set_project_summary") and conn.calls[1].binds["project_id"] == 2
    assert fake_engine.set_project_summary(3, "x") is False
    assert conn.events == ["commit", "commit"]


def test_vocabulary_reads_people_projects_and_sprints_by_id(fake_engine, conn):
    conn.replies += [("FROM EMPLOYEES ORDER BY", Reply(rows=[(7, "Ana", "Ruiz"), (8, None, "Ode")])),
                     ("FROM PROJECTS ORDER BY", Reply(rows=[(2, "Apollo")])),
                     ("FROM SPRINTS ORDER BY", Reply(rows=[(5, "Apollo Sprint 1", 2), (6, "Loose", None)]))]
    names = fake_engine.vocabulary()
    assert [c.sql for c in conn.calls] == [golden("vocabulary_people"), golden("vocabulary_projects"),
                                            golden("vocabulary_sprints")]
    assert all(c.binds in ({}, None) for c in conn.calls)
    assert names == Vocabulary((Person(7, "Ana", "Ruiz"), Person(8, None, "Ode")), (Named(2, "Apollo"),),
                               (Named(5, "Apollo Sprint 1", 2), Named(6, "Loose", None)))


def test_a_pin_change_updates_scope_and_pin_then_commits_and_reads_back(fake_engine, conn):
    conn.replies += [("PINNED_PROJECT_ID = :pinned_project_id", Reply(rowcount=1)),
                     ("FROM CONVERSATIONS WHERE CONVERSATION_ID", Reply(rows=[(5, 7, "t", "all", None, NOW, NOW)]))]
    conv = fake_engine.set_conversation_pin(5, "all", None)
    update, read = conn.calls
    assert update.sql == golden("set_conversation_pin")
    assert update.binds == {"rag_scope": "all", "pinned_project_id": None, "conversation_id": 5}
    assert read.sql == golden("get_conversation") and conn.events == ["commit"] and conv.pinned_project_id is None
    conn.replies.append(("PINNED_PROJECT_ID = :pinned_project_id", Reply(rowcount=0)))
    assert fake_engine.set_conversation_pin(6, "3", 3) is None


def test_project_summary_reads_the_clob_and_its_time(fake_engine, conn):
    conn.replies += [("AUTO_SUMMARY, AUTO_SUMMARY_AT FROM PROJECTS", Reply(rows=[("Ships it.", NOW)])),
                     ("AUTO_SUMMARY, AUTO_SUMMARY_AT FROM PROJECTS", Reply(rows=[]))]
    assert fake_engine.project_summary(2) == ("Ships it.", NOW)
    assert conn.calls[0].sql == golden("project_summary") and conn.calls[0].binds == {"project_id": 2}
    assert fake_engine.project_summary(3) is None


def test_load_records_reads_sources_as_the_worker_does(fake_engine, conn):
    conn.replies.append(("FROM DOCUMENTS", Reply(rows=[(6, "1:1 notes", "Agreed: pair.", None, 2, "MEETING_NOTES")])))
    docs = fake_engine.load_records("doc", [6])
    assert conn.calls[0].sql == golden("load_sources_doc") and conn.calls[0].binds == {"id0": 6}
    assert list(docs) == [6] and docs[6].owner_employee_id == 2 and docs[6].body == "Agreed: pair."
    conn.replies.append(("FROM DOCUMENTS", Reply(rows=[])))
    assert fake_engine.load_records("doc", [9]) == {}  # missing: absent


def test_the_proof_lists_the_conversation_tables():
    assert ("CONVERSATIONS", ("TITLE",), False) in sql.PROOF_TABLES
    assert ("MESSAGES", ("CONTENT", "CITATIONS", "TRACKER_QUERY"), False) in sql.PROOF_TABLES  # issue 34: the query too


def test_summary_sources_reads_projects_and_their_newest_tasks(fake_engine, conn):
    conn.replies += [("ROW_NUMBER() OVER (PARTITION BY PROJECT_ID",
                      Reply(rows=[(2, "Fix login", "DONE"), (2, "Add SSO", None)])),
                     ("AUTO_SUMMARY_INPUTS\nFROM PROJECTS", Reply(rows=[(2, "Apollo", "Launch", "Old.", NOW, "p:1;t:2"),
                                                                         (3, "Zeus", None, None, None, None)]))]
    apollo, zeus = fake_engine.summary_sources(20)
    tasks, projects = conn.calls
    assert tasks.sql == golden("summary_tasks") and tasks.binds == {"max_tasks": 20}
    assert projects.sql == golden("summary_projects") and projects.binds in ({}, None)
    assert apollo.tasks == (("Fix login", "DONE"), ("Add SSO", None)) and apollo.summary_inputs == "p:1;t:2"
    assert apollo.auto_summary_at == NOW and zeus.tasks == () and zeus.auto_summary is None


def test_set_project_summary_stores_the_fingerprint(fake_engine, conn):
    conn.replies.append(("UPDATE PROJECTS SET AUTO_SUMMARY", Reply(rowcount=1)))
    assert fake_engine.set_project_summary(2, "Apollo ships.", "p:ab;t:cd") is True
    assert conn.calls[0].sql == golden("set_project_summary")
    assert conn.calls[0].binds == {"summary": "Apollo ships.", "summary_inputs": "p:ab;t:cd", "project_id": 2}
    assert conn.events == ["commit"]
