"""Erasure of an employee, identical on both engines: what is deleted, reassigned, redacted or refused, the
job row that outlives the employee and resumes after a crash, and the proof's verdicts. (SQLite-only checks
of the raw file bytes: tests/sqlite/test_sqlite_erasure.py; the HTTP scenario of issue 20:
tests/api/test_erasure_api.py.)"""

from __future__ import annotations

import pytest

from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, TASKS
from app.rag.erasure import REDACTED, STEPS
from app.services.erasure import ErasureRecordedError, ErasureRefusedError, erase_employee, resume_erasure
from app.services.records import InvalidRecordError, RecordNotFoundError
from app.services.search import search
from tests.support import comment, document, drain_all, employee, peek_queue, project, task

FULL_NAME = "Zorbalina Quixotewick"


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
    return dict(ana=ana, boss=boss, project=p, mine=mine, theirs=theirs, comment=c, kept=kept, doc=doc)


def chunk_texts(engine, boss_id):
    manager = engine.caller(boss_id)
    return [h.content for h in search(engine, "login keys plan incident remark", manager, 20, mode="vector").result.hits]


def erase(engine, employee_id, **kwargs):
    return erase_employee(engine, employee_id, lambda: drain_all(engine), **kwargs)


def verdict_of(result) -> dict[str, str]:
    return {v["label"]: v["verdict"] for v in result.to_dict()["verdicts"]}


def test_erasure_deleting_documents_removes_everything_and_is_proven(engine):
    s = seed(engine)
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    assert set(verdict_of(result).values()) == {"erased"}
    assert set(verdict_of(result)) >= {"full name", "email", "telegram id", f"comment #{s['comment']} body",
                                       f"document #{s['doc']} title", f"document #{s['doc']} body"}
    assert engine.get(EMPLOYEES, s["ana"]) is None and engine.get(DOCUMENTS, s["doc"]) is None
    assert engine.get(COMMENTS, s["comment"]) is None and engine.get(COMMENTS, s["kept"]) is not None
    assert engine.get(TASKS, s["mine"])["assignee_id"] is None
    texts = "\n".join(chunk_texts(engine, s["boss"]))
    assert "Zorbalina" not in texts and "Flibbertigibbet" not in texts and "Hyperborean" not in texts
    assert "Ordinary remark from the boss" in texts and "Assignee: unassigned" in texts
    assert peek_queue(engine) == []
    r = result.job.report
    assert r.comments_deleted == 1 and r.documents_deleted == (s["doc"],) and r.tasks_unassigned == (s["mine"],)
    assert set(r.tasks_reindexed) == {s["mine"], s["theirs"]}
    job = engine.erasure_job(s["ana"])  # the row that outlives the employee
    assert job.finished and job.verdict == "proven" and job.held is None
    assert result.ran == list(STEPS)


def test_the_proof_says_which_strings_it_searched_and_which_not(engine):
    s = seed(engine)
    comment(engine, s["theirs"], "LGTM", author_id=s["ana"])
    body = erase(engine, s["ana"], delete_documents=True).to_dict()
    searched = {x["label"]: x for x in body["searched"]}
    assert searched["full name"]["whole_words"] and searched["full name"]["chars"] == len(FULL_NAME)
    skipped = {x["label"]: x["reason"] for x in body["not_searched"]}
    assert set(skipped) >= {"first name outside conversations", "last name outside conversations"}
    assert any("shorter than 24" in r for r in skipped.values())
    assert searched["first name"]["where"] == searched["last name"]["where"] == "conversations"  # issue 34
    assert searched["first name"]["whole_words"] and "where" not in searched["full name"]
    assert FULL_NAME not in str(body) and "Flibbertigibbet" not in str(body)  # named, never repeated


def test_erasure_reassigning_documents_keeps_them_with_the_new_owner(engine):
    s = seed(engine)
    result = erase(engine, s["ana"], reassign_documents_to=s["boss"])
    assert result.ok, result.failures
    assert engine.get(DOCUMENTS, s["doc"])["owner_employee_id"] == s["boss"]
    assert result.job.report.documents_reassigned == (s["doc"],) and result.job.report.reassigned_to == s["boss"]
    assert not any(label.startswith("document") for label in verdict_of(result))  # not erased: reassigned
    boss = engine.caller(s["boss"])
    hits = search(engine, "Hyperborean rollout plan", boss, 3, mode="vector").result.hits
    assert hits[0].source_type == "doc" and hits[0].source_id == s["doc"]


