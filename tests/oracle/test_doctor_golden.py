"""`ragctl oracle doctor` against the recording fake: every check's SQL is the golden text, each fallback
is selected when the fake raises the error a real database would, and nothing is left committed but the
stored upsert form. (What a real database answers is the conformance suite's Oracle leg.)"""

from __future__ import annotations

from array import array
from types import SimpleNamespace

import pytest

from app.config import Settings
from app.domain import ChunkWrite
from app.engines.oracle import erasure_statements as erasure_sql
from app.engines.oracle import search_statements as search_sql
from app.engines.oracle import settings_statements as settings_sql
from app.engines.oracle.engine import OracleEngine
from app.rag.doctor import EXIT_FAILED, EXIT_NO_CONNECTION, EXIT_OK
from app.services import oracle_doctor

from .fakes import FakeConnection, FakePool, Reply, golden, ora_error

BATCH = 3
TOP_K = 4
MODEL = "ALL_MINILM_L12_V2"


def vec() -> array:
    return array("f", [0.05] * 384)


@pytest.fixture
def doctor_settings() -> Settings:
    return Settings(database_url="oracle://app:apppw@localhost:1521/FREEPDB1", batch_size=BATCH, top_k=TOP_K)


def is_sql(name: str):
    text = golden(name)
    return lambda sent: sent == text


def is_embed(sent: str) -> bool:
    return sent == search_sql.embed_query(MODEL)


I_TABLE = "DR$RAG_CHUNK_TEXT_IDX$I"
NO_ROW = Reply(rows=[])
# The trigger check's scratch ids: project, owner, other employee, sprint, task, task in the sprint.
PROJECT, OWNER, OTHER, SPRINT, TASK, SPRINT_TASK = 101, 201, 202, 151, 301, 302
PROBE_DOC, DECOY_DOC = 402, 403  # the clob like check's documents
ASKER, CONVERSATION, MESSAGE = 203, 501, 601  # the message clob check's scratch rows


def message_row(**changed):
    """The message the message clob check stored, as GET_TURN reads it back."""
    from app.services.oracle_doctor_checks import CLOB_PROBE_TEXT, _json_of_at_least

    row = {"content": CLOB_PROBE_TEXT, "citations": _json_of_at_least(3000, lambda i: f"[TASK #{10**12 + i}]"),
           "retrieved": _json_of_at_least(3000, lambda i: ["task", 10**12 + i, 0]), **changed}
    return (MESSAGE, CONVERSATION, "assistant", row["content"], row["citations"], None, None, row["retrieved"], None,
            None)
# RAG_DIRTY counts the trigger steps read, in order: task update (before, after), comment insert, project rename
# (project, task; then both again), employee delete, sprint delete (its task), project delete, task delete (DELETE).
DIRTY_COUNTS = (1, 2, 2, 3, 1, 3, 2, 4, 4, 5, 1, 2, 5, 6, 1)
# (owner, project, sprint) of a scratch chunk, or gone, in the order the trigger steps read them.
CHUNK_STATES = ((OTHER, PROJECT, None),  # reassignment: the task's chunk
                (None, PROJECT, None),  # employee delete: the task's chunk lost its owner
                None, (None, PROJECT, None),  # sprint delete: the sprint's chunk, the sprint task's chunk
                None, (None, None, None), (None, None, None),  # project delete: its chunk, both tasks' chunks
                None)  # task delete: its chunk


# REVIEW-4 §4.1: the V16 trigger steps' RAG_DIRTY counts (links insert: both tasks before and after; retarget, then
# delete; the employee rename; the task delete's linking task), and the links they read.
LINK_A, LINK_B, LINK_C = 701, 702, 703
V16_DIRTY_COUNTS = (1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 2, 3)
V16_LINKS = ([(LINK_A, TASK, SPRINT_TASK), (LINK_B, SPRINT_TASK, TASK)],
             [(LINK_A, TASK, SPRINT_TASK), (LINK_B, SPRINT_TASK, TASK), (LINK_C, TASK, None)],
             [(LINK_B, SPRINT_TASK, None)])  # after the task delete: its links CASCADE, the link to it SET NULL


def review4_replies() -> list:
    """The main connection's answers to REVIEW-4 §4's steps, after the trigger check's."""
    from app.engines.oracle.doctor_statements import V16_CONSTRAINTS

    return [
        *[("INTO :new_id", Reply(out={"new_id": [i]})) for i in (PROJECT, OWNER, OTHER, SPRINT, TASK, SPRINT_TASK)],
        *[(is_sql("doctor_dirty_count"), Reply(rows=[(n,)])) for n in V16_DIRTY_COUNTS[:4]],
        (is_sql("doctor_links"), Reply(rows=V16_LINKS[0])),
        *[(is_sql("doctor_dirty_count"), Reply(rows=[(n,)])) for n in V16_DIRTY_COUNTS[4:6]],
        (is_sql("doctor_links"), Reply(rows=V16_LINKS[1])),
        *[(is_sql("doctor_dirty_count"), Reply(rows=[(n,)])) for n in V16_DIRTY_COUNTS[6:10]],
        (is_sql("doctor_dirty_count"), Reply(rows=[(V16_DIRTY_COUNTS[10],)])),
        (is_sql("doctor_links"), Reply(rows=V16_LINKS[2])),
        (is_sql("doctor_dirty_count"), Reply(rows=[(V16_DIRTY_COUNTS[11],)])),
        (is_sql("doctor_v16_constraints"), Reply(rows=[(n, "ENABLED", "VALIDATED") for n in sorted(V16_CONSTRAINTS)])),
        (is_sql("read_sync_cursor"), Reply(rows=[("doctor probe cursor (again)",)])),
        (is_sql("doctor_developer"), Reply(rows=[(7,)])),
        (is_sql("text_statistics_manager"), Reply(rows=[(100, 20.0)])),
        (is_sql("doctor_plan"), Reply(rows=[("|   1 |  SORT AGGREGATE |",),
                                            ("|   2 |   INDEX FAST FULL SCAN| RAG_CHUNK_STATS_IDX |",)])),
        (is_sql("text_statistics_developer"), Reply(rows=[(60, 21.0)])),
        (is_sql("doctor_plan"), Reply(rows=[("|   2 |   INDEX FAST FULL SCAN| RAG_CHUNK_STATS_IDX |",)])),
        (is_sql("doctor_top_token"), Reply(rows=[("LOGIN",)])),
        (is_sql("text_term_rows_developer"), Reply(rows=[(12,)])),
    ]


