"""Oracle erasure, driven through the recording fake: the exact statements and binds of the deletes and
the job row, the redaction, the Oracle Text clean-up and the proof (tests/oracle/golden/erase_*.sql,
erasure_*.sql, redact_*.sql, proof_*.sql), and the order the service runs them in. What Oracle does with
them is the conformance suite's Oracle leg."""

from __future__ import annotations

import json

import pytest

from app.engines.base import OwnedDocumentsError
from app.engines.oracle import erasure_statements as sql
from app.rag.erasure import REDACT_PLACES, ErasureReport, PersonString, first_outcome, seal, unseal
from app.services.erasure import ErasureRefusedError, erase_employee, failures
from app.services.indexing import DrainResult

from .fakes import Reply, golden, ora_error

SELECTS = ["erase_employee_row", "erase_authored_comments", "erase_owned_documents", "erase_assigned_tasks",
           "erase_referencing_tasks"]
CONVERSATION_READS = ["erase_conversation_titles", "erase_user_messages", "erase_count_messages", "erase_namesakes"]
PROOF_COUNTS = ["proof_count_employees", "proof_count_projects", "proof_count_sprints", "proof_count_tasks",
                "proof_count_comments", "proof_count_documents", "proof_count_rag_chunk", "proof_count_rag_dirty",
                "proof_count_conversations", "proof_count_messages", "proof_count_projects_auto_summary"]
KEY = bytes(range(32))


def test_every_proof_table_has_its_golden_statement():
    seen: set[str] = set()
    names = []
    for table, columns, _ in sql.PROOF_TABLES:  # a table listed twice is named by its first column the 2nd time
        names.append(f"proof_count_{table.lower()}" + (f"_{columns[0].lower()}" if table in seen else ""))
        seen.add(table)
    assert names == PROOF_COUNTS
    for (table, columns, _), name in zip(sql.PROOF_TABLES, PROOF_COUNTS):
        assert sql.proof_count(table, columns) == golden(name)
    for name, (table, column) in {"proof_values_employees_first_name": ("EMPLOYEES", "FIRST_NAME"),
                                  "proof_values_rag_chunk_content": ("RAG_CHUNK", "CONTENT"),
                                  "proof_values_messages_content": ("MESSAGES", "CONTENT")}.items():
        assert sql.proof_values(table, column) == golden(name)


GOLDEN_REDACTIONS = {
    "MESSAGES": ("redact_candidates_messages", "redact_update_messages"),
    "MESSAGES.TRACKER_QUERY": ("redact_candidates_messages_tracker_query", "redact_update_messages_tracker_query"),
    "CONVERSATIONS": ("redact_candidates_conversations", "redact_update_conversations"),
    "PROJECTS": ("redact_candidates_projects", "redact_update_projects"),
    "RAG_DIRTY": ("redact_candidates_rag_dirty", "redact_update_rag_dirty"),
}


def test_every_redaction_place_has_its_golden_statements():
    def place(table, column):  # a table's first place by its name, another one by table.column
        return table if column == next(c for t, _, c, _ in REDACT_PLACES if t == table) else f"{table}.{column}"

    assert set(GOLDEN_REDACTIONS) == {place(table, column) for table, _, column, _ in REDACT_PLACES}
    for table, key, column, _ in REDACT_PLACES:
        candidates, update = GOLDEN_REDACTIONS[place(table, column)]
        assert sql.redact_candidates(table, key, column) == golden(candidates)
        assert sql.redact_update(table, key, column) == golden(update)


