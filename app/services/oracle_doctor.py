"""`ragctl oracle doctor`: prove, on the live database, each statement shape FACTS.md could not confirm.

The runner opens its own connections (the claim check needs three), runs the checks in order and
rolls back after each one, so nothing a check wrote survives it. Two things are committed on purpose:
the upsert form the doctor selected (RAG_SETTINGS, read by the worker without re-probing) and the
claim check's scratch queue rows, which other connections must see; those are deleted again (also
a crashed run's, on the next run). CTX_DDL.SYNC_INDEX and OPTIMIZE_INDEX commit implicitly (FACTS.md
§8B), so they run only right after a rollback, with nothing pending.

Checks of the search and text paths are in oracle_doctor_checks.py, of the triggers in oracle_doctor_triggers.py;
REVIEW-4 §4's steps (V16 triggers and constraints, the text arm's cost, the driver version, a call-timeout probe) in
oracle_doctor_review4.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.config import Settings
from app.engines.oracle import model_mark, upsert
from app.engines.oracle import doctor_statements as doctor_sql
from app.engines.oracle import indexing_statements as indexing_sql
from app.engines.oracle import schema_statements as schema_sql
from app.engines.oracle import search_statements as search_sql
from app.engines.oracle import statements
from app.engines.oracle.indexing import OracleIndexingTx
from app.engines.oracle.search import DIMENSIONS, vector_bind
from app.rag import doctor
from app.rag.doctor import CheckResult, failed, passed, warned
from app.rag.model_mark import search_refusal

Connect = Callable[[], Any]
SCRATCH_SOURCE_ID = upsert.SCRATCH_SOURCE_ID  # negative: never an identity id (doctor_statements.py)
PROBE_TEXT = "doctor probe: sprint planning for the login bug"


@dataclass
class Probe:
    """What the checks share: the main connection, a way to open more, and what earlier checks found."""

    conn: Any
    connect: Connect
    settings: Settings
    model: str
    column_dims: int | None = None
    qv: Any = None  # the probe text's vector as array('f'), once the model check made it


def connector(settings: Settings) -> Connect:
    """Standalone connections from RAG_DATABASE_URL (not the service's pool: the doctor needs several)."""
    import oracledb

    from app.engines.oracle.engine import parse_database_url

    user, password, dsn = parse_database_url(settings)
    oracledb.defaults.fetch_lobs = False  # as the engine (FACTS.md §11.6)
    return lambda: oracledb.connect(user=user, password=password, dsn=dsn)


def run(settings: Settings, connect: Connect | None = None, strict: bool = False) -> tuple[list[CheckResult], int]:
    """All checks, in order, and the exit status (doctor.EXIT_*; ``strict``: a skipped needed check fails too)."""
    from app.services import oracle_doctor_checks as more
    from app.services import oracle_doctor_review4 as review4
    from app.services import oracle_doctor_triggers as triggers

    try:
        connect = connect or connector(settings)
        conn = connect()
    except Exception as exc:
        return [doctor.connection_failed(exc)], doctor.EXIT_NO_CONNECTION
    probe = Probe(conn, connect, settings, statements.checked_model(settings.oracle_model_name))
    checks = [check_version, check_embedding_column, check_model, check_model_mark, check_indexes, check_upsert,
              check_claims, more.check_filtered_search, more.check_index_accuracy, more.check_text,
              more.check_clob_returning, more.check_clob_like, more.check_message_clob,
              triggers.check_triggers, review4.check_v16_triggers, review4.check_v16_constraints,
              review4.check_text_cost, review4.check_driver, review4.check_call_timeout]
    results: list[CheckResult] = []
    try:
        for check in checks:
            try:
                results.extend(check(probe))
            except Exception as exc:  # a check that breaks is reported, and the next one still runs
                results.append(failed(check.__name__.removeprefix("check_"), "see docs/ORACLE.md (doctor)",
                                      "the check broke before its verdict", exc))
            finally:
                _quietly(conn.rollback)
    finally:
        _quietly(conn.close)
    return results, doctor.exit_code(results, strict)


def _quietly(action: Callable[[], Any]) -> None:
    try:
        action()
    except Exception:  # a dead connection: the result lines already say why
        pass


@contextmanager
def opened(connect: Connect, n: int) -> Iterator[list[Any]]:
    conns: list[Any] = []
    try:
        for _ in range(n):
            conns.append(connect())
        yield conns
    finally:
        for c in conns:
            _quietly(c.rollback)
            _quietly(c.close)


# --- environment ---------------------------------------------------------------------------------

def check_version(p: Probe) -> list[CheckResult]:
    return [doctor.version_result(getattr(p.conn, "version", None))]


def check_embedding_column(p: Probe) -> list[CheckResult]:
    name, proves = "embedding column", "FACTS.md §1 (VECTOR(384, FLOAT32); description.vector_dimensions)"
    with p.conn.cursor() as cur:
        cur.execute(doctor_sql.DOCTOR_EMBEDDING_COLUMN)
        cur.fetchall()
        p.column_dims = getattr(cur.description[0], "vector_dimensions", None)
    if p.column_dims != DIMENSIONS:
        return [failed(name, proves, f"RAG_CHUNK.EMBEDDING has {p.column_dims} dimensions, the engine needs {DIMENSIONS}")]
    return [passed(name, proves, f"RAG_CHUNK.EMBEDDING is VECTOR({p.column_dims})")]


def check_model(p: Probe) -> list[CheckResult]:
    name, proves = "model", "FACTS.md §5 (USER_MINING_MODELS) + §2 (VECTOR_EMBEDDING ... FROM dual)"
    with p.conn.cursor() as cur:
        cur.execute(schema_sql.MODEL_EXISTS, model_name=p.model)
        (count,) = cur.fetchone()
        if not count:
            return [failed(name, proves, f"model {p.model} is not loaded: run `ragctl oracle bootstrap`")]
        try:
            cur.execute(search_sql.embed_query(p.model), q=PROBE_TEXT)
            (vector,) = cur.fetchone()
        except Exception as exc:
            return [failed(name, proves, f"model {p.model} is listed but VECTOR_EMBEDDING fails", exc)]
    dims, column = len(vector), p.column_dims or DIMENSIONS
    if dims != column:
        return [failed(name, proves, f"model {p.model} makes {dims} dimensions, RAG_CHUNK.EMBEDDING holds {column}")]
    p.qv = vector_bind(np.asarray(vector, dtype=np.float32))
    # the longest chunk there is (4,000 UTF-8 bytes of multi-byte text), as the two-step upsert and long questions
    # bind it (REVIEW-3 U2)
    long_text = upsert.PROBE_MULTIBYTE_TEXT
    try:
        with p.conn.cursor() as cur:
            cur.execute(search_sql.embed_query(p.model), q=long_text)
            cur.fetchone()
    except Exception as exc:
        return [failed(name, proves, f"model {p.model} embeds a short text but not a "
                                     f"{len(long_text.encode()):,}-byte one", exc)]
    return [passed(name, proves, f"model {p.model} loaded; {dims} dimensions, as RAG_CHUNK.EMBEDDING; a "
                                 f"{len(long_text.encode()):,}-byte input embeds too")]


def check_model_mark(p: Probe) -> list[CheckResult]:
    """Which model made the stored vectors (RAG_SETTINGS + RAG_CHUNK.EMBEDDING_MODEL): the service searches only
    when it is this process's model and no swap is under way (app/engines/oracle/model_mark.py)."""
    name, proves = "model mark", "FACTS.md §10 (RAG_SETTINGS rows, V15 EMBEDDING_MODEL); app/rag/model_mark.py"
    with p.conn.cursor() as cur:
        mark, target = model_mark.read(cur)
    why = search_refusal(mark, target, p.model, model_mark.SETTING)
    if why is not None:
        return [failed(name, proves, f"searches answer 503: {why}")]
    return [passed(name, proves, f"the stored vectors are {mark}'s" if mark else "no vectors stored yet")]


def check_indexes(p: Probe) -> list[CheckResult]:
    """The IVF vector index and the Oracle Text search index exist and are usable (a -slim image has no Oracle Text)."""
    name, proves = "ivf index", "FACTS.md §4 (USER_INDEXES: VECTOR / NEIGHBOR_PARTITIONS_IVF)"
    with p.conn.cursor() as cur:
        cur.execute(schema_sql.VECTOR_INDEX_INFO, index_name=statements.VECTOR_INDEX)
        row = cur.fetchone()
    if row is None:
        out = [failed(name, proves, f"{statements.VECTOR_INDEX} is missing: run `ragctl oracle bootstrap`")]
    elif row[1] != "NEIGHBOR_PARTITIONS_IVF" or row[2] != "VALID":
        out = [failed(name, proves, f"{statements.VECTOR_INDEX} is {row[0]}/{row[1]}, status {row[2]}")]
    else:
        out = [passed(name, proves, f"{statements.VECTOR_INDEX} {row[0]}/{row[1]} {row[2]}")]
    name = "oracle text"
    proves = "FACTS.md §8B (CREATE SEARCH INDEX; -slim images drop Oracle Text) + REVIEW-2 W10 (DOMIDX_OPSTATUS)"
    with p.conn.cursor() as cur:
        cur.execute(schema_sql.TEXT_INDEX_INFO, index_name=statements.TEXT_INDEX)
        row = cur.fetchone()
    if row is None:
        return out + [failed(name, proves, f"{statements.TEXT_INDEX} is missing: run `ragctl oracle bootstrap` "
                                           "(Oracle Text installed? -slim images drop it)")]
    index_type, status, domidx_status, domidx_opstatus = row
    detail = (f"{statements.TEXT_INDEX} {index_type}: status {status}, domain index {domidx_status}, "
              f"last operation {domidx_opstatus}")
    if (status, domidx_status, domidx_opstatus) != ("VALID", "VALID", "VALID"):
        # A failed build keeps STATUS VALID with DOMIDX_OPSTATUS FAILED; CONTAINS then raises ORA-29861.
        return out + [failed(name, proves, detail + ": drop and recreate it (migrations/oracle/V7), see ORA-29861")]
    return out + [passed(name, proves, detail)]


# --- the upsert form -------------------------------------------------------------------------------

def check_upsert(p: Probe) -> list[CheckResult]:
    """The MERGE with VECTOR_EMBEDDING in its USING select; when refused, the two-step form. The form that works is
    stored in RAG_SETTINGS, so the worker uses it without probing (upsert.stored_form). The probe binds two rows in
    one executemany, one of exactly 4,000 UTF-8 bytes of multi-byte text, so :content binds as the worker's does."""
    name = "upsert"
    proves = ("FACTS.md §7 + §2, 'Could NOT confirm': VECTOR_EMBEDDING in a MERGE; REVIEW-3 U2 (2 rows, one of "
              "4,000 multi-byte bytes)")
    choice, using_error, two_step_error = upsert.decide(p.conn, p.model, p.column_dims or DIMENSIONS)
    if choice is None:
        return [failed(name, proves, f"both forms fail; two-step: {doctor.first_line(two_step_error)}", using_error)]
    if choice == upsert.UPSERT_IN_USING:
        sizes = " and ".join(f"{len(r['content'].encode()):,}" for r in upsert.probe_rows(p.model))
        result = passed(name, proves, f"MERGE with VECTOR_EMBEDDING in USING works for 2 rows at once ({sizes} "
                                      "UTF-8 bytes, the second multi-byte)")
    else:
        result = warned(name, proves, "MERGE with VECTOR_EMBEDDING in USING refused; the two-step form works",
                        using_error, "two-step (SELECT VECTOR_EMBEDDING FROM dual, MERGE with array('f'))")
    try:
        with p.conn.cursor() as cur:
            upsert.store_form(cur, choice)
        p.conn.commit()
    except Exception as exc:
        if choice == upsert.UPSERT_TWO_STEP:  # the worker would keep using the refused form
            return [failed(name, proves, "the two-step form could not be stored (V12 applied?)", exc,
                           result.fallback)]
        return [warned(name, proves, f"{result.detail}; not stored (V12 applied?): the default is this form", exc)]
    return [CheckResult(result.name, result.proves, result.status, f"{result.detail}; stored {choice}",
                        result.error, result.fallback, result.needed)]


# --- two workers claiming at once -----------------------------------------------------------------

def check_claims(p: Probe) -> list[CheckResult]:
    """Two connections claim a batch each from 2 x batch committed scratch rows while a third counts, with
    FOR UPDATE SKIP LOCKED, the scratch rows each holds (FACTS.md §6: rows are locked as fetched)."""
    batch = p.settings.batch_size
    with p.conn.cursor() as cur:
        cur.execute(doctor_sql.DOCTOR_DELETE_SCRATCH_DIRTY)
        # Only rows a claim could take now would be claimed before the scratch rows (stuck rows and rows in
        # backoff are outside every claim window: they cannot interfere).
        cur.execute(indexing_sql.CLAIMABLE_COUNT, max_attempts=p.settings.max_attempts)
        claimable = int(cur.fetchone()[0])
        if claimable:
            p.conn.commit()
            return [doctor.claim_skipped(claimable)]
        cur.executemany(indexing_sql.ENQUEUE,
                        [{"source_type": "task", "source_id": -(i + 1)} for i in range(2 * batch)])
    p.conn.commit()
    try:
        with p.conn.cursor() as cur:
            cur.execute(doctor_sql.DOCTOR_SCRATCH_DIRTY)
            scratch = {int(d) for (d,) in cur.fetchall()}
        with opened(p.connect, 3) as (first, second, counter):
            got_a = [r.dirty_id for r in OracleIndexingTx(first, p.model).claim(batch, p.settings.max_attempts)]
            locked_a = scratch - _unlocked(counter)
            got_b = [r.dirty_id for r in OracleIndexingTx(second, p.model).claim(batch, p.settings.max_attempts)]
            locked_b = scratch - _unlocked(counter) - locked_a
    finally:
        with p.conn.cursor() as cur:
            cur.execute(doctor_sql.DOCTOR_DELETE_SCRATCH_DIRTY)
        p.conn.commit()
    return [doctor.claim_result(batch, got_a, got_b, locked_a, locked_b, scratch)]


def _unlocked(conn: Any) -> set[int]:
    try:
        with conn.cursor() as cur:
            cur.execute(doctor_sql.DOCTOR_UNLOCKED_SCRATCH)
            return {int(d) for (d,) in cur.fetchall()}
    finally:
        conn.rollback()  # release what this count locked at once