def timing_out() -> FakeConnection:
    """The call-timeout probe's own connection: the 2 s sleep is cut (DPY-4024), then the connection answers."""
    from oracledb import errors as driver

    try:
        driver._raise_err(driver.ERR_CALL_TIMEOUT_EXCEEDED, timeout=500)
    except Exception as exc:  # oracledb.DatabaseError, code 0, DPY-4024
        cut = exc
    return FakeConnection([(is_sql("doctor_sleep"), Reply(error=cut)), (is_sql("doctor_dual"), Reply(rows=[(1,)]))])


def healthy() -> tuple[FakeConnection, list[FakeConnection]]:
    """A main connection scripted as a healthy 26ai answers, and the claim check's three connections."""
    from app.services.oracle_doctor_checks import CLOB_EDGE_TEXT, CLOB_PROBE_TEXT

    main = FakeConnection([
        (is_sql("doctor_embedding_column"), Reply(description=[SimpleNamespace(vector_dimensions=384)])),
        ("USER_MINING_MODELS", Reply(rows=[(1,)])),
        (is_embed, Reply(rows=[(vec(),)])),  # the probe question
        (is_embed, Reply(rows=[(vec(),)])),  # a chunk-sized input
        (is_sql("read_model_mark"), Reply(rows=[(MODEL, None, 1)])),
        (is_sql("vector_index_info"), Reply(rows=[("VECTOR", "NEIGHBOR_PARTITIONS_IVF", "VALID")])),
        (is_sql("text_index_info"), Reply(rows=[("DOMAIN", "VALID", "VALID", "VALID")])),
        (is_sql("doctor_scratch_chunks"), Reply(rows=[(0, vec()), (1, vec())])),
        (is_sql("claimable_count"), Reply(rows=[(0,)])),  # nothing claimable: the claim check runs
        (is_sql("doctor_scratch_dirty"), Reply(rows=[(i,) for i in range(1, 2 * BATCH + 1)])),
        (is_sql("doctor_developer"), Reply(rows=[(7,)])),
        ("FETCH APPROX", Reply(rows=[("task", i, 0, "x", 0.1) for i in range(TOP_K)])),
        (is_sql("doctor_plan"), Reply(rows=[("|  VECTOR$RAG_CHUNK$73521_73530_0$IVF_FLAT_CENTROIDS |",)])),
        (is_sql("index_accuracy"), Reply(out={"report": "Accuracy achieved (100%) is 10% higher"})),
        (is_sql("text_token_tables_present"), Reply(rows=[(I_TABLE,)])),
        (is_sql("doctor_token_case"), Reply(rows=[(120, 0)])),
        ("INTO :new_id", Reply(out={"new_id": [401]})),  # the 40 KB document
        ("FROM DOCUMENTS WHERE", Reply(rows=[(401, "doctor probe document", CLOB_PROBE_TEXT, None, None, None)])),
        ("INTO :new_id", Reply(out={"new_id": [404]})),  # the 3,900-byte document (REVIEW-3 C1)
        ("FROM DOCUMENTS WHERE", Reply(rows=[(404, "doctor probe document", CLOB_EDGE_TEXT, None, None, None)])),
        *[("INTO :new_id", Reply(out={"new_id": [i]})) for i in (PROBE_DOC, DECOY_DOC)],  # the LIKE check's pair
        (is_sql("doctor_clob_like_count"), Reply(rows=[(1,)])),
        (is_sql("doctor_clob_like_values"), Reply(rows=[("… doctor_probe marker ångström",)])),
        (is_sql("doctor_clob_like_candidates"), Reply(rows=[(PROBE_DOC, "… doctor_probe marker ångström")])),
        (is_sql("doctor_clob_like_count"), Reply(rows=[(1,)])),  # the 3,900-byte pattern
        *[("INTO :new_id", Reply(out={"new_id": [i]})) for i in (ASKER, CONVERSATION, MESSAGE)],  # message clob
        (is_sql("get_turn"), Reply(rows=[message_row()])),
        *[("INTO :new_id", Reply(out={"new_id": [i]})) for i in (PROJECT, OWNER, OTHER, SPRINT, TASK, SPRINT_TASK)],
        *[(is_sql("doctor_dirty_count"), Reply(rows=[(n,)])) for n in DIRTY_COUNTS],
        *[(is_sql("doctor_chunk_state"), Reply(rows=[state] if state else [])) for state in CHUNK_STATES],
        *review4_replies(),
    ])
    claim = [("task", 0, "UPSERT", 0)]
    hide = {"hidden": frozenset({settings_sql.READ_MODEL_MARK})}  # each worker's claim reads the mark first
    first = FakeConnection([("FOR UPDATE SKIP LOCKED", Reply(rows=[(i, *claim[0]) for i in range(1, BATCH + 1)]))],
                           **hide)
    second = FakeConnection([("FOR UPDATE SKIP LOCKED",
                              Reply(rows=[(i, *claim[0]) for i in range(BATCH + 1, 2 * BATCH + 1)]))], **hide)
    counter = FakeConnection([
        (is_sql("doctor_unlocked_scratch"), Reply(rows=[(i,) for i in range(BATCH + 1, 2 * BATCH + 1)])),
        (is_sql("doctor_unlocked_scratch"), Reply(rows=[])),
    ])
    return main, [first, second, counter, timing_out()]


def run(settings, main, extra):
    conns = iter([main, *extra])
    return oracle_doctor.run(settings, connect=lambda: next(conns))


def by_name(results):
    return {r.name: r for r in results}