def script(conn, documents=((9, "Zorbalina's plans for the sprint", "Hyperborean soufflé"),)):
    conn.replies += [
        ("FROM EMPLOYEES WHERE EMPLOYEE_ID", Reply(rows=[("Zorbalina", "Quixotewick", "zq@example.com", "tg-7788")])),
        ("FROM COMMENTS WHERE AUTHOR_ID", Reply(rows=[(5, 11, "Flibbertigibbet incident")])),
        ("SELECT DOCUMENT_ID, TITLE, BODY", Reply(rows=list(documents))),
        ("FROM TASKS WHERE ASSIGNEE_ID", Reply(rows=[(12,), (11,)])),
        ("FROM TASKS WHERE REPORTER_ID", Reply(rows=[(11,), (30,)])),  # reported or resolved
        ("SELECT CONVERSATION_ID, TITLE", Reply(rows=[(4, "Zorbalina's sprint chat")])),
        ("m.ROLE = 'user'", Reply(rows=[(40, "Is the Quixotewick migration blocked?")])),
        ("SELECT COUNT(*) FROM MESSAGES", Reply(rows=[(2,)])),
    ]


def job_row(conn, step="delete", verdict=None, held=b"", outcome="{}"):
    report = ErasureReport(7, 1, (9,), (), None, (12, 11), (11, 12), 1, 2).to_json()
    conn.replies.append(("FROM ERASURE_JOBS WHERE EMPLOYEE_ID", Reply(rows=[(
        7, step, "delete", report, outcome, verdict, held or None, "2026-12-01 10:00:00", "2026-12-01 10:00:01")])))


def test_erase_deleting_documents_writes_the_job_row_and_the_deletes_in_one_transaction(fake_engine, conn):
    script(conn)
    job_row(conn, held=seal([], KEY))
    job = fake_engine.erase_employee(7, "delete", None, KEY)
    assert conn.sqls == [golden(n) for n in SELECTS + CONVERSATION_READS + [
        "erasure_insert", "erase_delete_conversations", "erase_delete_comments", "erase_delete_documents",
        "erase_unassign_tasks", "erase_clear_reporter", "erase_clear_resolver", "erase_delete_employee",
        "erasure_select"]]
    insert = conn.calls[len(SELECTS + CONVERSATION_READS)]
    namesakes = conn.calls[len(SELECTS + CONVERSATION_READS) - 1]
    assert namesakes.binds == {"employee_id": 7, "first_name": "Zorbalina", "last_name": "Quixotewick"}
    assert all(c.binds == {"employee_id": 7} for c in conn.calls if c not in (insert, namesakes))
    assert conn.events == ["commit"]
    report = ErasureReport.from_json(insert.binds["report"])
    assert report.documents_deleted == (9,) and report.documents_reassigned == ()
    assert report.tasks_unassigned == (12, 11) and report.tasks_reindexed == (11, 12, 30)
    assert report.tasks_cleared == (11, 30)
    assert report.conversations_deleted == 1 and report.messages_deleted == 2
    held = {s.label: s.value for s in unseal(insert.binds["held"])}  # bytes into the BLOB, the key first
    assert insert.binds["held"][:32] == KEY and insert.binds["documents"] == "delete"
    assert held["full name"] == "Zorbalina Quixotewick" and held["telegram id"] == "tg-7788"
    assert held["document #9 title"] == "Zorbalina's plans for the sprint"
    assert held["message #40 content"] == "Is the Quixotewick migration blocked?"
    assert held["comment #5 body"] == "Flibbertigibbet incident"  # 24 characters: just long enough to be hers
    # issue 34: no one else is called Zorbalina or Quixotewick, so each name alone is hers in a conversation
    lone = {s.label: s for s in unseal(insert.binds["held"]) if s.conversations_only}
    assert {k: v.value for k, v in lone.items()} == {"first name": "Zorbalina", "last name": "Quixotewick"}
    assert all(s.bounded for s in lone.values())
    assert b"Zorbalina" not in insert.binds["held"] and "Zorbalina" not in insert.binds["outcome"]
    assert job.employee_id == 7 and job.step == "delete"


def test_erase_reassigning_documents_updates_the_owner(fake_engine, conn):
    script(conn)
    fake_engine.erase_employee(7, "reassign", 8, KEY)
    insert = conn.calls[len(SELECTS + CONVERSATION_READS)]
    reassign = conn.calls[len(SELECTS + CONVERSATION_READS) + 3]  # after the job row, conversations and comments
    assert reassign.sql == golden("erase_reassign_documents")
    assert reassign.binds == {"employee_id": 7, "reassign_to": 8}
    report = ErasureReport.from_json(insert.binds["report"])
    assert report.documents_reassigned == (9,) and report.reassigned_to == 8
    assert not any(s.label.startswith("document") for s in unseal(insert.binds["held"]))  # they stay: not erased