def test_erasure_without_a_document_flag_is_refused_and_changes_nothing(engine):
    s = seed(engine)
    with pytest.raises(ErasureRefusedError, match="--delete-documents or --reassign-documents-to"):
        erase(engine, s["ana"])
    assert engine.get(EMPLOYEES, s["ana"]) is not None and engine.get(COMMENTS, s["comment"]) is not None
    assert engine.get(TASKS, s["mine"])["assignee_id"] == s["ana"]
    assert peek_queue(engine) == [] and engine.erasure_job(s["ana"]) is None


def test_an_employee_who_wrote_a_5000_character_comment_is_erased_and_proven(engine):
    """REVIEW-2 W1: on Oracle the whole comment cannot be a LIKE pattern (a LONG bind, ORA-01461 after the erase
    committed): the proof searches it by its pieces, and the request still ends with a proof."""
    s = seed(engine)
    long_body = " ".join(f"Paragraph {i}: the Snollygoster ledger reconciliation stalled on Zorbalina's review "
                         "while the quarterly close waited for the auditors and the treasury desk." for i in range(34))
    assert len(long_body) > 5000
    long_comment = comment(engine, s["theirs"], long_body, author_id=s["ana"])
    drain_all(engine)
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    verdict = verdict_of(result)
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
            erase(engine, s["ana"], **kwargs)
    with pytest.raises(RecordNotFoundError):
        erase(engine, 999_999, delete_documents=True)
    with pytest.raises(RecordNotFoundError, match="no erasure of employee"):
        resume_erasure(engine, s["ana"], lambda: drain_all(engine))
    assert engine.get(EMPLOYEES, s["ana"]) is not None and engine.get(DOCUMENTS, s["doc"]) is not None
    assert engine.erasure_job(s["ana"]) is None


def test_a_managers_chat_quoting_the_person_is_redacted_and_the_erasure_proven(engine):
    """Issue 20, point 1: the manager asked about the assignee and the answer quoted her; erasing her must
    reach that copy (and the conversation's title) in the same run."""
    s = seed(engine)
    conv = engine.create_conversation(s["boss"], "all", None, f"what is {FULL_NAME} working on?")
    engine.append_turn(conv.conversation_id, "who is assigned to the login fix?",
                       f"[TASK #{s['mine']}] Fix login: Assignee: {FULL_NAME} (zorbalina.quixotewick@example.com).",
                       [f"[TASK #{s['mine']}]"])
    engine.set_project_summary(s["project"], f"Apollo: login work led by {FULL_NAME}.", "inputs")
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    answer = engine.list_messages(conv.conversation_id, None, 10).items[1].content
    assert FULL_NAME not in answer and answer.count(REDACTED) == 2 and answer.startswith(f"[TASK #{s['mine']}] Fix login")
    assert engine.get_conversation(conv.conversation_id).title == f"what is {REDACTED} working on?"
    [card] = [c for c in engine.projects_for_matching() if c.project_id == s["project"]]
    assert card.auto_summary == f"Apollo: login work led by {REDACTED}."
    redacted = {x["where"]: x for x in result.to_dict()["redacted"]}
    assert redacted["MESSAGES.CONTENT"] == {"where": "MESSAGES.CONTENT", "rows": 1, "copies": 2}
    assert redacted["CONVERSATIONS.TITLE"]["copies"] == 1 and redacted["PROJECTS.AUTO_SUMMARY"]["copies"] == 1