def test_a_healthy_database_passes_every_check_and_each_statement_is_the_golden_text(doctor_settings):
    main, extra = healthy()
    results, code = run(doctor_settings, main, extra)
    assert code == EXIT_OK, [r for r in results if r.status != "PASS"]
    assert [r.status for r in results] == ["PASS"] * len(results), [r for r in results if r.status != "PASS"]
    assert [r.name for r in results] == [
        "version", "embedding column", "model", "model mark", "ivf index", "oracle text", "upsert",
        "claim (2 workers)", "ivf plan", "filtered approx", "index accuracy", "lexical reserved words", "text sync",
        "text optimize", "text tokens", "text token case", "clob returning", "clob like", "message clob", "trigger task update",
        "trigger comment insert",
        "trigger project rename", "access reassignment", "access cascade delete", "access sprint delete",
        "access project delete", "access task delete",
        "trigger links insert", "trigger links retarget", "trigger employee rename", "trigger links task delete",
        "v16 constraints", "sync cursor", "text arm cost", "driver version", "call timeout"]
    assert all(r.proves.startswith("FACTS.md §") for r in results)
    sent = main.sqls
    for name in ("doctor_embedding_column", "model_exists", "read_model_mark", "vector_index_info", "text_index_info",
                 "upsert_chunk", "doctor_scratch_chunks", "write_setting", "doctor_delete_scratch_dirty",
                 "claimable_count", "enqueue", "doctor_scratch_dirty", "doctor_developer",
                 "doctor_vector_search_developer", "doctor_plan", "text_search_manager_unscoped", "index_accuracy",
                 "sync_text_index", "doctor_optimize_text_index", "text_token_tables_present",
                 "doctor_insert_project", "doctor_insert_employee", "doctor_insert_sprint", "doctor_insert_task",
                 "doctor_insert_chunk", "doctor_update_task", "doctor_insert_comment", "doctor_rename_project",
                 "doctor_reassign_task", "erase_delete_employee", "doctor_dirty_count", "doctor_chunk_state",
                 "doctor_clob_like_count", "doctor_clob_like_values", "doctor_clob_like_candidates",
                 "insert_conversation", "insert_message", "get_turn", "doctor_token_case"):
        assert golden(name) in sent, name
    # DISPLAY_CURSOR shows the session's last cursor: it must come right after the filtered APPROX query.
    approx = sent.index(golden("doctor_vector_search_developer"))
    assert sent[approx + 1] == golden("doctor_plan")
    assert main.calls[approx].binds["caller_id"] == 7 and main.calls[approx].binds["k"] == TOP_K
    # The lexical query's reserved words reach Oracle Text as quoted terms only.
    text = next(c for c in main.calls if "CONTAINS(CONTENT, :tq, 1)" in c.sql)
    assert text.binds["tq"].startswith("{NEAR} ACCUM {ACCUM} ACCUM {WITHIN}") and '"' not in text.binds["tq"]


def test_the_model_check_embeds_the_longest_chunk_and_the_upsert_probe_binds_two_rows_like_a_batch(doctor_settings):
    """REVIEW-3 U2: the worker sends many rows of up to 4,000 multi-byte bytes (thin declares each :content at 4x);
    the probe binds two rows in one executemany, one of exactly 4,000 UTF-8 bytes of multi-byte text, and both must
    come back with a vector. The model check embeds that longest chunk too."""
    from app.engines.oracle import upsert

    main, extra = healthy()
    run(doctor_settings, main, extra)
    embeds = [c.binds["q"] for c in main.calls if is_embed(c.sql)]
    assert len(embeds) == 2 and embeds[1] == upsert.PROBE_MULTIBYTE_TEXT
    merge = next(c for c in main.calls if c.sql == golden("upsert_chunk"))
    contents = [row["content"] for row in merge.binds]
    assert merge.kind == "executemany" and [row["chunk_ix"] for row in merge.binds] == [0, 1]
    assert len(contents[1].encode("utf-8")) == 4000 and len(contents[1]) < 3000  # multi-byte, the chunker's maximum
    assert len(contents[0].encode("utf-8")) > 3000 and all(r["embedding_model"] == MODEL for r in merge.binds)


def test_a_probe_row_that_comes_back_without_its_vector_refuses_the_form(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_scratch_chunks"), Reply(rows=[(0, vec())])))  # the 4,000-byte row is lost
    main.replies.insert(3, (is_embed, Reply(rows=[(vec(),)])))  # the two-step probe embeds its two rows
    main.replies.insert(3, (is_embed, Reply(rows=[(vec(),)])))
    results, _ = run(doctor_settings, main, extra)
    upsert = by_name(results)["upsert"]
    assert upsert.status == "WARN" and "scratch chunk(s) [1] of 2" in upsert.error


def test_the_merge_form_is_stored_and_every_write_is_rolled_back_or_cleaned_up(doctor_settings):
    main, extra = healthy()
    run(doctor_settings, main, extra)
    store = next(c for c in main.calls if c.sql == golden("write_setting"))
    assert store.binds == {"setting_key": "UPSERT_FORM", "setting_value": "merge_using"}
    merge = next(c for c in main.calls if c.sql == golden("upsert_chunk"))
    assert merge.kind == "executemany" and merge.binds[0]["source_id"] < 0  # a scratch key
    # The scratch queue rows: committed for the other connections, deleted and committed again after.
    deletes = [i for i, c in enumerate(main.calls) if c.sql == golden("doctor_delete_scratch_dirty")]
    enqueue = next(i for i, c in enumerate(main.calls) if c.sql == golden("enqueue"))
    assert deletes[0] < enqueue < deletes[1]
    assert all(row["source_id"] < 0 for row in main.calls[enqueue].binds)
    # The upsert form, the claim's scratch rows in, and out; the Text optimize commits implicitly on its own.
    assert main.events.count("commit") == 3 and main.events[-1] == "close"
    assert main.events[-2] == "rollback"  # the triggers' scratch rows
    for conn in extra:
        assert conn.events[-2:] == ["rollback", "close"]


def test_claims_set_the_batch_as_prefetch_and_arraysize_and_are_judged_disjoint(doctor_settings):
    main, extra = healthy()
    results, _ = run(doctor_settings, main, extra)
    first, second, counter, _ = extra
    for conn in (first, second):
        (claim,) = conn.calls  # after the (unrecorded) read of the model mark
        assert claim.sql == golden("claim") and (claim.prefetchrows, claim.arraysize) == (BATCH, BATCH)
    assert counter.sqls == [golden("doctor_unlocked_scratch")] * 2 and counter.events[:2] == ["rollback"] * 2
    assert by_name(results)["claim (2 workers)"].detail.startswith(
        f"batch {BATCH}: worker A claimed {BATCH} (locked {BATCH} scratch rows), worker B claimed {BATCH} (locked {BATCH})")


def test_a_refused_merge_selects_and_stores_the_two_step_form(doctor_settings):
    main, extra = healthy()
    refused = ora_error(932, "inconsistent datatypes: expected - got -")  # VECTOR_EMBEDDING refused in a MERGE
    main.replies.insert(0, (is_sql("upsert_chunk"), Reply(error=refused)))
    main.replies.insert(3, (is_embed, Reply(rows=[(vec(),)])))  # the two-step probe embeds its two chunks first
    main.replies.insert(3, (is_embed, Reply(rows=[(vec(),)])))
    results, code = run(doctor_settings, main, extra)
    upsert = by_name(results)["upsert"]
    assert code == EXIT_OK and upsert.status == "WARN" and upsert.error.startswith("ORA-00932")
    assert upsert.fallback.startswith("two-step") and "stored two_step" in upsert.detail
    bound = next(c for c in main.calls if c.sql == golden("upsert_chunk_bound"))
    assert bound.binds[0]["embedding"].typecode == "f" and "embedding" in bound.inputsizes
    store = next(c for c in main.calls if c.sql == golden("write_setting"))
    assert store.binds["setting_value"] == "two_step"


def test_both_upsert_forms_failing_is_a_needed_failure_and_nothing_is_stored(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("upsert_chunk"), Reply(error=ora_error(932, "inconsistent datatypes"))))
    main.replies.insert(0, (is_sql("upsert_chunk_bound"), Reply(error=ora_error(51803, "dimension mismatch"))))
    main.replies.insert(3, (is_embed, Reply(rows=[(vec(),)])))
    main.replies.insert(3, (is_embed, Reply(rows=[(vec(),)])))
    results, code = run(doctor_settings, main, extra)
    upsert = by_name(results)["upsert"]
    assert code == EXIT_FAILED and upsert.status == "FAIL" and "ORA-51803" in upsert.detail
    assert golden("write_setting") not in main.sqls