def test_owned_documents_without_a_policy_change_nothing(fake_engine, conn):
    script(conn)
    with pytest.raises(OwnedDocumentsError):
        fake_engine.erase_employee(7, None, None, KEY)
    assert conn.sqls == [golden(n) for n in SELECTS]  # reads only, then rollback
    assert conn.events == ["rollback"]


def test_unknown_employee_is_none(fake_engine, conn):
    assert fake_engine.erase_employee(99, "delete", None, KEY) is None
    assert conn.sqls == [golden("erase_employee_row")]


def test_purge_syncs_waiting_for_a_running_sync_then_fully_optimizes_the_text_index(fake_engine, conn):
    steps = fake_engine.purge_indexes()
    assert conn.sqls == [golden("purge_sync_text_index"), golden("optimize_text_index")]
    # REVIEW-2 W7: unlike the worker's LOCK_NOWAIT sync, the purge must really sync: default LOCK_WAIT, bounded work.
    assert "LOCK_NOWAIT" not in conn.sqls[0]
    assert conn.calls[0].binds == {"idx_name": "RAG_CHUNK_TEXT_IDX", "maxtime_min": 10}
    assert conn.calls[1].binds == {"idx_name": "RAG_CHUNK_TEXT_IDX"}
    assert [s.ok for s in steps] == [True, True]
    conn.calls.clear()
    conn.replies.append(("OPTIMIZE_INDEX", Reply(error=ora_error(20000, "DRG-10502: index does not exist"))))
    steps = fake_engine.purge_indexes()
    assert [s.ok for s in steps] == [True, False] and "DRG-10502" in steps[1].detail


def test_the_purge_calls_are_bounded_by_a_call_timeout_above_the_sync_maxtime(fake_engine, conn, settings):
    """REVIEW-3 W3: LOCK_WAIT ignores maxtime while it waits for a running sync; the purge's connection carries a call
    timeout above maxtime, and a call cut by it (DPY-4024) is a failed, unproven step, not a connection held for ever."""
    from oracledb import errors as driver

    from app.engines.oracle.erasure import PURGE_CALL_TIMEOUT_MS, PURGE_SYNC_MAXTIME_MIN

    fake_engine.purge_indexes()
    assert [c.call_timeout for c in conn.calls] == [PURGE_CALL_TIMEOUT_MS] * 2
    assert PURGE_CALL_TIMEOUT_MS > PURGE_SYNC_MAXTIME_MIN * 60_000 > settings.oracle_call_timeout_ms
    fake_engine.erasure_job(7)  # the next holder of the pooled connection gets the service's bound again
    assert conn.calls[-1].call_timeout == settings.oracle_call_timeout_ms
    try:
        driver._raise_err(driver.ERR_CALL_TIMEOUT_EXCEEDED, timeout=PURGE_CALL_TIMEOUT_MS)
    except Exception as exc:  # oracledb.DatabaseError
        conn.replies.append(("SYNC_INDEX", Reply(error=exc)))
    steps = fake_engine.purge_indexes()
    assert [s.ok for s in steps] == [False, True] and "DPY-4024" in steps[0].detail


I_TABLE, G_TABLE = "DR$RAG_CHUNK_TEXT_IDX$I", "DR$RAG_CHUNK_TEXT_IDX$G"


def test_proof_searches_every_text_column_and_the_text_index_tokens_with_bound_values(fake_engine, conn):
    conn.replies += [("FROM USER_TABLES", Reply(rows=[(I_TABLE,)])),
                     ("FROM EMPLOYEES", Reply(rows=[(1, 0, 0, 0)])),  # a first name holds the pattern
                     ("FROM DR$", Reply(rows=[("ANA",)])),
                     ("CONTAINS(CONTENT, :tq)", Reply(rows=[(2,)]))]  # ...and her chunks hold the word
    lines = fake_engine.erasure_proof([PersonString("comment", "Ana_50%")])
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
    assert not by_place["project auto-summaries"].found
    index = by_place[f"Oracle Text index tables ({I_TABLE})"]
    assert not index.found and "1 of its 1 longest word(s) indexed, each from a live chunk" in index.detail