def test_erasing_one_of_two_people_who_share_a_first_name_leaves_the_other_alone(engine):
    s = seed(engine)
    other = employee(engine, "Zorbalina", "Other")
    longer = employee(engine, "Zorbalina", "Quixotewickson")  # the erased full name is a prefix of hers
    t = task(engine, "Audit logs", assignee_id=other)
    drain_all(engine)
    conv = engine.create_conversation(s["boss"], "all", None, "Zorbalina Other and Zorbalina Quixotewickson")
    engine.append_turn(conv.conversation_id, "who works on audit logs?",
                       "Zorbalina Other; ask Zorbalina too. Zorbalina Quixotewickson reviews.", [])
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    turn = engine.list_messages(conv.conversation_id, None, 10).items[1].content
    assert turn == "Zorbalina Other; ask Zorbalina too. Zorbalina Quixotewickson reviews."  # nothing redacted
    assert engine.get_conversation(conv.conversation_id).title == "Zorbalina Other and Zorbalina Quixotewickson"
    assert engine.get(EMPLOYEES, other)["first_name"] == "Zorbalina" and engine.get(EMPLOYEES, longer)
    assert verdict_of(result)["full name"] == "erased"
    boss = engine.caller(s["boss"])
    assert any("Assignee: Zorbalina Other" in h.content
               for h in search(engine, "Audit logs", boss, 5, mode="vector").result.hits if h.source_id == t)


def test_a_lone_name_in_other_peoples_questions_and_titles_is_redacted_and_proven(engine):
    """Issue 34 (the attacker's rerun): after the erasure the first name stayed in a manager's own stored question
    and in that conversation's title. Every stored message and title is redacted, the askers' own words included,
    and the proof scans them; the tracker's own data keeps a colleague's words ("ask Zorbalina")."""
    s = seed(engine)
    colleague = comment(engine, s["theirs"], "Blocked until Zorbalina reviews the rotation", author_id=s["boss"])
    drain_all(engine)
    conv = engine.create_conversation(s["boss"], "all", None, "what is Zorbalina working on?")
    engine.append_turn(conv.conversation_id, "what is Zorbalina working on?",
                       "Zorbalina has one task; Quixotewick's review is pending. Zorbalinas is a word.", [])
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    question, answer = (m.content for m in engine.list_messages(conv.conversation_id, None, 10).items)
    assert question == f"what is {REDACTED} working on?"
    assert answer == f"{REDACTED} has one task; {REDACTED}'s review is pending. Zorbalinas is a word."
    assert engine.get_conversation(conv.conversation_id).title == f"what is {REDACTED} working on?"
    assert engine.get(COMMENTS, colleague)["body"] == "Blocked until Zorbalina reviews the rotation"
    verdict = verdict_of(result)
    assert verdict["first name"] == verdict["last name"] == "erased"
    lines = [x for x in result.to_dict()["proof"] if x["label"] == "first name"]
    assert [x["where"] for x in lines] == ["conversation tables"] and not lines[0]["found"]
    redacted = {x["where"]: x for x in result.to_dict()["redacted"]}
    assert redacted["MESSAGES.CONTENT"]["copies"] == 3 and redacted["CONVERSATIONS.TITLE"]["copies"] == 1


def test_a_name_in_a_stored_typed_query_is_redacted_and_the_query_still_reads(engine):
    """Issue 34 with issue 31's MESSAGES.TRACKER_QUERY: an answer stores the typed query it ran, whose text predicate
    may hold the name ("tasks mentioning Zorbalina"); it is redacted inside the JSON, which still reads back."""
    import json

    from app.domain import TurnFacts
    from app.rag.understanding.query import from_data

    s = seed(engine)
    conv = engine.create_conversation(s["boss"], "all", None, None)
    query = '{"where":[{"field":"text","values":["Zorbalina"]}],"returns":"list"}'
    from_data(json.loads(query))  # a query the reader could have stored
    engine.append_turn(conv.conversation_id, "tasks mentioning her?", "One task.", [], facts=TurnFacts(query=query))
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    answer = engine.list_messages(conv.conversation_id, None, 10).items[1]
    assert "Zorbalina" not in answer.facts.query
    assert from_data(json.loads(answer.facts.query)).where[0].values == (REDACTED,)
    redacted = {x["where"]: x for x in result.to_dict()["redacted"]}
    assert redacted["MESSAGES.TRACKER_QUERY"] == {"where": "MESSAGES.TRACKER_QUERY", "rows": 1, "copies": 1}