def test_the_worker_uses_the_stored_two_step_form_without_probing(fake_engine, conn):
    conn.replies += [(is_sql("read_setting"), Reply(rows=[("two_step",)])),
                     (is_embed, Reply(rows=[(vec(),)])), (is_embed, Reply(rows=[(vec(),)]))]
    chunks = [ChunkWrite("task", 11, ix, 7, 3, None, f"[TASK #11] text {ix}", f"hash{ix}") for ix in (0, 1)]
    with fake_engine.indexing() as tx:
        tx.write_chunks(chunks)
    sent = conn.sqls[2:]  # after locking and re-reading task 11 (the stale-write guard)
    assert sent[:4] == [golden("read_setting"), search_sql.embed_query(MODEL), search_sql.embed_query(MODEL),
                        golden("upsert_chunk_bound")]
    assert [c.binds for c in conn.calls[3:5]] == [{"q": "[TASK #11] text 0"}, {"q": "[TASK #11] text 1"}]
    merge = conn.calls[5]
    assert [b["embedding"].typecode for b in merge.binds] == ["f", "f"]
    assert set(merge.inputsizes) == {"owner_employee_id", "project_id", "sprint_id", "embedding"}


def test_before_v12_the_worker_keeps_the_merge_form(conn, settings):
    conn.replies.append((is_sql("read_setting"), Reply(error=ora_error(942, "table or view does not exist"))))
    engine = OracleEngine(FakePool(conn), settings)
    with engine.indexing() as tx:
        tx.write_chunks([ChunkWrite("task", 11, 0, None, 3, None, "[TASK #11] t", "h")])
    assert golden("upsert_chunk") in conn.sqls and golden("upsert_chunk_bound") not in conn.sqls


def test_a_short_filtered_approx_selects_the_exact_fallback_and_an_unreadable_plan_warns(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, ("FETCH APPROX", Reply(rows=[("task", 1, 0, "x", 0.1)])))
    main.replies.insert(0, (is_sql("doctor_plan"), Reply(error=ora_error(942, "table or view does not exist"))))
    main.replies.append(("FETCH EXACT", Reply(rows=[("task", i, 0, "x", 0.1) for i in range(3)])))
    results, code = run(doctor_settings, main, extra)
    found = by_name(results)
    assert code == EXIT_OK
    assert found["filtered approx"].status == "WARN" and found["filtered approx"].fallback.startswith("FETCH EXACT")
    assert "FETCH APPROX returned 1/4, FETCH EXACT 3" in found["filtered approx"].detail
    assert found["ivf plan"].status == "WARN" and found["ivf plan"].error.startswith("ORA-00942")
    assert golden("doctor_vector_search_developer_exact") in main.sqls


@pytest.mark.parametrize("line", ["User has no SELECT privilege on V$SESSION",
                                  "SQL_ID: 9babjv8yq8ru3, child number: 0 cannot be found"])
def test_a_plan_display_cursor_cannot_read_is_not_mistaken_for_an_exact_scan(doctor_settings, line):
    """REVIEW-2 W2: without the V$ grants DISPLAY_CURSOR answers with rows saying so instead of raising; that is
    'plan not readable' (with the grants to give), not 'the IVF index is not used'."""
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_plan"), Reply(rows=[(line,)])))
    results, code = run(doctor_settings, main, extra)
    plan = by_name(results)["ivf plan"]
    assert code == EXIT_OK and plan.status == "WARN" and plan.detail.startswith("plan not readable")
    assert "V_$SESSION" in plan.detail and "exact scans" not in plan.detail


def test_a_plan_without_the_ivf_index_is_a_warning(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_plan"), Reply(rows=[("|  TABLE ACCESS FULL | RAG_CHUNK |",)])))
    results, code = run(doctor_settings, main, extra)
    assert code == EXIT_OK and by_name(results)["ivf plan"].status == "WARN"


def test_a_refused_accuracy_call_is_reported_but_does_not_fail_the_run(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("index_accuracy"), Reply(error=ora_error(6550, "PLS-00306"))))
    results, code = run(doctor_settings, main, extra)
    accuracy = by_name(results)["index accuracy"]
    assert code == EXIT_OK and accuracy.status == "FAIL" and accuracy.error.startswith("ORA-06550")


def test_a_refused_text_sync_warns_and_a_failing_lexical_query_fails(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, ("CTX_DDL.SYNC_INDEX", Reply(error=ora_error(20000, "Oracle Text error"))))
    main.replies.insert(0, ("CONTAINS(CONTENT", Reply(error=ora_error(29902, "error in executing ODCIIndexStart"))))
    results, code = run(doctor_settings, main, extra)
    found = by_name(results)
    assert found["text sync"].status == "WARN" and found["text sync"].fallback.startswith("automatic maintenance")
    assert found["lexical reserved words"].status == "FAIL" and code == EXIT_FAILED


def test_a_cascade_that_hits_the_mutating_table_error_fails_and_is_rolled_back(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("erase_delete_employee"),
                            Reply(error=ora_error(4091, "table APP.TASKS is mutating, trigger/function may not see it"))))
    results, code = run(doctor_settings, main, extra)
    cascade = by_name(results)["access cascade delete"]
    assert code == EXIT_FAILED and cascade.status == "FAIL" and cascade.error.startswith("ORA-04091")
    assert main.events[-2:] == ["rollback", "close"]


def test_a_trigger_that_queues_nothing_fails(doctor_settings):
    main, extra = healthy()
    counts = [i for i, (match, _) in enumerate(main.replies) if match is not None and not isinstance(match, str)
              and match(golden("doctor_dirty_count"))]
    main.replies[counts[1]] = (main.replies[counts[1]][0], Reply(rows=[(1,)]))  # no new row after the task update
    results, code = run(doctor_settings, main, extra)
    assert by_name(results)["trigger task update"].status == "FAIL" and code == EXIT_FAILED