def test_a_token_no_live_chunk_holds_is_found_in_the_index_tables(fake_engine, conn):
    conn.replies += [("FROM USER_TABLES", Reply(rows=[(G_TABLE,), (I_TABLE,)])),
                     (lambda q: q.startswith(f"SELECT DISTINCT TOKEN_TEXT FROM {G_TABLE}"), Reply(rows=[])),
                     (lambda q: q.startswith(f"SELECT DISTINCT TOKEN_TEXT FROM {I_TABLE}"),
                      Reply(rows=[("FLIBBERTIGIBBET",), ("INCIDENT",)])),
                     ("CONTAINS(CONTENT, :tq)", Reply(rows=[(0,)])),  # FLIBBERTIGIBBET: a deleted row's token
                     ("CONTAINS(CONTENT, :tq)", Reply(rows=[(3,)]))]  # INCIDENT: other live chunks say it too
    [*_, index] = fake_engine.erasure_proof([PersonString("comment #5 body", "Flibbertigibbet incident")])
    token_lookups = [c for c in conn.calls if c.sql.startswith("SELECT DISTINCT TOKEN_TEXT")]
    assert [c.sql.split(" WHERE")[0].rsplit(" ", 1)[1] for c in token_lookups] == [G_TABLE, I_TABLE]
    assert [c.binds["tq"] for c in conn.calls if c.sql == golden("proof_contains")] == [
        "{FLIBBERTIGIBBET}", "{INCIDENT}"]
    assert index.found and index.detail == "1 of its 2 longest word(s) remain as tokens no live chunk holds"
    assert "Flibbertigibbet" not in index.detail.lower().title()  # the erased words are never printed


def test_without_the_token_table_the_index_is_not_proven(fake_engine, conn):
    [*_, index] = fake_engine.erasure_proof([PersonString("full name", "Zorbalina Quixotewick", bounded=True)])
    assert index.found and "not searched" in index.detail
    assert not any("TOKEN_TEXT" in q or "CONTAINS" in q for q in conn.sqls)


def test_a_text_too_long_to_bind_as_a_like_pattern_is_searched_by_its_pieces_only(fake_engine, conn):
    """REVIEW-2 W1: a 5,000-character comment bound whole into UPPER(col) LIKE UPPER(:pattern) travels as a LONG bind
    (ORA-01461, after the erasure has committed). Every pattern sent stays an ordinary VARCHAR2 bind."""
    from app.rag.erasure import pieces

    body = " ".join(f"Sentence {i} of the Snollygoster quarterly retrospective, written by Zorbalina." for i in range(70))
    assert len(body) > 5000
    texts = [PersonString("comment #5 body", body)] + [
        PersonString(f"comment #5 body (part {n})", piece) for n, piece in enumerate(pieces(body), 1)]
    lines = fake_engine.erasure_proof(texts)
    patterns = [c.binds["pattern"] for c in conn.calls if "pattern" in c.binds]
    assert patterns and max(len(p.encode()) for p in patterns) <= sql.PROOF_PATTERN_MAX_BYTES
    assert body not in "".join(patterns)
    whole = [line for line in lines if line.label == "comment #5 body" and line.where == "every text column"]
    assert len(whole) == 1 and not whole[0].found and "searched by its parts" in whole[0].detail
    assert {line.label for line in lines} >= {"comment #5 body (part 1)", "comment #5 body (part 70)"}