def test_a_lone_name_the_redaction_missed_fails_the_proof(engine):
    """The proof reads the conversation tables for a lone name itself: a copy written after the redaction step
    (or one the redaction missed) leaves the erasure not proven, naming the place."""
    s = seed(engine)
    conv = engine.create_conversation(s["boss"], "all", None, None)

    def late_copy(step, outcome):
        if step == "purge":
            engine.append_turn(conv.conversation_id, "and Quixotewick?", "no idea", [])

    result = erase(engine, s["ana"], delete_documents=True, on_step=late_copy)
    assert not result.ok and verdict_of(result)["last name"] == "FOUND"
    assert any("last name" in f and "conversation tables" in f for f in result.failures)


def test_erasure_deletes_the_employees_conversations_and_proves_their_text_gone(engine):
    s = seed(engine)
    conv = engine.create_conversation(s["ana"], "all", None, "Vexillological sprint chat")
    engine.append_turn(conv.conversation_id, "Is the Snollygoster migration blocked?", "Nothing says so.", ["[TASK #1]"])
    boss_conv = engine.create_conversation(s["boss"], "all", None, "Boss chat")
    engine.append_turn(boss_conv.conversation_id, "status?", "fine", [])
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    verdict = verdict_of(result)
    assert verdict[f"conversation #{conv.conversation_id} title"] == "erased"
    assert [v for label, v in verdict.items() if label.startswith("message #")] == ["erased"]
    assert any(line["where"] == "conversation tables" for line in result.to_dict()["proof"])
    assert result.job.report.conversations_deleted == 1 and result.job.report.messages_deleted == 2
    assert engine.get_conversation(conv.conversation_id) is None
    assert engine.list_messages(conv.conversation_id, None, 10).items == []
    assert engine.list_messages(boss_conv.conversation_id, None, 10).total == 2  # someone else's stays


def test_their_words_quoted_in_someone_elses_conversation_are_redacted(engine):
    s = seed(engine)
    conv = engine.create_conversation(s["ana"], "all", None, None)
    engine.append_turn(conv.conversation_id, "Snollygoster quarterly numbers", "none", [])
    other = engine.create_conversation(s["boss"], "all", None, "Follow-up")
    engine.append_turn(other.conversation_id, "She asked: snollygoster quarterly numbers?", "ok", [])
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    assert engine.list_messages(other.conversation_id, None, 10).items[0].content == f"She asked: {REDACTED}?"


@pytest.mark.parametrize("crash_after", STEPS[:-1])
def test_an_erasure_that_stopped_after_any_step_is_finished_by_resume(engine, crash_after):
    s = seed(engine)
    conv = engine.create_conversation(s["boss"], "all", None, None)
    engine.append_turn(conv.conversation_id, "who fixes login?", f"{FULL_NAME} does.", [])

    def crash(step, outcome):
        if step == crash_after:
            raise SystemExit(f"killed after {step}")

    with pytest.raises(SystemExit):
        erase(engine, s["ana"], delete_documents=True, on_step=crash)
    job = engine.erasure_job(s["ana"])
    assert job.step == crash_after and not job.finished and job.held is not None
    assert engine.get(EMPLOYEES, s["ana"]) is None  # gone: only the job row can finish it
    with pytest.raises(ErasureRecordedError, match="--resume"):
        erase(engine, s["ana"], delete_documents=True)
    result = resume_erasure(engine, s["ana"], lambda: drain_all(engine))
    assert result.ok, result.failures
    assert result.ran == list(STEPS[STEPS.index(crash_after) + 1:])
    assert engine.list_messages(conv.conversation_id, None, 10).items[1].content == f"{REDACTED} does."
    again = resume_erasure(engine, s["ana"], lambda: drain_all(engine))  # finished: reported, nothing run
    assert again.ok and again.ran == []