def test_no_model_fails_and_skips_what_needs_its_vector(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, ("USER_MINING_MODELS", Reply(rows=[(0,)])))
    results, code = run(doctor_settings, main, extra)
    found = by_name(results)
    assert code == EXIT_FAILED and "ragctl oracle bootstrap" in found["model"].detail
    assert found["ivf plan"].status == "SKIP" and found["index accuracy"].status == "SKIP"


def test_an_old_database_fails_the_version_check(doctor_settings):
    main, extra = healthy()
    main.version = "19.24.0.0.0"
    results, code = run(doctor_settings, main, extra)
    assert code == EXIT_FAILED and by_name(results)["version"].status == "FAIL"


def test_no_connection_is_exit_status_2(doctor_settings):
    def refuse():
        raise ora_error(12541, "TNS:no listener")

    results, code = oracle_doctor.run(doctor_settings, connect=refuse)
    assert code == EXIT_NO_CONNECTION and [r.name for r in results] == ["connect"]
    assert results[0].error.startswith("ORA-12541")


def test_a_busy_queue_skips_the_claim_check_without_touching_real_rows_and_strict_fails_on_it(doctor_settings):
    """Claims take the oldest claimable rows first: with such rows queued (or live workers) the doctor would lock
    production rows and count wrongly, so it says to drain first and enqueues nothing. The claim is needed, so the
    skip leaves it unproven: `--strict` (make test-oracle) exits 1 (REVIEW-2 W6)."""
    main, extra = healthy()
    main.replies.insert(0, (is_sql("claimable_count"), Reply(rows=[(12,)])))
    results, code = run(doctor_settings, main, extra)
    claim = by_name(results)["claim (2 workers)"]
    assert claim.status == "SKIP" and claim.needed and "holds 12 claimable row(s)" in claim.detail and code == EXIT_OK
    assert golden("enqueue") not in main.sqls and not any("FOR UPDATE" in q for c in extra for q in c.sqls)
    assert main.calls[[c.sql for c in main.calls].index(golden("claimable_count"))].binds == {"max_attempts": 5}
    main, extra = healthy()
    main.replies.insert(0, (is_sql("claimable_count"), Reply(rows=[(12,)])))
    _, strict = oracle_doctor.run(doctor_settings, connect=lambda c=iter([main, *extra]): next(c), strict=True)
    assert strict == EXIT_FAILED


def test_stuck_and_backed_off_rows_do_not_skip_the_claim_check(doctor_settings):
    """Only claimable rows are counted (the CLAIM subquery's own predicate): stuck rows and rows waiting out their
    backoff are outside every claim window, so the check runs with them queued."""
    text = golden("claimable_count")
    assert "ATTEMPTS < :max_attempts" in text and "NEXT_ATTEMPT_AT <= SYS_EXTRACT_UTC(SYSTIMESTAMP)" in text
    assert text.split("WHERE ")[1] in " ".join(golden("claim").split()).replace("d.", "")
    main, extra = healthy()
    results, code = run(doctor_settings, main, extra)
    assert by_name(results)["claim (2 workers)"].status == "PASS" and code == EXIT_OK


def test_a_failed_text_index_build_fails_although_its_status_is_valid(doctor_settings):
    """REVIEW-2 W10: a domain index whose build failed keeps USER_INDEXES.STATUS VALID with DOMIDX_OPSTATUS FAILED."""
    main, extra = healthy()
    main.replies.insert(0, (is_sql("text_index_info"), Reply(rows=[("DOMAIN", "VALID", "VALID", "FAILED")])))
    results, code = run(doctor_settings, main, extra)
    text = by_name(results)["oracle text"]
    assert text.status == "FAIL" and "last operation FAILED" in text.detail and code == EXIT_FAILED
    main, extra = healthy()
    main.replies.insert(0, (is_sql("text_index_info"), Reply(rows=[])))
    results, _ = run(doctor_settings, main, extra)
    assert by_name(results)["oracle text"].status == "FAIL" and "missing" in by_name(results)["oracle text"].detail


def replace_reply(conn, name, nth, reply):
    """Swap the reply the ``nth`` statement named ``name`` gets (0-based among that statement's replies)."""
    indexes = [i for i, (match, _) in enumerate(conn.replies) if callable(match) and match(golden(name))]
    conn.replies[indexes[nth]] = (conn.replies[indexes[nth]][0], reply)


def test_deletes_of_a_sprint_a_project_and_a_task_fire_the_access_triggers_in_one_rolled_back_transaction(
        doctor_settings):
    """REVIEW-2 U3: ON DELETE SET NULL from SPRINTS and PROJECTS into their children fires the V9 triggers (the
    children's chunks lose the sprint/project at once, the parent's chunks go), and a task delete removes its
    chunks and cascades its comments, all without ORA-04091."""
    main, extra = healthy()
    results, _ = run(doctor_settings, main, extra)
    found = by_name(results)
    assert found["access sprint delete"].detail == "sprint chunk gone, task chunk sprint None, +1 task UPSERT row(s)"
    assert found["access project delete"].detail == (
        "project chunk gone, task chunks' project [None, None], +1 task UPSERT row(s)")
    assert found["access task delete"].detail == "task chunk gone, 1 task DELETE row(s)"
    # this check's calls: up to the REVIEW-4 steps' own scratch rows (a second project)
    projects = [i for i, c in enumerate(main.calls) if c.sql == golden("doctor_insert_project")]
    calls = main.calls[:projects[1]]
    deletes = [c for c in calls if c.sql.startswith("DELETE FROM") and "WHERE" in c.sql and ":row_id" in c.sql]
    assert [(c.sql, c.binds) for c in deletes] == [
        ("DELETE FROM SPRINTS WHERE SPRINT_ID = :row_id", {"row_id": SPRINT}),
        (golden("crud_delete_projects"), {"row_id": PROJECT}),
        ("DELETE FROM TASKS WHERE TASK_ID = :row_id", {"row_id": TASK})]
    chunk_inserts = [c.binds for c in calls if c.sql == golden("doctor_insert_chunk")]
    assert [(b["source_type"], b["source_id"], b["sprint_id"]) for b in chunk_inserts] == [
        ("task", TASK, None), ("task", SPRINT_TASK, SPRINT), ("sprint", SPRINT, None), ("project", PROJECT, None)]
    task_delete_count = [c.binds for c in calls if c.sql == golden("doctor_dirty_count")][-1]
    assert task_delete_count == {"source_type": "task", "source_id": TASK, "dirty_action": "DELETE"}
    assert main.events[-2:] == ["rollback", "close"]