def test_the_proof_pattern_limit_counts_utf8_bytes_of_the_escaped_pattern():
    from app.engines.oracle.erasure import bindable_pattern

    # REVIEW-3 C1: a bind value under the maximum VARCHAR2 is legal however thin declares it: up to 3,900 bytes.
    assert sql.PROOF_PATTERN_MAX_BYTES == 3900
    assert bindable_pattern("a" * 3898) == "%" + "a" * 3898 + "%"  # 3,900 bytes: an ordinary bind
    assert bindable_pattern("a" * 3899) is None
    assert bindable_pattern("é" * 1949) is not None and bindable_pattern("é" * 1949 + "a") is None  # 3,900 / 3,901
    assert bindable_pattern("€" * 1299) is not None and bindable_pattern("€" * 1300) is None  # 3 bytes each
    assert bindable_pattern("%" * 1949) is not None and bindable_pattern("%" * 1950) is None  # escaping doubles it


def test_a_name_the_count_finds_is_judged_as_whole_words(fake_engine, conn):
    """"Ana Silva" is in "Ana Silvana" for LIKE; the values are read back and only whole words count."""
    conn.replies += [("COUNT(CASE WHEN UPPER(CONTENT)", Reply(rows=[(2,)])),
                     ("SELECT CONTENT FROM RAG_CHUNK", Reply(rows=[("Assignee: Ana Silvana",), ("Ana Silva, again",)]))]
    lines = fake_engine.erasure_proof([PersonString("full name", "Ana Silva", bounded=True)])
    values = [c for c in conn.calls if c.sql == golden("proof_values_rag_chunk_content")]
    assert len(values) == 1 and values[0].binds == {"pattern": "%Ana Silva%"}
    assert {line.where: line.detail for line in lines}["chunk table RAG_CHUNK"] == "RAG_CHUNK.CONTENT: 1 row(s)"


def test_redaction_reads_candidates_by_a_short_needle_and_updates_only_what_holds_a_copy(fake_engine, conn):
    name = PersonString("full name", "Ana Silva", bounded=True)
    text = PersonString("comment #1 body", "The export rounding is wrong again. " * 10)  # 360 characters
    conn.replies += [("SELECT MESSAGE_ID, CONTENT FROM MESSAGES", Reply(rows=[(5, "ask Ana Silva"), (6, "Ana Silvana")])),
                     ("SELECT CONVERSATION_ID, TITLE", Reply(rows=[(3, "Ana Silva " * 45)]))]
    done = fake_engine.redact_copies([name, text])
    assert conn.events == ["commit"]
    candidate_binds = [c.binds for c in conn.calls if c.sql.startswith("SELECT")]
    assert {"pattern": "%Ana Silva%"} in candidate_binds
    assert all(len(b["pattern"]) <= 162 for b in candidate_binds)  # a needle, never the whole 360 characters
    updates = [c for c in conn.calls if c.sql.startswith("UPDATE")]
    assert [u.sql for u in updates] == [golden("redact_update_messages"), golden("redact_update_conversations")]
    assert updates[0].binds == {"redacted": "ask [erased]", "row_id": 5}  # "Ana Silvana" left alone
    assert len(updates[1].binds["redacted"]) == 400  # cut to what TITLE (VARCHAR2(400 CHAR)) holds
    assert [(r.where, r.rows, r.copies) for r in done] == [
        ("MESSAGES.CONTENT", 1, 1), ("MESSAGES.TRACKER_QUERY", 0, 0), ("CONVERSATIONS.TITLE", 1, 45),
        ("PROJECTS.AUTO_SUMMARY", 0, 0), ("RAG_DIRTY.LAST_ERROR", 0, 0)]


