"""Every write of text into a CLOB column binds a long value as a temporary CLOB (REVIEW-2 U1, REVIEW-3 C1).

python-oracledb thin declares a str bind at 4 bytes per byte of its UTF-8 text; Oracle judges the value, so a str
under the maximum VARCHAR2 is a legal bind (REVIEW-3 C1), and a longer one must be a LOB. So
CRUD bodies and descriptions, messages and project summaries over ``records.LONG_BIND_BYTES`` go as
``DB_TYPE_CLOB`` (one rule: ``records.clob_input_sizes``), short ones stay plain str binds, and VARCHAR2 columns
are never touched. What the database does with them is the doctor's `clob returning` check.
"""

from __future__ import annotations

import datetime as dt

import oracledb
import pytest

from app.engines.oracle import conversation_statements as conversation_sql
from app.engines.oracle import record_statements as record_sql
from app.engines.oracle.records import LONG_BIND_BYTES, clob_input_sizes
from app.entities import COMMENTS, DOCUMENTS, TASKS

from .fakes import Reply

LONG = "é" * (LONG_BIND_BYTES // 2 + 1)  # just over the limit in UTF-8 bytes, fewer characters than bytes
SHORT = "é" * (LONG_BIND_BYTES // 2)  # exactly the limit: an ordinary bind


def test_the_guard_is_what_c1_allows_and_counts_multibyte_text_at_the_edge():
    """REVIEW-3 C1: Oracle judges a str bind by its value (ORA-01461: a value longer than the maximum VARCHAR2), so a
    text under 4,000 UTF-8 bytes binds as a str; 3,900 bytes stays one, 3,901 becomes a temporary CLOB."""
    from app.engines.oracle.records import LONG_RAW_BIND_BYTES, blob_input_sizes

    assert LONG_BIND_BYTES == 3900
    at_edge, past_edge = "é" * 1300 + "€" * 433 + "a", "é" * 1300 + "€" * 433 + "ab"  # 3,900 and 3,901 bytes
    assert (len(at_edge.encode()), len(past_edge.encode())) == (3900, 3901) and len(at_edge) < 2000
    assert clob_input_sizes({"body": at_edge}, ("body",)) == {}
    assert clob_input_sizes({"body": past_edge}, ("body",)) == {"body": oracledb.DB_TYPE_CLOB}
    # RAW holds 2,000 bytes in SQL on a STANDARD database: the BLOB guard keeps REVIEW-3 C8's 1,000 bytes.
    assert LONG_RAW_BIND_BYTES == 1000
    assert blob_input_sizes({"a": b"x" * 1000, "b": b"x" * 1001}, ("a", "b")) == {"b": oracledb.DB_TYPE_BLOB}


def test_the_rule_counts_utf8_bytes_and_touches_only_the_named_lob_binds():
    binds = {"content": LONG, "title": LONG, "short": "é" * 500, "none": None}  # 1,000 bytes: never expanded
    assert clob_input_sizes(binds, ("content", "short", "none", "absent")) == {"content": oracledb.DB_TYPE_CLOB}
    assert clob_input_sizes({"content": SHORT}, ("content",)) == {}
    assert clob_input_sizes({"content": "x" * 40_000}, ()) == {}


@pytest.mark.parametrize("entity, column", sorted(record_sql.LOB_COLUMNS))
def test_a_long_crud_value_for_a_clob_column_is_bound_as_a_clob_on_insert_and_update(fake_engine, conn, entity,
                                                                                      column):
    from app.entities import ENTITIES, MULTI_VALUED

    spec = next(e for e in ENTITIES.values() if e.table == entity)
    required = {"TASK_ID": 3, "AUTHOR_ID": 4, "NAME": "n", "TITLE": "t", "BODY": "b"}
    values = {c: v for c, v in required.items() if c in spec.columns}
    # A multi-valued column takes a list; its display text (", "-joined) is what goes into the CLOB.
    long_values = [f"{i:03d}" + "x" * 196 for i in range(200)] if column in MULTI_VALUED else None
    values[column] = long_values or "x" * 40_000
    conn.replies += [(f"INSERT INTO {entity}", Reply(out={"new_id": [9]})),
                     (f"FROM {entity} WHERE", Reply(rows=[(9,) + (None,) * (len(spec.all_columns) - 1)]))]
    fake_engine.create(spec, values)
    insert = conn.calls[0]
    assert insert.sql.endswith(f"RETURNING {spec.pk} INTO :new_id")
    bind = "v_" + column.lower()
    assert insert.inputsizes == {bind: oracledb.DB_TYPE_CLOB}  # the VARCHAR2 values stay plain binds
    conn.calls.clear()
    conn.replies += [(f"UPDATE {entity}", Reply(rowcount=1)),
                     (f"FROM {entity} WHERE", Reply(rows=[(9,) + (None,) * (len(spec.all_columns) - 1)]))]
    fake_engine.update(spec, 9, {column: long_values[1:] if long_values else "y" * 40_000})
    assert conn.calls[0].inputsizes == {bind: oracledb.DB_TYPE_CLOB}


def test_timestamp_and_clob_sizes_go_in_one_call(fake_engine, conn):
    """setinputsizes replaces the previous sizes: the CLOB body must not drop the TIMESTAMP of CREATED_AT."""
    conn.replies += [("INSERT INTO COMMENTS", Reply(out={"new_id": [5]})),
                     ("FROM COMMENTS WHERE", Reply(rows=[(5, 3, 4, "b", dt.datetime(2026, 1, 1))]))]
    fake_engine.create(COMMENTS, {"TASK_ID": 3, "AUTHOR_ID": 4, "BODY": LONG,
                                  "CREATED_AT": "2026-01-01T10:00:00.123456"})
    assert conn.calls[0].inputsizes == {"v_body": oracledb.DB_TYPE_CLOB, "v_created_at": oracledb.DB_TYPE_TIMESTAMP}


def test_short_values_and_varchar2_columns_send_no_input_sizes(fake_engine, conn):
    conn.replies += [("INSERT INTO TASKS", Reply(out={"new_id": [1]})),
                     ("FROM TASKS WHERE", Reply(rows=[(1,) + (None,) * 10]))]
    fake_engine.create(TASKS, {"TITLE": "t" * 900, "DESCRIPTION": SHORT})
    conn.replies += [("INSERT INTO DOCUMENTS", Reply(out={"new_id": [2]})),
                     ("FROM DOCUMENTS WHERE", Reply(rows=[(2,) + (None,) * 5]))]
    fake_engine.create(DOCUMENTS, {"TITLE": "t" * 999})  # a VARCHAR2 column: ORA-12899/01461 stay the 422 path
    assert [c.inputsizes for c in conn.calls if c.sql.startswith("INSERT")] == [{}, {}]


def test_a_long_message_is_bound_as_a_clob_and_a_short_one_is_not(fake_engine, conn):
    conn.replies += [("UPDATE CONVERSATIONS", Reply(rowcount=1)),
                     ("INSERT INTO MESSAGES", Reply(out={"new_id": [11]})),
                     ("INSERT INTO MESSAGES", Reply(out={"new_id": [12]})),
                     ("FROM MESSAGES WHERE MESSAGE_ID IN", Reply(rows=[(11, 5, "user", "q", "[]", None, None, None, None, None, None),
                                                                      (12, 5, "assistant", "a", "[]", None, None, None, None, None, None)]))]
    fake_engine.append_turn(5, "q", "a" * 40_000, [])
    user, answer = [c for c in conn.calls if c.sql.startswith("INSERT INTO MESSAGES")]
    assert user.inputsizes == {} and answer.inputsizes == {"content": oracledb.DB_TYPE_CLOB}
    assert answer.binds["content"] == "a" * 40_000  # python-oracledb makes the temporary LOB from the str


def test_a_long_answer_with_long_citations_and_retrieved_binds_the_clob_last(fake_engine, conn):
    """REVIEW-3 U1: CITATIONS and RETRIEVED pass 1,000 bytes (declared past 4,000 by thin) while CONTENT is a temporary
    CLOB; a bind of length potentially > 4000 bytes after a LOB bind is ORA-24816, so CONTENT is the last bind (the
    fake raises ORA-24816 for the other order: tests/oracle/fakes.py check_lob_binds_last)."""
    from app.domain import MAX_ID, MAX_RETRIEVED, TurnFacts

    from .fakes import check_lob_binds_last, placeholder_order

    facts = TurnFacts(focus="[TASK #3]", retrieved=tuple(("task", MAX_ID - i, 9) for i in range(MAX_RETRIEVED)))
    citations = [f"[TASK #{MAX_ID - i}]" for i in range(60)]
    conn.replies += [("UPDATE CONVERSATIONS", Reply(rowcount=1)),
                     ("INSERT INTO MESSAGES", Reply(out={"new_id": [11]})),
                     ("INSERT INTO MESSAGES", Reply(out={"new_id": [12]})),
                     ("FROM MESSAGES WHERE MESSAGE_ID IN", Reply(rows=[(11, 5, "user", "q", "[]", None, None, None, None, None, None),
                                                                      (12, 5, "assistant", "a", "[]", None, None, None, None, None, None)]))]
    fake_engine.append_turn(5, "q", "é" * 20_000, citations, facts=facts)
    answer = [c for c in conn.calls if c.sql.startswith("INSERT INTO MESSAGES")][1]
    assert answer.inputsizes == {"content": oracledb.DB_TYPE_CLOB}
    assert len(answer.binds["citations"].encode()) > 1000 and len(answer.binds["retrieved"].encode()) > 1000
    assert placeholder_order(conversation_sql.INSERT_MESSAGE)[-2:] == ["CONTENT", "NEW_ID"]  # NEW_ID: a NUMBER out bind
    old_order = conversation_sql.INSERT_MESSAGE.replace(
        "CITATIONS, FOCUS, RETRIEVED, RAG_SCOPE, LLM_ERROR, TRACKER_QUERY, CONTENT",
        "CONTENT, CITATIONS, FOCUS, RETRIEVED, RAG_SCOPE, LLM_ERROR, TRACKER_QUERY").replace(
        ":citations, :focus, :retrieved, :used_scope, :llm_error, :tracker_query, :content",
        ":content, :citations, :focus, :retrieved, :used_scope, :llm_error, :tracker_query")
    assert old_order != conversation_sql.INSERT_MESSAGE
    with pytest.raises(AssertionError, match="ORA-24816: :citations"):
        check_lob_binds_last(old_order, answer.binds, answer.inputsizes)


def test_a_second_lob_column_after_a_temporary_lob_is_a_lob_too_when_it_is_expanded(fake_engine, conn):
    """REVIEW-3 U1 with C1's 3,900-byte guard: ERASURE_JOBS.REPORT as a temporary CLOB followed by a 2,000-byte OUTCOME
    str would be the ORA-24816 order; once one LOB bind of a statement is a LOB, its other LOB binds declared past
    4,000 bytes are LOBs as well."""
    binds = {"report": "r" * 5000, "outcome": "o" * 2000, "short": "s" * 1000}
    assert clob_input_sizes(binds, ("report", "outcome", "short")) == {
        "report": oracledb.DB_TYPE_CLOB, "outcome": oracledb.DB_TYPE_CLOB}
    assert clob_input_sizes({"report": "r" * 3000, "outcome": "o" * 2000}, ("report", "outcome")) == {}


def test_crud_writes_put_the_clob_columns_last_whatever_order_they_come_in():
    """REVIEW-3 U1 for every entity, now and with columns added later: a CRUD value of up to 3,900 bytes binds as a
    str declared past 4,000 bytes, so no such bind may follow a CLOB column's temporary LOB."""
    from .fakes import placeholder_order

    insert = record_sql.crud_insert(TASKS, ["DESCRIPTION", "STATUS", "TITLE", "PRIORITY"])
    assert insert.startswith("INSERT INTO TASKS (STATUS, TITLE, PRIORITY, DESCRIPTION) VALUES")
    assert placeholder_order(insert) == ["V_STATUS", "V_TITLE", "V_PRIORITY", "V_DESCRIPTION", "NEW_ID"]
    update = record_sql.crud_update(DOCUMENTS, ["BODY", "TITLE", "DOC_TYPE"])
    assert update == "UPDATE DOCUMENTS SET TITLE = :v_title, DOC_TYPE = :v_doc_type, BODY = :v_body WHERE DOCUMENT_ID = :row_id"


def test_a_long_project_summary_is_bound_as_a_clob(fake_engine, conn):
    conn.replies.append(("UPDATE PROJECTS SET AUTO_SUMMARY", Reply(rowcount=1)))
    assert fake_engine.set_project_summary(3, "s" * 5000, "fp")
    assert conn.calls[0].inputsizes == {"summary": oracledb.DB_TYPE_CLOB}
    conn.calls.clear()
    conn.replies.append(("UPDATE PROJECTS SET AUTO_SUMMARY", Reply(rowcount=1)))
    fake_engine.set_project_summary(3, None, None)
    assert conn.calls[0].inputsizes == {}


def test_every_clob_column_of_the_ddl_has_its_writer_bind_it_through_the_rule():
    """A new CLOB column fails here until its writer binds through ``clob_input_sizes`` and is listed."""
    from .test_column_limits import COLUMNS

    clobs = {key for key, column in COLUMNS.items() if column.kind == "CLOB"}
    assert clobs == record_sql.LOB_COLUMNS | {("MESSAGES", "CONTENT"), ("PROJECTS", "AUTO_SUMMARY"),
                                              ("ERASURE_JOBS", "REPORT"), ("ERASURE_JOBS", "OUTCOME")}


def test_the_erasure_job_and_its_redactions_bind_long_texts_as_lobs(fake_engine, conn):
    """ERASURE_JOBS.REPORT/OUTCOME (CLOB) and HELD (BLOB), and a redacted MESSAGES.CONTENT or AUTO_SUMMARY."""
    from app.rag.erasure import PersonString

    conn.replies += [("FROM EMPLOYEES WHERE EMPLOYEE_ID", Reply(rows=[("Ana", "Ruiz", "ana@example.com", None)])),
                     ("FROM COMMENTS WHERE AUTHOR_ID",
                      Reply(rows=[(5, 11, " ".join(f"Sentence {n} of a long comment of hers." for n in range(60)))])),
                     ("SELECT COUNT(*) FROM MESSAGES", Reply(rows=[(0,)]))]
    fake_engine.erase_employee(7, "delete", None, bytes(32))
    [insert] = [c for c in conn.calls if c.sql.startswith("INSERT INTO ERASURE_JOBS")]
    # 61 searched strings make a long OUTCOME and HELD; the REPORT (ids and counts) stays a plain bind
    assert insert.inputsizes == {"outcome": oracledb.DB_TYPE_CLOB, "held": oracledb.DB_TYPE_BLOB}
    conn.calls.clear()
    fake_engine.record_erasure_step(7, "prove", {"prove": {"lines": ["x" * 4000]}}, "proven")
    assert conn.calls[0].inputsizes == {"outcome": oracledb.DB_TYPE_CLOB}
    conn.calls.clear()
    conn.replies += [("SELECT MESSAGE_ID, CONTENT FROM MESSAGES", Reply(rows=[(3, "Ana Ruiz said " + "é" * 1950)])),
                     ("SELECT CONVERSATION_ID, TITLE", Reply(rows=[(4, "Ana Ruiz " + "é" * 300)]))]
    fake_engine.redact_copies([PersonString("full name", "Ana Ruiz", bounded=True)])
    updates = {c.sql.split()[1]: c.inputsizes for c in conn.calls if c.sql.startswith("UPDATE")}
    assert updates == {"MESSAGES": {"redacted": oracledb.DB_TYPE_CLOB}, "CONVERSATIONS": {}}  # TITLE is a VARCHAR2