def test_a_sprint_chunk_left_behind_or_a_mutating_project_delete_fails(doctor_settings):
    main, extra = healthy()
    replace_reply(main, "doctor_chunk_state", 2, Reply(rows=[(None, PROJECT, None)]))  # the sprint chunk stayed
    results, code = run(doctor_settings, main, extra)
    assert by_name(results)["access sprint delete"].status == "FAIL" and code == EXIT_FAILED
    main, extra = healthy()
    main.replies.insert(0, (is_sql("crud_delete_projects"),
                            Reply(error=ora_error(4091, "table APP.SPRINTS is mutating, trigger/function may not see it"))))
    results, code = run(doctor_settings, main, extra)
    project = by_name(results)["access project delete"]
    assert project.status == "FAIL" and project.error.startswith("ORA-04091") and code == EXIT_FAILED


def test_a_refused_full_optimize_fails_because_erasures_could_not_be_proven(doctor_settings):
    """REVIEW-2 U4: OPTIMIZE_INDEX(FULL) on the automatically maintained SEARCH index, run with maxtime 0."""
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_optimize_text_index"), Reply(error=ora_error(20000, "DRG-10599"))))
    results, code = run(doctor_settings, main, extra)
    optimize = by_name(results)["text optimize"]
    assert optimize.status == "FAIL" and optimize.needed and code == EXIT_FAILED
    call = next(c for c in main.calls if c.sql == golden("doctor_optimize_text_index"))
    assert call.binds == {"idx_name": "RAG_CHUNK_TEXT_IDX"} and "maxtime => 0" in call.sql
    # Like the sync it commits implicitly, so it runs right after a rollback.
    assert main.sqls.index(golden("doctor_optimize_text_index")) == main.sqls.index(golden("sync_text_index")) + 1


def test_a_token_table_under_another_name_fails_the_text_tokens_check(doctor_settings):
    """REVIEW-2 W9: the erasure proof reads DR$RAG_CHUNK_TEXT_IDX$I; the doctor proves the name on the database."""
    main, extra = healthy()
    main.replies.insert(0, (is_sql("text_token_tables_present"), Reply(rows=[])))
    results, code = run(doctor_settings, main, extra)
    tokens = by_name(results)["text tokens"]
    assert tokens.status == "FAIL" and I_TABLE in tokens.detail and code == EXIT_FAILED
    main, extra = healthy()
    run(doctor_settings, main, extra)
    lookup = next(c for c in main.calls if c.sql.startswith("SELECT DISTINCT TOKEN_TEXT"))
    assert lookup.sql == erasure_sql.text_tokens(I_TABLE, ["login"]).sql and lookup.binds == {"w0": "login"}


def test_word_tokens_that_keep_their_case_fail_and_an_empty_index_skips_without_failing_strict(doctor_settings):
    """REVIEW-3 U3: the erasure proof looks words up as UPPER(:w) among word tokens (TOKEN_TYPE 0, golden
    text_tokens_i); the doctor samples $I's word tokens and fails when any is not upper-cased (a false "erased")."""
    main, extra = healthy()
    results, _ = run(doctor_settings, main, extra)
    case = by_name(results)["text token case"]
    assert case.status == "PASS" and "120 word tokens" in case.detail
    call = next(c for c in main.calls if c.sql == golden("doctor_token_case"))
    assert call.binds == {"max_rows": 1000} and "TOKEN_TYPE = 0" in call.sql
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_token_case"), Reply(rows=[(120, 3)])))
    results, code = run(doctor_settings, main, extra)
    case = by_name(results)["text token case"]
    assert case.status == "FAIL" and "3 of 120" in case.detail and case.needed and code == EXIT_FAILED
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_token_case"), Reply(rows=[(0, 0)])))
    results, code = oracle_doctor.run(doctor_settings, connect=lambda c=iter([main, *extra]): next(c), strict=True)
    case = by_name(results)["text token case"]
    assert case.status == "SKIP" and not case.needed and code == EXIT_OK  # nothing indexed: nothing to miss


def test_a_40kb_body_goes_through_insert_returning_as_a_clob_and_must_come_back_whole(doctor_settings):
    """REVIEW-2 U1: no source proves a long text beside RETURNING INTO; the doctor inserts 44,000 bytes through
    the engine's CRUD path (bound as a temporary CLOB), reads it back and rolls back."""
    import oracledb

    main, extra = healthy()
    run(doctor_settings, main, extra)
    insert = next(c for c in main.calls if c.sql.startswith("INSERT INTO DOCUMENTS"))
    assert insert.sql.endswith("RETURNING DOCUMENT_ID INTO :new_id") and insert.inputsizes == {
        "v_body": oracledb.DB_TYPE_CLOB}
    assert len(insert.binds["v_body"].encode()) > 40_000
    # REVIEW-3 C1: the longest body bound as a plain str, at the edge, proven beside RETURNING INTO too
    edge = [c for c in main.calls if c.sql.startswith("INSERT INTO DOCUMENTS")][1]
    assert len(edge.binds["v_body"].encode()) == 3900 and edge.inputsizes == {}
    main, extra = healthy()
    main.replies.insert(0, ("FROM DOCUMENTS WHERE", Reply(rows=[(401, "t", "doctor probe body", None, None, None)])))
    results, code = run(doctor_settings, main, extra)
    assert by_name(results)["clob returning"].status == "FAIL" and code == EXIT_FAILED
    main, extra = healthy()
    main.replies.insert(0, ("INSERT INTO DOCUMENTS", Reply(error=ora_error(1461, "can bind a LONG value only"))))
    results, _ = run(doctor_settings, main, extra)
    assert by_name(results)["clob returning"].error.startswith("ORA-01461")