def test_the_job_row_is_read_advanced_and_its_held_strings_dropped(fake_engine, conn):
    job_row(conn, step="compact", held=seal([PersonString("full name", "Ana Silva", True)], KEY))
    job = fake_engine.erasure_job(7)
    assert conn.calls[-1].sql == golden("erasure_select") and conn.calls[-1].binds == {"employee_id": 7}
    assert job.step == "compact" and unseal(job.held)[0].value == "Ana Silva"
    fake_engine.record_erasure_step(7, "prove", {"prove": {"bytes_left": 0}}, "proven")
    assert conn.calls[-1].sql == golden("erasure_record_step")
    assert conn.calls[-1].binds == {"step": "prove", "outcome": '{"prove": {"bytes_left": 0}}', "verdict": "proven",
                                    "employee_id": 7}
    (forgot,) = fake_engine.forget_held_strings(7, job.held)
    assert conn.calls[-1].sql == golden("erasure_forget") and conn.events[-2:] == ["commit", "commit"]
    # REVIEW-3 W6: an out-of-row LOB's old version is kept in its LOB segment (RETENTION), not in undo.
    assert "stays in the LOB segment" in forgot.detail and "stays in undo" not in forgot.detail
    conn.replies.append(("WHERE STEP <> 'forget'", Reply(rows=[])))
    assert fake_engine.unfinished_erasures() == [] and conn.calls[-1].sql == golden("erasure_unfinished")


def test_the_service_erases_drains_purges_and_fails_the_proof_when_a_chunk_still_holds_a_string(fake_engine, conn):
    conn.replies.append(("FROM ERASURE_JOBS WHERE EMPLOYEE_ID", Reply()))  # none yet: a new erasure
    script(conn, documents=())
    strings = [PersonString("full name", "Zorbalina Quixotewick", True)]
    job_row(conn, held=seal(strings, KEY), outcome=first_outcome(strings, []))
    drained = []
    conn.replies.append(("COUNT(CASE WHEN UPPER(CONTENT)", Reply(rows=[(1,)])))  # a stale chunk
    conn.replies.append(("SELECT CONTENT FROM RAG_CHUNK", Reply(rows=[("Assignee: Zorbalina Quixotewick",)])))
    job_row(conn, step="delete", verdict="not proven", held=seal(strings, KEY))  # read back at the end
    runs = iter([DrainResult(claimed=3), DrainResult()])  # the service drains until a run claims nothing
    result = erase_employee(fake_engine, 7, lambda: drained.append(1) or next(runs))
    assert drained == [1, 1] and conn.events[0] == "commit"
    last = [c for c in conn.calls if c.sql == golden("erasure_record_step")][-1]
    assert not result.ok and last.binds["verdict"] == "not proven"
    assert "still found in: chunk table RAG_CHUNK" in failures(json.loads(last.binds["outcome"]))[0]
    # the order: the job row and the deletes, then (after the drain) redaction, sync + optimize, then the proof
    sqls = conn.sqls
    assert sqls.index(golden("erasure_insert")) < sqls.index(golden("erase_delete_employee")) < sqls.index(
        golden("redact_candidates_messages")) < sqls.index(golden("optimize_text_index")) < sqls.index(
        golden("text_token_tables_present")) < sqls.index(golden("proof_count_employees"))
    recorded = [c.binds["step"] for c in conn.calls if c.sql == golden("erasure_record_step")]
    assert recorded == ["reindex", "redact", "purge", "compact", "delete"]  # a failed proof rewinds the job
    assert golden("erasure_forget") not in sqls  # the held strings stay until a proof passes


def test_the_service_refuses_owned_documents_naming_the_flags(fake_engine, conn):
    conn.replies.append(("FROM ERASURE_JOBS WHERE EMPLOYEE_ID", Reply()))
    script(conn)
    with pytest.raises(ErasureRefusedError, match="--delete-documents or --reassign-documents-to"):
        erase_employee(fake_engine, 7, lambda: DrainResult())
    assert conn.events == ["rollback"]


def test_a_name_another_employee_shares_is_not_redacted_alone(fake_engine, conn):
    """issue 34 beside issue 20: "Zorbalina" alone may be the other Zorbalina; "Quixotewick" is only hers."""
    script(conn)
    conn.replies.append(("UPPER(FIRST_NAME) IN", Reply(rows=[("ZORBALINA", "Other")])))
    fake_engine.erase_employee(7, "delete", None, KEY)
    insert = next(c for c in conn.calls if c.sql == golden("erasure_insert"))
    lone = [s.label for s in unseal(insert.binds["held"]) if s.conversations_only]
    assert lone == ["last name"]
    skipped = {x["label"]: x["reason"] for x in json.loads(insert.binds["outcome"])["not_searched"]}
    assert "another employee has the same name" in skipped["first name"]


