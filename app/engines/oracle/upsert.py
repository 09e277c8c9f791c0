"""The chunk upsert and the choice of its form: the MERGE with VECTOR_EMBEDDING in its USING select, or (where
the database refuses that) two steps, the vector from SELECT ... FROM dual, then a MERGE with it bound as
array('f') (FACTS.md §7, §2). The form that works is stored in RAG_SETTINGS (V12) and read once per batch.

Three places choose it (REVIEW-2 W4): `ragctl oracle bootstrap` probes both forms on a rolled-back scratch chunk
and stores the one that works (so `bootstrap && serve` never runs a refused form), `ragctl oracle doctor` does
the same and reports it, and the worker, on the first MERGE failure that is not about the data, retries the
batch two-step and stores that form in the batch's own transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from app.engines.oracle import model_mark
from app.engines.oracle import doctor_statements as doctor_sql
from app.engines.oracle import indexing_statements as indexing_sql
from app.engines.oracle import search_statements as search_sql
from app.engines.oracle import settings_statements as settings_sql
from app.engines.oracle.errors import UPSERT_DATA_ERRORS, ora_error_number, unavailable
from app.rag.chunking import MAX_BYTES as CHUNK_MAX_BYTES  # the longest chunk, in UTF-8 bytes

log = logging.getLogger(__name__)

UPSERT_FORM_KEY = "UPSERT_FORM"
UPSERT_IN_USING = "merge_using"
UPSERT_TWO_STEP = "two_step"
TABLE_MISSING = 942  # ORA-00942: RAG_SETTINGS not migrated yet
SCRATCH_SOURCE_ID = -1  # negative: never an identity id (doctor_statements.py)
# The probe's chunks, bound as the worker binds its batches (REVIEW-3 U2): several rows in one executemany, one of
# them exactly as long as a chunk may get (the chunker's 4,000 UTF-8 bytes, RAG_CHUNK.CONTENT VARCHAR2(4000 BYTE)) in
# multi-byte text, so thin declares its :content at 16,000 bytes, used twice in the MERGE (REVIEW-3 C1, ORA-01478).
PROBE_CHUNK_TEXT = ("[TASK #0] doctor probe: sprint planning for the login bug\n"
                    + "Description: " + " ".join(f"step {i} of the session cookie renewal" for i in range(90)))


def _exactly(prefix: str, phrase: str, size: int) -> str:
    """``prefix`` and ``phrase`` repeated, cut to whole characters and padded with spaces to exactly ``size`` bytes."""
    text = prefix
    while len(text.encode()) < size:
        text += phrase
    while len(text.encode()) > size:
        text = text[:-1]
    return text + " " * (size - len(text.encode()))


PROBE_MULTIBYTE_TEXT = _exactly("[TASK #0] sonda del doctor: ",
                                "corrección del error de inicio de sesión — ログインの不具合 — ", CHUNK_MAX_BYTES)

def stored_form(conn: Any) -> str:
    """The stored upsert form (``UPSERT_IN_USING`` when none is stored or V12 is not applied yet)."""
    try:
        with conn.cursor() as cur:
            cur.execute(settings_sql.READ_SETTING, setting_key=UPSERT_FORM_KEY)
            row = cur.fetchone()
    except Exception as exc:
        if ora_error_number(exc) != TABLE_MISSING:
            raise
        return UPSERT_IN_USING
    return UPSERT_TWO_STEP if row and row[0] == UPSERT_TWO_STEP else UPSERT_IN_USING


def store_form(cur: Any, form: str) -> None:
    model_mark.write_setting(cur, UPSERT_FORM_KEY, form)  # two workers falling back at once: ORA-00001 absorbed


def run(cur: Any, model: str, rows: Sequence[dict[str, Any]], two_step: bool) -> None:
    """Upsert ``rows`` (the MERGE's binds, ``embedding_model`` included) in one form."""
    import oracledb

    rows = [dict(row) for row in rows]
    for row in rows if two_step else []:
        cur.execute(search_sql.embed_query(model), q=row["content"])
        row["embedding"] = cur.fetchone()[0]  # array('f') (FACTS.md §1)
    # Nullable numbers: a first row of None must not make the bind a string.
    cur.setinputsizes(owner_employee_id=oracledb.DB_TYPE_NUMBER, project_id=oracledb.DB_TYPE_NUMBER,
                      sprint_id=oracledb.DB_TYPE_NUMBER,
                      **({"embedding": oracledb.DB_TYPE_VECTOR} if two_step else {}))
    cur.executemany(indexing_sql.upsert_chunk_bound() if two_step else indexing_sql.upsert_chunk(model), rows)


def run_or_fall_back(cur: Any, model: str, rows: Sequence[dict[str, Any]], two_step: bool) -> bool:
    """The worker's upsert: the stored form, and on a refusal of the MERGE form that is not about the data, the
    batch again in two steps, storing that form (committed with the batch). Returns True when it fell back.

    A MERGE that failed part-way leaves its earlier rows written; the two-step MERGE of the same rows is idempotent
    (same key, same hash: the WHEN MATCHED filter skips them)."""
    try:
        run(cur, model, rows, two_step)
        return False
    except Exception as exc:
        if two_step or not form_refused(exc):
            raise
        log.warning("the MERGE with VECTOR_EMBEDDING in its USING select failed (%s); retrying the batch in two "
                    "steps and storing that form (run `ragctl oracle doctor` to probe both again)", exc)
    run(cur, model, rows, two_step=True)
    store_form(cur, UPSERT_TWO_STEP)
    return True


def form_refused(exc: BaseException) -> bool:
    """An ORA error that may be the database refusing the MERGE form itself: not one about the rows' data or the
    model, and not a "not now" fault (REVIEW-2 W4). A driver (DPY) error never is."""
    number = ora_error_number(exc)
    return number is not None and number not in UPSERT_DATA_ERRORS and unavailable(exc) is None


def probe_rows(model: str) -> list[dict[str, Any]]:
    return [{"source_type": "task", "source_id": SCRATCH_SOURCE_ID, "chunk_ix": ix, "owner_employee_id": None,
             "project_id": None, "sprint_id": None, "doc_type": None, "content": content,
             "content_hash": "doctor", "embedding_model": model}
            for ix, content in enumerate((PROBE_CHUNK_TEXT, PROBE_MULTIBYTE_TEXT))]


def probe(conn: Any, model: str, dimensions: int, two_step: bool) -> BaseException | None:
    """Upsert the scratch chunks in one form, read their vectors back, roll back. None when it works."""
    rows = probe_rows(model)
    try:
        with conn.cursor() as cur:
            run(cur, model, rows, two_step)
            cur.execute(doctor_sql.DOCTOR_SCRATCH_CHUNKS, source_type="task", source_id=SCRATCH_SOURCE_ID)
            stored = {int(ix): vector for ix, vector in cur.fetchall()}
        missing = [r["chunk_ix"] for r in rows if stored.get(r["chunk_ix"]) is None
                   or len(stored[r["chunk_ix"]]) != dimensions]
        if missing:
            return RuntimeError(f"scratch chunk(s) {missing} of {len(rows)} came back missing or without a "
                                f"{dimensions}-dimension vector")
        return None
    except Exception as exc:
        return exc
    finally:
        try:
            conn.rollback()
        except Exception:  # a dead connection: the caller's next statement says so
            pass


def decide(conn: Any, model: str, dimensions: int) -> tuple[str | None, BaseException | None, BaseException | None]:
    """Probe the MERGE form, then (if refused) the two-step one, each rolled back. Returns (the first form that
    works, or None when both fail; the MERGE form's error; the two-step form's error)."""
    using_error = probe(conn, model, dimensions, two_step=False)
    if using_error is None:
        return UPSERT_IN_USING, None, None
    two_step_error = probe(conn, model, dimensions, two_step=True)
    return (UPSERT_TWO_STEP if two_step_error is None else None), using_error, two_step_error