def test_like_on_a_clob_is_proved_with_the_erasures_own_statements_past_40kb(doctor_settings):
    """REVIEW-2 U8: no source shows UPPER(clob) LIKE; the doctor runs the proof's and the redaction's statements on
    a probe document whose mixed-case marker lies past 40,000 bytes, beside a decoy that only an unescaped "_"
    would match, and rolls back."""
    main, extra = healthy()
    run(doctor_settings, main, extra)
    inserts = [c for c in main.calls if c.sql.startswith("INSERT INTO DOCUMENTS")]
    probe, decoy = (c.binds["v_body"] for c in inserts[2:4])  # after the clob returning check's two
    assert probe.index("Doctor_Probe") > 40_000 and "Doctor-Probe" in decoy
    likes = [c for c in main.calls if "LIKE UPPER(:pattern)" in c.sql]
    assert [c.binds for c in likes[:3]] == [{"pattern": r"%doctor\_probe marker ångström%"}] * 3
    # REVIEW-3 C1: the longest pattern the proof binds whole, 3,900 bytes of multi-byte text, a substring of the probe
    long_pattern = likes[3].binds["pattern"]
    assert likes[3].sql == golden("doctor_clob_like_count") and len(long_pattern.encode()) == 3900
    assert long_pattern.strip("%").upper() in probe.upper() and long_pattern.strip("%").upper() not in decoy.upper()
    broken = ((Reply(rows=[(2,)]), "proof_count 2"), (Reply(error=ora_error(932, "inconsistent datatypes")), "ORA-00932"))
    for rows, why in broken:
        main, extra = healthy()
        main.replies.insert(0, (is_sql("doctor_clob_like_count"), rows))
        results, code = run(doctor_settings, main, extra)
        check = by_name(results)["clob like"]
        assert check.status == "FAIL" and code == EXIT_FAILED and why in f"{check.detail} {check.error}"
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_clob_like_candidates"), Reply(rows=[(PROBE_DOC, "x"), (DECOY_DOC, "y")])))
    results, _ = run(doctor_settings, main, extra)
    check = by_name(results)["clob like"]
    assert check.status == "FAIL" and f"[{PROBE_DOC}, {DECOY_DOC}]" in check.detail
    main, extra = healthy()
    replace_reply(main, "doctor_clob_like_count", 1, Reply(rows=[(0,)]))  # the long pattern finds nothing
    results, code = run(doctor_settings, main, extra)
    check = by_name(results)["clob like"]
    assert check.status == "FAIL" and "3,900-byte pattern 0" in check.detail and code == EXIT_FAILED


@pytest.mark.parametrize("stored, expected", [
    (("OTHER_MODEL", None, 1), "made by the embedding model OTHER_MODEL"),
    ((MODEL, "NEXT_MODEL", 1), "being re-embedded with NEXT_MODEL"),
])
def test_vectors_of_another_model_or_a_swap_under_way_fail_the_model_mark_check(doctor_settings, stored, expected):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("read_model_mark"), Reply(rows=[stored])))
    results, code = run(doctor_settings, main, extra)
    mark = by_name(results)["model mark"]
    assert mark.status == "FAIL" and expected in mark.detail and "503" in mark.detail and code == EXIT_FAILED


def test_a_model_that_cannot_embed_a_chunk_sized_text_fails(doctor_settings):
    main, extra = healthy()
    main.replies.insert(3, (is_embed, Reply(error=ora_error(1461, "can bind a LONG value only"))))
    results, code = run(doctor_settings, main, extra)
    model = by_name(results)["model"]
    assert model.status == "FAIL" and "4,000-byte" in model.detail and code == EXIT_FAILED


def test_a_long_answer_beside_3kb_citations_and_retrieved_is_stored_with_its_clob_bound_last(doctor_settings):
    """REVIEW-3 U1: the engine's INSERT_MESSAGE with a 44,000-byte content (a temporary CLOB) and 3,000-byte CITATIONS
    and RETRIEVED (declared past 4,000 bytes) on scratch rows, read back whole and rolled back."""
    import oracledb

    main, extra = healthy()
    results, code = run(doctor_settings, main, extra)
    assert by_name(results)["message clob"].status == "PASS" and code == EXIT_OK
    insert = next(c for c in main.calls if c.sql == golden("insert_message"))
    assert insert.inputsizes == {"content": oracledb.DB_TYPE_CLOB} and len(insert.binds["content"].encode()) > 40_000
    assert min(len(insert.binds[b].encode()) for b in ("citations", "retrieved")) >= 3000
    turn = next(c for c in main.calls if c.sql == golden("get_turn"))
    assert turn.binds == {"user_id": MESSAGE, "answer_id": MESSAGE}
    assert main.sqls.index(golden("insert_message")) > main.sqls.index(golden("insert_conversation"))
    main, extra = healthy()
    replace_reply(main, "get_turn", 0, Reply(rows=[message_row(retrieved="[]")]))
    results, code = run(doctor_settings, main, extra)
    check = by_name(results)["message clob"]
    assert check.status == "FAIL" and "changed: retrieved" in check.detail and code == EXIT_FAILED
    main, extra = healthy()
    main.replies.insert(0, (is_sql("insert_message"), Reply(error=ora_error(24816, "Expanded non LONG bind data"))))
    results, _ = run(doctor_settings, main, extra)
    assert by_name(results)["message clob"].error.startswith("ORA-24816")


# --- REVIEW-4 §4: the doctor's new steps -------------------------------------------------------------------

def test_review4_steps_pass_on_a_healthy_database_with_their_golden_statements_and_binds(doctor_settings):
    main, extra = healthy()
    results, code = run(doctor_settings, main, extra)
    found = by_name(results)
    assert code == EXIT_OK
    assert found["trigger links insert"].detail == "+1 and +1 task UPSERT row(s), 2 links"
    assert found["trigger links retarget"].detail == "+1 on RETARGET_LINK, +1 on DELETE_LINK"
    assert found["trigger employee rename"].detail == (
        "+1 task UPSERT row(s) for the task the renamed employee commented on")
    assert found["trigger links task delete"].detail == (
        "its own links gone, the link to it targets NULL, +1 UPSERT row(s) for the linking task")
    assert found["v16 constraints"].detail == "10 constraints enabled and validated"
    assert "RAG_CHUNK_STATS_IDX only" in found["text arm cost"].detail and found["text arm cost"].status == "PASS"
    assert found["driver version"].status == "PASS" and found["call timeout"].status == "PASS"
    calls = {name: [c for c in main.calls if c.sql == golden(name)] for name in (
        "insert_link", "retarget_link", "delete_link", "doctor_rename_employee", "doctor_links", "write_sync_cursor",
        "read_sync_cursor", "text_term_rows_developer")}
    assert [c.binds for c in calls["insert_link"]] == [
        {"task_id": TASK, "link_type": "BLOCKS", "target_key": "DOCTOR-2", "target_task_id": SPRINT_TASK},
        {"task_id": SPRINT_TASK, "link_type": "BLOCKED_BY", "target_key": "DOCTOR-1", "target_task_id": TASK},
        {"task_id": TASK, "link_type": "RELATES", "target_key": "DOCTOR-3", "target_task_id": None}]
    assert [c.binds for c in calls["retarget_link"]] == [{"target_task_id": None, "link_id": LINK_A},
                                                         {"target_task_id": SPRINT_TASK, "link_id": LINK_A}]
    assert [c.binds for c in calls["delete_link"]] == [{"link_id": LINK_C}]
    assert [c.binds for c in calls["doctor_rename_employee"]] == [
        {"first_name": "doctor probe other (renamed)", "employee_id": OTHER}]
    assert {tuple(sorted(c.binds.items())) for c in calls["doctor_links"]} == {
        (("task_a", TASK), ("task_b", SPRINT_TASK))}
    assert [c.binds["cursor_value"] for c in calls["write_sync_cursor"]] == [
        "doctor probe cursor", "doctor probe cursor (again)"]
    assert [c.binds for c in calls["read_sync_cursor"]] == [{"source_name": "doctor-probe"}]
    assert [c.binds for c in calls["text_term_rows_developer"]] == [{"caller_id": 7, "tq": "{LOGIN}"}]
    # The plan read right after each statistics query (DISPLAY_CURSOR shows the session's last cursor).
    sent = main.sqls
    for name in ("text_statistics_manager", "text_statistics_developer"):
        assert sent[sent.index(golden(name)) + 1] == golden("doctor_plan")
    probe = extra[3]
    assert probe.sqls == [golden("doctor_sleep"), golden("doctor_dual")]
    assert [c.call_timeout for c in probe.calls] == [500, 0] and probe.calls[0].binds == {"seconds": 2}
    assert golden("doctor_v16_constraints") in sent and main.events[-2:] == ["rollback", "close"]