def test_a_failed_proof_keeps_the_job_and_resume_proves_it_once_the_cause_is_gone(engine):
    s = seed(engine)
    # A copy the erasure cannot reach by itself: a chunk of a task that no longer exists.
    stray = task(engine, "Stray", description=f"Ask {FULL_NAME}")
    drain_all(engine)
    engine_chunks = [h for h in search(engine, "Stray", engine.caller(s["boss"]), 5, mode="vector").result.hits
                     if h.source_id == stray]
    assert engine_chunks
    engine.delete(TASKS, stray)  # the GONE trigger deletes its chunks too; put one back behind its back
    _orphan_chunk(engine, f"[TASK #{stray}] Stray\nDescription: Ask {FULL_NAME}")
    first = erase(engine, s["ana"], delete_documents=True)
    assert not first.ok and first.job.verdict == "not proven" and first.job.step == "delete"
    assert any("full name" in f and "RAG_CHUNK" in f for f in first.failures), first.failures
    _delete_orphan(engine)
    second = resume_erasure(engine, s["ana"], lambda: drain_all(engine))
    assert second.ok, second.failures
    assert second.ran == list(STEPS[1:])


def _orphan_chunk(engine, text):
    if engine.name == "sqlite":
        from tests.sqlite.helpers import seed_chunks, unit_vectors
        import numpy as np

        seed_chunks(engine, [("task", 999_001, None, None, None)], unit_vectors(np.random.default_rng(2), 1), [text])
    else:
        with engine._connection() as conn, conn.cursor() as cur:
            cur.execute("INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, CONTENT_HASH) "
                        "VALUES ('task', 999001, 0, :content, 'x')", content=text)
            conn.commit()


def _delete_orphan(engine):
    if engine.name == "sqlite":
        with engine._write() as conn:
            conn.execute("DELETE FROM RAG_CHUNK WHERE SOURCE_ID = 999001")
    else:
        with engine._connection() as conn, conn.cursor() as cur:
            cur.execute("DELETE FROM RAG_CHUNK WHERE SOURCE_ID = 999001")
            conn.commit()


def test_an_imported_persons_tracker_id_is_erased_with_them_and_proven(engine):
    s = seed(engine)
    source, external = "jira:https://acme.atlassian.net", "5b10ac8d82e05b22cc7d4ef5"
    engine.update(EMPLOYEES, s["ana"], {"SOURCE": source, "EXTERNAL_ID": external})
    drain_all(engine)
    theirs = engine.load_records("task", [s["theirs"]])[s["theirs"]]
    assert FULL_NAME in [c.author_name for c in theirs.comments]  # the chunk names comment authors now
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    assert verdict_of(result)["tracker id"] == "erased"
    assert engine.find_by_external(EMPLOYEES, source, [external]) == {}  # a re-import creates a new person
    assert FULL_NAME not in "\n".join(chunk_texts(engine, s["boss"]))


def test_a_reporter_and_resolver_is_cleared_like_an_assignee_and_the_erasure_proven(engine):
    """Issue 31: a task the person reported (its chunk says "Reporter: <name>") or resolved is kept, its reference
    cleared and its chunk re-indexed without the name."""
    s = seed(engine)
    reported = task(engine, "Quarterly audit", assignee_id=s["boss"], project_id=s["project"])
    engine.update(TASKS, reported, {"REPORTER_ID": s["ana"], "RESOLVED_BY_ID": s["ana"]})
    engine.update(TASKS, s["theirs"], {"RESOLVED_BY_ID": s["ana"]})
    drain_all(engine)
    assert any(f"Reporter: {FULL_NAME}" in t for t in chunk_texts(engine, s["boss"]))
    result = erase(engine, s["ana"], delete_documents=True)
    assert result.ok, result.failures
    r = result.job.report
    assert r.tasks_cleared == tuple(sorted((reported, s["theirs"]))) and reported in r.tasks_reindexed
    row = engine.get(TASKS, reported)
    assert (row["reporter_id"], row["resolved_by_id"], row["title"]) == (None, None, "Quarterly audit")
    assert engine.get(TASKS, s["theirs"])["resolved_by_id"] is None
    texts = "\n".join(chunk_texts(engine, s["boss"]))
    assert "Zorbalina" not in texts and "Quarterly audit" in texts and "Reporter:" not in texts
