"""The upsert form is chosen without the doctor (REVIEW-2 W4): `ragctl oracle bootstrap` probes both forms on a
rolled-back scratch chunk and stores the one that works, and the worker, on the first MERGE failure that is not
about the data, redoes the batch in two steps and stores that form in the batch's own transaction."""

from __future__ import annotations

import logging
from array import array

import pytest

from app.domain import ChunkWrite
from app.engines.base import EngineError, UnavailableError
from app.engines.oracle import upsert
from app.engines.oracle.engine import OracleEngine

from .fakes import FakeConnection, FakePool, Reply, dpy_error, golden, ora_error

MODEL = "ALL_MINILM_L12_V2"
REFUSED = ora_error(932, "inconsistent datatypes: expected - got -")  # VECTOR_EMBEDDING refused in a MERGE source


def vec():
    return array("f", [0.05] * 384)


def is_embed(sent):
    return sent.startswith(f"SELECT VECTOR_EMBEDDING({MODEL}")


def chunks():
    return [ChunkWrite("task", 11, ix, 7, 3, None, f"[TASK #11] text {ix}", f"hash{ix}") for ix in (0, 1)]


def write(fake_engine):
    with fake_engine.indexing() as tx:
        tx.write_chunks(chunks())


def test_a_refused_merge_form_is_redone_in_two_steps_and_the_form_stored_with_the_batch(fake_engine, conn, caplog):
    conn.replies += [(golden("upsert_chunk"), Reply(error=REFUSED)), (is_embed, Reply(rows=[(vec(),)])),
                     (is_embed, Reply(rows=[(vec(),)]))]
    with caplog.at_level(logging.WARNING):
        write(fake_engine)
    sent = conn.sqls
    merge = sent.index(golden("upsert_chunk"))
    assert sent[merge + 1:merge + 5] == [upsert_embed(), upsert_embed(), golden("upsert_chunk_bound"),
                                         golden("write_setting")]
    bound = conn.calls[merge + 3]
    assert [b["embedding"].typecode for b in bound.binds] == ["f", "f"]
    assert [b["embedding_model"] for b in bound.binds] == [MODEL, MODEL]
    assert conn.calls[merge + 4].binds == {"setting_key": "UPSERT_FORM", "setting_value": "two_step"}
    assert conn.events == ["commit"] and "retrying the batch in two steps" in caplog.text


def upsert_embed():
    from app.engines.oracle import search_statements as sql

    return sql.embed_query(MODEL)


@pytest.mark.parametrize("error", [
    ora_error(12899, 'value too large for column "APP"."RAG_CHUNK"."CONTENT"'),  # the data
    ora_error(51805, "Vector is not properly formatted"),
    ora_error(1400, "cannot insert NULL"),
])
def test_a_data_error_never_switches_the_form(fake_engine, conn, error):
    conn.replies.append((golden("upsert_chunk"), Reply(error=error)))
    with pytest.raises(type(error)):
        write(fake_engine)
    assert golden("upsert_chunk_bound") not in conn.sqls and golden("write_setting") not in conn.sqls
    assert conn.events == ["rollback"]


def test_a_not_now_fault_or_a_driver_error_never_switches_the_form(fake_engine, conn):
    conn.replies.append((golden("upsert_chunk"), Reply(error=ora_error(1653, "unable to extend table"))))
    with pytest.raises(UnavailableError):
        write(fake_engine)
    conn.replies.append((golden("upsert_chunk"), Reply(error=dpy_error(4011, "the database closed the connection"))))
    with pytest.raises(Exception, match="DPY-4011"):
        write(fake_engine)
    assert golden("upsert_chunk_bound") not in conn.sqls


def test_when_two_steps_fail_too_the_batch_fails_and_nothing_is_stored(fake_engine, conn):
    conn.replies += [(golden("upsert_chunk"), Reply(error=REFUSED)), (is_embed, Reply(rows=[(vec(),)])),
                     (is_embed, Reply(rows=[(vec(),)])),
                     (golden("upsert_chunk_bound"), Reply(error=ora_error(942, "table or view does not exist")))]
    with pytest.raises(Exception, match="ORA-00942"):
        write(fake_engine)
    assert golden("write_setting") not in conn.sqls and conn.events == ["rollback"]