def test_a_rename_trigger_that_fails_and_a_link_not_set_null_fail_their_steps(doctor_settings):
    """U1: a sequence default under DISTINCT would fail inside the rename (ORA-01400); U4: a task delete that left
    the link pointing at it."""
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_rename_employee"),
                            Reply(error=ora_error(1400, 'cannot insert NULL into ("APP"."RAG_DIRTY"."DIRTY_ID")'))))
    links = next(i for i, r in enumerate(main.replies) if r[1].rows == V16_LINKS[2])
    main.replies[links] = (is_sql("doctor_links"), Reply(rows=[(LINK_B, SPRINT_TASK, TASK)]))
    results, code = run(doctor_settings, main, extra)
    found = by_name(results)
    assert found["trigger employee rename"].status == "FAIL" and "ORA-01400" in found["trigger employee rename"].error
    assert found["trigger links task delete"].status == "FAIL"
    assert "not set to NULL" in found["trigger links task delete"].detail and code == EXIT_FAILED


def test_a_disabled_or_missing_v16_constraint_fails(doctor_settings):
    from app.engines.oracle.doctor_statements import V16_CONSTRAINTS

    main, extra = healthy()
    rows = [(n, "DISABLED" if n == "TASKS_EXTERNAL_UK" else "ENABLED", "VALIDATED") for n in sorted(V16_CONSTRAINTS)
            if n != "SPRINTS_EXTERNAL_CK"]
    main.replies.insert(0, (is_sql("doctor_v16_constraints"), Reply(rows=rows)))
    results, code = run(doctor_settings, main, extra)
    check = by_name(results)["v16 constraints"]
    assert check.status == "FAIL" and code == EXIT_FAILED
    assert check.detail == "missing: SPRINTS_EXTERNAL_CK; not enforced: TASKS_EXTERNAL_UK DISABLED/VALIDATED"


def test_a_text_arm_that_reads_the_table_in_full_on_a_large_index_warns(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("text_statistics_manager"), Reply(rows=[(250_000, 1800.0)])))
    plan = next(i for i, (_, r) in enumerate(main.replies) if any("RAG_CHUNK_STATS_IDX" in str(x) for x in r.rows))
    main.replies[plan] = (is_sql("doctor_plan"), Reply(rows=[("|   2 |   TABLE ACCESS FULL| RAG_CHUNK |",)]))
    results, code = run(doctor_settings, main, extra)
    check = by_name(results)["text arm cost"]
    assert check.status == "WARN" and "slow (manager)" in check.detail and "TABLE ACCESS FULL RAG_CHUNK" in check.detail
    assert code == EXIT_OK  # a warning: the service works, slower


def test_an_old_driver_warns_and_a_call_that_is_not_cut_fails_without_blocking(doctor_settings, monkeypatch):
    import oracledb

    monkeypatch.setattr(oracledb, "__version__", "3.4.2")
    main, extra = healthy()
    extra[3] = FakeConnection([(is_sql("doctor_dual"), Reply(rows=[(1,)]))])  # the sleep returns: nothing cut it
    results, code = run(doctor_settings, main, extra)
    found = by_name(results)
    assert found["driver version"].status == "WARN" and "3.4.2 is below 4.0.1" in found["driver version"].detail
    assert found["call timeout"].status == "FAIL" and not found["call timeout"].needed
    assert "ran to its end" in found["call timeout"].detail and code == EXIT_OK


def test_without_a_token_table_the_text_arm_cost_still_reports_the_statistics(doctor_settings):
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_top_token"), Reply(error=ora_error(942, "table or view does not exist"))))
    results, code = run(doctor_settings, main, extra)
    check = by_name(results)["text arm cost"]
    assert check.status == "PASS" and "the word counts not timed (ORA-00942" in check.detail and code == EXIT_OK


def test_under_the_project_rule_the_filtered_approx_check_runs_the_members_predicate(doctor_settings):
    """RAG_ACCESS_RULE=project (issue 32): the doctor's developer carries their member projects, so the FETCH APPROX
    it proves (and its exact fallback) is the statement the engine runs for them (docs/ORACLE.md, "Project
    membership and FETCH APPROX")."""
    main, extra = healthy()
    main.replies.insert(0, ("FROM PROJECT_MEMBERS", Reply(rows=[(3,), (8,)])))
    main.replies.insert(0, ("FETCH APPROX", Reply(rows=[("task", 1, 0, "x", 0.1)])))
    main.replies.append(("FETCH EXACT", Reply(rows=[("task", i, 0, "x", 0.1) for i in range(3)])))
    results, code = run(doctor_settings.model_copy(update={"access_rule": "project"}), main, extra)
    found = by_name(results)
    assert code == EXIT_OK and found["filtered approx"].status == "WARN"
    assert golden("member_projects_of") in main.sqls
    approx = next(c for c in main.calls if "FETCH APPROX" in c.sql and "caller_id" in c.binds)
    assert "PROJECT_ID IN (:m0, :m1)" in approx.sql and (approx.binds["m0"], approx.binds["m1"]) == (3, 8)