def test_a_lone_name_is_redacted_and_proven_in_the_conversation_tables_only(fake_engine, conn):
    """issue 34: the manager's own question keeps no one's first name, and the proof scans messages and titles for
    it; the tracker's tables (a colleague's "ask Zqx"), the chunks and the text index are not its places."""
    lone = PersonString("first name", "Zqx", bounded=True, conversations_only=True)
    conn.replies += [("SELECT MESSAGE_ID, CONTENT FROM MESSAGES", Reply(rows=[(5, "what is Zqx working on?"),
                                                                           (6, "Zqxy's plan")])),
                     ("SELECT CONVERSATION_ID, TITLE", Reply(rows=[(3, "what is Zqx working on?")]))]
    done = fake_engine.redact_copies([lone])
    assert [c.sql for c in conn.calls if c.sql.startswith("SELECT")] == [
        golden("redact_candidates_messages"), golden("redact_candidates_messages_tracker_query"),
        golden("redact_candidates_conversations")]
    updates = [(c.sql, c.binds) for c in conn.calls if c.sql.startswith("UPDATE")]
    assert updates == [(golden("redact_update_messages"), {"redacted": "what is [erased] working on?", "row_id": 5}),
                       (golden("redact_update_conversations"), {"redacted": "what is [erased] working on?", "row_id": 3})]
    assert {r.where: r.copies for r in done} == {"MESSAGES.CONTENT": 1, "MESSAGES.TRACKER_QUERY": 0,
                                                 "CONVERSATIONS.TITLE": 1, "PROJECTS.AUTO_SUMMARY": 0,
                                                 "RAG_DIRTY.LAST_ERROR": 0}
    conn.calls.clear()
    conn.replies += [("FROM USER_TABLES", Reply(rows=[(I_TABLE,)])),
                     ("COUNT(CASE WHEN UPPER(CONTENT)", Reply(rows=[(1, 0, 0)])),
                     ("SELECT CONTENT FROM MESSAGES", Reply(rows=[("Zqx again",)]))]
    lines = fake_engine.erasure_proof([lone])
    assert [c.sql for c in conn.calls] == [golden("text_token_tables_present"), golden("proof_count_conversations"),
                                          golden("proof_count_messages"), golden("proof_values_messages_content")]
    assert [(line.where, line.found, line.detail) for line in lines] == [
        ("conversation tables", True, "MESSAGES.CONTENT: 1 row(s)")]


def test_a_name_in_a_stored_typed_query_is_redacted_as_json_and_dropped_when_it_would_not_fit(fake_engine, conn):
    """issue 34: MESSAGES.TRACKER_QUERY (V19) may hold a name as a text predicate's word: "[erased]" inside the JSON
    string keeps it valid; a query the marker would push past VARCHAR2(4000 BYTE) is dropped (NULL), never cut."""
    from app.domain import MAX_QUERY_BYTES

    lone = PersonString("first name", "Zqx", bounded=True, conversations_only=True)
    query = '{"where":[{"field":"text","values":["Zqx"]}],"returns":"list"}'
    head, tail = '{"where":[{"field":"text","values":["Zqx"]}],"pad":"', '"}'
    big = head + "x" * (MAX_QUERY_BYTES - 2 - len(head) - len(tail)) + tail  # 2 bytes to spare, "[erased]" needs 5
    assert len(big.encode()) == MAX_QUERY_BYTES - 2
    conn.replies.append(("SELECT MESSAGE_ID, TRACKER_QUERY FROM MESSAGES", Reply(rows=[(5, query), (6, big)])))
    fake_engine.redact_copies([lone])
    updates = [c for c in conn.calls if c.sql == golden("redact_update_messages_tracker_query")]
    assert [u.binds for u in updates] == [
        {"redacted": '{"where":[{"field":"text","values":["[erased]"]}],"returns":"list"}', "row_id": 5},
        {"redacted": None, "row_id": 6}]
    assert all(not u.inputsizes for u in updates)  # a VARCHAR2 column: no CLOB bind