def test_the_stored_two_step_form_is_not_retried_as_a_merge(fake_engine, conn):
    conn.replies += [(golden("read_setting"), Reply(rows=[("two_step",)])), (is_embed, Reply(rows=[(vec(),)])),
                     (is_embed, Reply(error=ora_error(932, "inconsistent datatypes")))]
    with pytest.raises(Exception, match="ORA-00932"):
        write(fake_engine)
    assert golden("upsert_chunk") not in conn.sqls


@pytest.mark.parametrize("error, refused", [
    (REFUSED, True), (ora_error(904, '"EMBEDDING": invalid identifier'), True), (ora_error(600, "internal"), True),
    (ora_error(40284, "model does not exist"), False), (ora_error(60, "deadlock detected"), False),
    (ora_error(1461, "can bind a LONG value only"), False), (dpy_error(4005, "pool"), False),
])
def test_which_errors_may_be_the_form_itself(error, refused):
    assert upsert.form_refused(error) is refused


# --- bootstrap ---------------------------------------------------------------------------------------

def test_bootstrap_probes_the_merge_form_rolls_it_back_and_stores_it(settings):
    conn = FakeConnection([(golden("doctor_scratch_chunks"), Reply(rows=[(0, vec()), (1, vec())]))])
    assert OracleEngine(FakePool(conn), settings).choose_upsert_form() == "upsert form merge_using"
    merge = conn.calls[0]
    assert merge.sql == golden("upsert_chunk") and merge.binds[0]["source_id"] == upsert.SCRATCH_SOURCE_ID
    assert [row["content"] for row in merge.binds] == [upsert.PROBE_CHUNK_TEXT, upsert.PROBE_MULTIBYTE_TEXT]
    assert conn.sqls[-1] == golden("write_setting")
    assert conn.calls[-1].binds == {"setting_key": "UPSERT_FORM", "setting_value": "merge_using"}
    assert conn.events == ["rollback", "commit"]  # the scratch chunk goes; only the choice is committed


def test_bootstrap_stores_the_two_step_form_when_the_merge_form_is_refused(settings):
    conn = FakeConnection([(golden("upsert_chunk"), Reply(error=REFUSED)), (is_embed, Reply(rows=[(vec(),)])),
                           (is_embed, Reply(rows=[(vec(),)])), (golden("doctor_scratch_chunks"), Reply(rows=[(0, vec()), (1, vec())]))])
    outcome = OracleEngine(FakePool(conn), settings).choose_upsert_form()
    assert outcome.startswith("upsert form two_step (the MERGE with VECTOR_EMBEDDING is refused: ORA-00932")
    assert conn.calls[-1].binds == {"setting_key": "UPSERT_FORM", "setting_value": "two_step"}


def test_bootstrap_fails_when_neither_form_works_and_stores_nothing(settings):
    conn = FakeConnection([(golden("upsert_chunk"), Reply(error=REFUSED)),
                           (golden("upsert_chunk_bound"), Reply(error=ora_error(51803, "dimension mismatch")))])
    with pytest.raises(EngineError, match="ragctl oracle doctor"):
        OracleEngine(FakePool(conn), settings).choose_upsert_form()
    assert golden("write_setting") not in conn.sqls and "commit" not in conn.events


def test_the_probe_chunks_are_as_long_as_real_chunks_get_one_in_multibyte_text():
    """REVIEW-3 U2: one probe row is exactly the chunker's bound, 4,000 UTF-8 bytes, in multi-byte text."""
    from app.rag.chunking import MAX_BYTES

    assert upsert.CHUNK_MAX_BYTES == MAX_BYTES == 4000  # RAG_CHUNK.CONTENT VARCHAR2(4000 BYTE)
    assert len(upsert.PROBE_MULTIBYTE_TEXT.encode()) == 4000 < len(upsert.PROBE_MULTIBYTE_TEXT) * 3 // 2
    assert 3000 < len(upsert.PROBE_CHUNK_TEXT.encode()) < 4000


def test_compose_serves_only_after_bootstrap_chose_the_form():
    from pathlib import Path

    compose = (Path(__file__).resolve().parents[2] / "compose.dev.yml").read_text()
    assert "ragctl oracle bootstrap && exec ragctl serve" in compose
