"""The Oracle statements of indexing: the queue (the worker's SKIP LOCKED claim, failures, retry, enqueue), its
status, the chunk writes (both MERGE forms, hashes, deletes), the source rows a unit locks, the backfill and the
worker's Oracle Text sync (app/engines/oracle/indexing.py, upsert.py, status.py). The rules of statements.py hold here.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engines.oracle.statements import Statement, checked_model, in_list

# --- queue ----------------------------------------------------------------------------------

# Why a window wider than the batch: the ROWID subquery ignores row locks, so every worker's
# subquery returns the same oldest ROWIDs; with a window of exactly the batch, worker 2's outer
# SKIP LOCKED skips all of them and gets zero rows while work remains (FACTS.md §6). A window of
# CLAIM_WINDOW_FACTOR batches lets that many workers each claim a full batch at the same time (a
# further worker sees an empty claim until the head moves), while the subquery still stops at the
# window on RAG_DIRTY_PICK_IDX instead of sorting the whole backlog on every claim.
CLAIM_WINDOW_FACTOR = 4

# source: FACTS.md §6 (ROWID-subquery workaround for ORA-02014, Lewis [BLOG], with the hints he uses;
#         FOR UPDATE SKIP LOCKED in a top-level SELECT with ORDER BY is allowed [DOC sqlrf]; rows are
#         locked as fetched, so the engine sets prefetchrows = arraysize = batch [PYDOC tuning])
CLAIM = (
    "SELECT q.DIRTY_ID, q.SOURCE_TYPE, q.SOURCE_ID, q.ACTION, q.ATTEMPTS\n"
    "FROM RAG_DIRTY q\n"
    "WHERE q.ROWID IN (\n"
    "    SELECT /*+ qb_name(inline) unnest no_merge */ d.ROWID\n"
    "    FROM RAG_DIRTY d\n"
    "    WHERE d.ATTEMPTS < :max_attempts\n"
    "      AND (d.NEXT_ATTEMPT_AT IS NULL OR d.NEXT_ATTEMPT_AT <= SYS_EXTRACT_UTC(SYSTIMESTAMP))\n"
    "    ORDER BY d.ENQUEUED_AT, d.DIRTY_ID\n"
    "    FETCH FIRST :claim_window ROWS ONLY)\n"
    "ORDER BY q.ENQUEUED_AT, q.DIRTY_ID\n"
    "FOR UPDATE SKIP LOCKED"
)
# source: FACTS.md §6 (delete claimed rows by primary key, executemany; §11.7 guard empty batches)
DELETE_DIRTY = "DELETE FROM RAG_DIRTY WHERE DIRTY_ID = :dirty_id"
# source: FACTS.md §10 (plain UPDATE; UTC timestamps from SYSTIMESTAMP); NUMTODSINTERVAL(n, 'SECOND')
#         [DOC sqlrf NUMTODSINTERVAL] — the row waits its backoff before the claim takes it again
RECORD_FAILURE = (
    "UPDATE RAG_DIRTY SET ATTEMPTS = ATTEMPTS + 1, LAST_ERROR = :last_error,"
    " LAST_ATTEMPT_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP),"
    " NEXT_ATTEMPT_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP) + NUMTODSINTERVAL(:retry_after_s, 'SECOND')"
    " WHERE DIRTY_ID = :dirty_id"
)
# source: FACTS.md §10 (plain UPDATE) — every failed row becomes claimable again
RETRY_STUCK = "UPDATE RAG_DIRTY SET ATTEMPTS = 0, NEXT_ATTEMPT_AT = NULL WHERE ATTEMPTS > 0"
# source: FACTS.md §10 (plain INSERT; identity and ENQUEUED_AT defaults)
ENQUEUE = "INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES (:source_type, :source_id, 'UPSERT')"

# --- status ---------------------------------------------------------------------------------

# source: FACTS.md §10 (UTC plain TIMESTAMP: SYS_EXTRACT_UTC(SYSTIMESTAMP); the age is computed in Python)
QUEUE_STATUS = (
    "SELECT COUNT(*), MIN(ENQUEUED_AT), SYS_EXTRACT_UTC(SYSTIMESTAMP),\n"
    "       COUNT(CASE WHEN ATTEMPTS > 0 THEN 1 END),\n"
    "       COUNT(CASE WHEN ATTEMPTS >= :max_attempts THEN 1 END)\n"
    "FROM RAG_DIRTY"
)
# source: FACTS.md §10 (GROUP BY in an inline view under a plain COUNT, as tracker_statements' group query) — the
#         entities waiting (issue 33): the rows of one (SOURCE_TYPE, SOURCE_ID) count once
QUEUE_ENTITIES = (
    "SELECT COUNT(*) FROM (SELECT SOURCE_TYPE, SOURCE_ID FROM RAG_DIRTY GROUP BY SOURCE_TYPE, SOURCE_ID)"
)
# source: FACTS.md §10 (plain aggregate) + REVIEW-2 W6 — the rows a claim could take now: the CLAIM subquery's
#         own predicate (stuck rows and rows in backoff are outside every claim window)
CLAIMABLE_COUNT = (
    "SELECT COUNT(*) FROM RAG_DIRTY\n"
    "WHERE ATTEMPTS < :max_attempts AND (NEXT_ATTEMPT_AT IS NULL OR NEXT_ATTEMPT_AT <= SYS_EXTRACT_UTC(SYSTIMESTAMP))"
)
# source: FACTS.md §10 (plain SELECT + FETCH FIRST without FOR UPDATE)
FAILING_ROWS = (
    "SELECT DIRTY_ID, SOURCE_TYPE, SOURCE_ID, ATTEMPTS, LAST_ERROR FROM RAG_DIRTY\n"
    "WHERE ATTEMPTS > 0 ORDER BY ATTEMPTS DESC, DIRTY_ID FETCH FIRST 50 ROWS ONLY"
)
# source: FACTS.md §10 (plain aggregate)
CHUNKS_BY_TYPE = "SELECT SOURCE_TYPE, COUNT(*) FROM RAG_CHUNK GROUP BY SOURCE_TYPE ORDER BY SOURCE_TYPE"

# --- chunks ---------------------------------------------------------------------------------

# source: FACTS.md §10 (plain DELETE) — a shrunk or deleted entity's chunks
DELETE_CHUNKS = (
    "DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id AND CHUNK_IX >= :from_ix"
)


# The upsert's match, update and insert, shared by both source forms (FACTS.md §7). EMBEDDING_MODEL (V15) records
# which model made the vector, for the model mark (model_mark.py).
_UPSERT_TAIL = (
    "ON (t.SOURCE_TYPE = s.SOURCE_TYPE AND t.SOURCE_ID = s.SOURCE_ID AND t.CHUNK_IX = s.CHUNK_IX)\n"
    "WHEN MATCHED THEN UPDATE SET\n"
    "    t.OWNER_EMPLOYEE_ID = s.OWNER_EMPLOYEE_ID, t.PROJECT_ID = s.PROJECT_ID, t.SPRINT_ID = s.SPRINT_ID,\n"
    "    t.DOC_TYPE = s.DOC_TYPE, t.CONTENT = s.CONTENT, t.CONTENT_HASH = s.CONTENT_HASH, t.EMBEDDING = s.EMBEDDING,\n"
    "    t.EMBEDDING_MODEL = s.EMBEDDING_MODEL, t.CONTENT_CHARS = LENGTH(s.CONTENT),\n"
    "    t.UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)\n"
    "  WHERE t.CONTENT_HASH <> s.CONTENT_HASH OR t.EMBEDDING IS NULL OR t.CONTENT_CHARS IS NULL\n"
    "     OR DECODE(t.OWNER_EMPLOYEE_ID, s.OWNER_EMPLOYEE_ID, 0, 1) = 1\n"
    "     OR DECODE(t.PROJECT_ID, s.PROJECT_ID, 0, 1) = 1\n"
    "     OR DECODE(t.SPRINT_ID, s.SPRINT_ID, 0, 1) = 1\n"
    "     OR DECODE(t.DOC_TYPE, s.DOC_TYPE, 0, 1) = 1\n"
    "     OR DECODE(t.EMBEDDING_MODEL, s.EMBEDDING_MODEL, 0, 1) = 1\n"
    "WHEN NOT MATCHED THEN INSERT\n"
    "    (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, OWNER_EMPLOYEE_ID, PROJECT_ID, SPRINT_ID, DOC_TYPE, CONTENT, CONTENT_HASH,\n"
    "     EMBEDDING, EMBEDDING_MODEL, CONTENT_CHARS)\n"
    "    VALUES (s.SOURCE_TYPE, s.SOURCE_ID, s.CHUNK_IX, s.OWNER_EMPLOYEE_ID, s.PROJECT_ID, s.SPRINT_ID, s.DOC_TYPE,\n"
    "            s.CONTENT, s.CONTENT_HASH, s.EMBEDDING, s.EMBEDDING_MODEL, LENGTH(s.CONTENT))"
)


def upsert_chunk(model_name: str) -> str:
    """MERGE one chunk, embedding it inside Oracle.

    Composed only of confirmed pieces: VECTOR_EMBEDDING in a SELECT list over a bind input (FACTS.md §2,
    DOC), a single-row dual source (§7), no ON column in SET (ORA-38104, §7) and the update WHERE after
    SET (§7). VECTOR_EMBEDDING inside MERGE SET/VALUES is unconfirmed, so the vector is made in the
    USING subquery and only copied in SET/VALUES. The WHERE skips unchanged text; metadata changes
    (owner, project, sprint, doc type: the access rule and scopes read them) still update, null-safely
    via DECODE.
    """
    model = checked_model(model_name)
    # source: FACTS.md §7 (MERGE rules) + §2 (VECTOR_EMBEDDING(<model> USING :bind AS data) in a SELECT list)
    return (
        "MERGE INTO RAG_CHUNK t\n"
        "USING (SELECT :source_type AS SOURCE_TYPE, :source_id AS SOURCE_ID, :chunk_ix AS CHUNK_IX,\n"
        "              :owner_employee_id AS OWNER_EMPLOYEE_ID, :project_id AS PROJECT_ID, :sprint_id AS SPRINT_ID,\n"
        "              :doc_type AS DOC_TYPE, :content AS CONTENT, :content_hash AS CONTENT_HASH,\n"
        f"              VECTOR_EMBEDDING({model} USING :content AS data) AS EMBEDDING,\n"
        "              :embedding_model AS EMBEDDING_MODEL\n"
        "       FROM dual) s\n"
        + _UPSERT_TAIL
    )


def upsert_chunk_bound() -> str:
    """The two-step upsert's MERGE: the vector arrives as an array('f') bind (:embedding), made before by
    ``embed_query``. The fallback when the doctor finds VECTOR_EMBEDDING refused inside a MERGE source.

    Same SET/WHERE/INSERT as ``upsert_chunk``; the source is the 23ai ``USING (VALUES (...)) s(...)``
    form that langchain-oracledb runs on a real database with a VECTOR bind (FACTS.md §7, §1).
    """
    # source: FACTS.md §7 (MERGE INTO t USING (VALUES (:1, ...)) s(id, embedding, ...) with executemany, CODE real DB)
    #         + §1 (array('f') bind with setinputsizes DB_TYPE_VECTOR, CODE real DB)
    return (
        "MERGE INTO RAG_CHUNK t\n"
        "USING (VALUES (:source_type, :source_id, :chunk_ix, :owner_employee_id, :project_id, :sprint_id, :doc_type,\n"
        "               :content, :content_hash, :embedding, :embedding_model))\n"
        "      s (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, OWNER_EMPLOYEE_ID, PROJECT_ID, SPRINT_ID, DOC_TYPE, CONTENT,\n"
        "         CONTENT_HASH, EMBEDDING, EMBEDDING_MODEL)\n"
        + _UPSERT_TAIL
    )


def chunk_hashes(source_type: str, ids: Sequence[int]) -> Statement:
    in_sql, binds = in_list("id", ids)
    # source: FACTS.md §10 (plain SELECT with named binds)
    return Statement(
        "SELECT SOURCE_ID, CHUNK_IX, CONTENT_HASH FROM RAG_CHUNK\n"
        f"WHERE SOURCE_TYPE = :source_type AND SOURCE_ID IN {in_sql}",
        {"source_type": source_type, **binds},
    )


# --- the worker's Oracle Text sync --------------------------------------------------------------


# source: FACTS.md §8B (CTX_DDL.SYNC_INDEX; implicit commit: run outside a unit of work) + REVIEW-2 W7 (DOC
#         26/ccref/sync_index.html `locking IN NUMBER DEFAULT LOCK_WAIT`; DOC 12.1 ccapp: LOCK_NOWAIT "returns
#         immediately without error" when another sync runs) — the worker's best effort never waits on the IRnn sync
SYNC_TEXT_INDEX = "BEGIN\n    CTX_DDL.SYNC_INDEX(idx_name => :idx_name, locking => CTX_DDL.LOCK_NOWAIT);\nEND;"

# --- the source rows a unit of work locks ----------------------------------------------------------

# (table, key, project column) per source type: fixed identifiers, never user input.
_SOURCE_TABLES = {
    "task": ("TASKS", "TASK_ID", "PROJECT_ID"),
    "sprint": ("SPRINTS", "SPRINT_ID", "PROJECT_ID"),
    "project": ("PROJECTS", "PROJECT_ID", "PROJECT_ID"),
    "doc": ("DOCUMENTS", "DOCUMENT_ID", "PROJECT_ID"),
}


def lock_sources(source_type: str, ids: Sequence[int]) -> Statement:
    """Lock the source rows a write derives from, so the re-read that guards against stale writes
    and the write itself see the same rows (an API UPDATE of one of them waits for the commit)."""
    table, key, _ = _SOURCE_TABLES[source_type]
    in_sql, binds = in_list("id", ids)
    # source: FACTS.md §6 (FOR UPDATE in a top-level SELECT without DISTINCT/GROUP BY/aggregates [DOC sqlrf])
    return Statement(f"SELECT {key} FROM {table} WHERE {key} IN {in_sql} FOR UPDATE", binds)


# --- backfill ---------------------------------------------------------------------------------


def backfill_ids(source_type: str, project_id: int | None, force: bool, limit: int | None) -> Statement:
    """Source ids to queue: those without chunks (every one with ``force``), oldest key first."""
    table, key, project_col = _SOURCE_TABLES[source_type]
    where: list[str] = []
    binds: dict[str, object] = {}
    if not force:
        where.append(
            "NOT EXISTS (SELECT 1 FROM RAG_CHUNK c WHERE c.SOURCE_TYPE = :source_type"
            f" AND c.SOURCE_ID = x.{key})"
        )
        binds["source_type"] = source_type
    if project_id is not None:
        where.append(f"x.{project_col} = :project_id")
        binds["project_id"] = project_id
    sql = f"SELECT x.{key} FROM {table} x"
    if where:
        sql += "\nWHERE " + "\n  AND ".join(where)
    sql += f"\nORDER BY x.{key}"
    if limit is not None:
        sql += "\nFETCH FIRST :max_rows ROWS ONLY"
        binds["max_rows"] = limit
    # source: FACTS.md §10 (plain SELECT; FETCH FIRST without FOR UPDATE is fine, §6)
    return Statement(sql, binds)
