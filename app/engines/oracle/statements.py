"""Every Oracle SQL/PL-SQL statement the engine sends, in one place.

Each statement is a named constant or a small builder, with the FACTS.md section it rests on
(../shared/oracle/FACTS.md; tests/oracle/golden/ holds the exact text of each, reviewed against it).
Only three kinds of text are ever spliced: the embedding model name (validated as a plain
identifier by app.config.Settings and again here), EntitySpec identifiers (validated at import by
app.entities), and fragments built here whose values travel as named binds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.config import PLAIN_IDENTIFIER
from app.domain import Caller, Scope
from app.entities import Condition, EntitySpec

VECTOR_INDEX = "RAG_CHUNK_EMB_IDX"
TEXT_INDEX = "RAG_CHUNK_TEXT_IDX"


def checked_model(model_name: str) -> str:
    """The model name as it may appear in SQL text: a plain, unquoted identifier (FACTS.md §2)."""
    if not PLAIN_IDENTIFIER.fullmatch(model_name):
        raise ValueError(f"model name {model_name!r} is not a plain identifier")
    return model_name.upper()


@dataclass(frozen=True)
class Statement:
    """SQL text plus its named binds (values only: never identifiers)."""

    sql: str
    binds: dict[str, object] = field(default_factory=dict)


# --- migrations runner ----------------------------------------------------------------------

# source: FACTS.md §10 (plain DDL; identity clause per sqlrf) — the runner's own bookkeeping table
CREATE_VERSION_TABLE = (
    "CREATE TABLE RAG_SCHEMA_VERSION (\n"
    "    VERSION     NUMBER(10) CONSTRAINT RAG_SCHEMA_VERSION_PK PRIMARY KEY,\n"
    "    DESCRIPTION VARCHAR2(200) NOT NULL,\n"
    "    APPLIED_AT  TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL\n"
    ")"
)
# source: FACTS.md §4 (USER_* dictionary views, as USER_INDEXES there) — does the version table exist?
VERSION_TABLE_EXISTS = "SELECT COUNT(*) FROM USER_TABLES WHERE TABLE_NAME = 'RAG_SCHEMA_VERSION'"
# source: FACTS.md §10 (plain SELECT) — versions already applied
APPLIED_VERSIONS = "SELECT VERSION FROM RAG_SCHEMA_VERSION ORDER BY VERSION"
# source: FACTS.md §10 (plain INSERT with binds) — record one applied version
RECORD_VERSION = "INSERT INTO RAG_SCHEMA_VERSION (VERSION, DESCRIPTION) VALUES (:version_no, :version_desc)"
# source: FACTS.md §4 (USER_* dictionary views) + REVIEW-3 U5 — a table's columns, when a migration's CREATE TABLE
#         or ALTER TABLE ADD meets ORA-00955 / ORA-01430: is the existing object the statement's own?
MIGRATION_TABLE_COLUMNS = "SELECT COLUMN_NAME FROM USER_TAB_COLUMNS WHERE TABLE_NAME = :table_name"
# source: FACTS.md §4 (USER_INDEXES, as VECTOR_INDEX_INFO) + REVIEW-3 U5 — the table an existing index is on
MIGRATION_INDEX_TABLE = "SELECT TABLE_NAME FROM USER_INDEXES WHERE INDEX_NAME = :index_name"
# source: FACTS.md §4 (a USER_* catalogue read, as USER_INDEXES above; the view: Oracle Reference USER_CONSTRAINTS) — the table
# an existing constraint is on (REVIEW-3 U5 for ALTER TABLE ... ADD CONSTRAINT, V16)
MIGRATION_CONSTRAINT_TABLE = "SELECT TABLE_NAME FROM USER_CONSTRAINTS WHERE CONSTRAINT_NAME = :constraint_name"
# source: FACTS.md §10 (DPY-7000 => read USER_ERRORS) — compilation errors after a warning
COMPILATION_ERRORS = (
    "SELECT NAME, TYPE, LINE, POSITION, TEXT FROM USER_ERRORS ORDER BY NAME, TYPE, SEQUENCE"
)

# --- model provisioning ---------------------------------------------------------------------

# source: FACTS.md §5 (Check existence: USER_MINING_MODELS, DOC refrn)
MODEL_EXISTS = "SELECT COUNT(*) FROM USER_MINING_MODELS WHERE MODEL_NAME = :model_name"
# The embedding metadata of an ONNX model: the default of the 26ai signatures, passed explicitly because the 23ai
# LOAD_ONNX_MODEL has no default for it (PLS-00306 on 23.4-23.x without it); both versions' examples pass it.
_METADATA_EMBEDDING = (
    "JSON('{\"function\" : \"embedding\", \"embeddingOutput\" : \"embedding\", \"input\": {\"input\": [\"DATA\"]}}')"
)
# source: FACTS.md §5 (LOAD_ONNX_MODEL from a directory object; names bindable) + REVIEW-2 W5 (DOC 23 and 26
#         vecse/load_onnx_model-procedure.html: `metadata JSON` without a default on 23ai)
LOAD_MODEL_DIRECTORY = (
    "BEGIN\n"
    "    DBMS_VECTOR.LOAD_ONNX_MODEL(directory => :dir_name, file_name => :file_name, model_name => :model_name,\n"
    f"        metadata => {_METADATA_EMBEDDING});\n"
    "END;"
)
# source: FACTS.md §5 (LOAD_ONNX_MODEL_CLOUD, DOC: pre-authenticated URI => credential NULL); the metadata both doc
#         versions default to, passed as their examples pass it (DOC 23 and 26 vecse/load_onnx_model_cloud.html)
LOAD_MODEL_CLOUD = (
    "BEGIN\n"
    "    DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD(model_name => :model_name, credential => NULL, uri => :model_uri,\n"
    f"        metadata => {_METADATA_EMBEDDING});\n"
    "END;"
)

# --- vector / text index maintenance --------------------------------------------------------

# source: FACTS.md §4 (DBMS_VECTOR.REBUILD_INDEX(idx_name => ...), DOC rebuild_index)
REBUILD_VECTOR_INDEX = "BEGIN\n    DBMS_VECTOR.REBUILD_INDEX(idx_name => :idx_name);\nEND;"
# source: FACTS.md §4 (USER_INDEXES index_type/index_subtype, DOC guidelines)
VECTOR_INDEX_INFO = (
    "SELECT INDEX_TYPE, INDEX_SUBTYPE, STATUS FROM USER_INDEXES WHERE INDEX_NAME = :index_name"
)
# source: FACTS.md §8B + REVIEW-2 W10 (DOC refrn ALL_INDEXES DOMIDX_STATUS/DOMIDX_OPSTATUS; a domain index whose
#         build failed keeps STATUS VALID with DOMIDX_OPSTATUS FAILED, ORA-29861 [DOC error-help])
TEXT_INDEX_INFO = (
    "SELECT INDEX_TYPE, STATUS, DOMIDX_STATUS, DOMIDX_OPSTATUS FROM USER_INDEXES WHERE INDEX_NAME = :index_name"
)
# source: FACTS.md §1 (VECTOR column fetched as array('f')) — a stored vector to probe the index with
SAMPLE_VECTOR = "SELECT EMBEDDING FROM RAG_CHUNK WHERE EMBEDDING IS NOT NULL FETCH FIRST 1 ROWS ONLY"
# source: FACTS.md §4 + §12.3 (INDEX_ACCURACY_QUERY is overloaded on its fifth parameter: named arguments pick
# the TARGET_ACCURACY NUMBER version, DOC 26/vecse/index_accuracy_query.html)
INDEX_ACCURACY = (
    "BEGIN\n"
    "    :report := DBMS_VECTOR.INDEX_ACCURACY_QUERY(owner_name => USER, index_name => :index_name, qv => :qv,\n"
    "        top_k => :top_k, target_accuracy => :target_accuracy);\n"
    "END;"
)
# source: FACTS.md §8B (CTX_DDL.SYNC_INDEX; implicit commit: run outside a unit of work) + REVIEW-2 W7 (DOC
#         26/ccref/sync_index.html `locking IN NUMBER DEFAULT LOCK_WAIT`; DOC 12.1 ccapp: LOCK_NOWAIT "returns
#         immediately without error" when another sync runs) — the worker's best effort never waits on the IRnn sync
SYNC_TEXT_INDEX = "BEGIN\n    CTX_DDL.SYNC_INDEX(idx_name => :idx_name, locking => CTX_DDL.LOCK_NOWAIT);\nEND;"
# source: FACTS.md §8B + REVIEW-2 W7 (DOC 26/ccref/sync_index.html `maxtime IN NUMBER`, minutes) — the erasure
#         purge must really sync, so it keeps the default LOCK_WAIT; maxtime bounds its own work, not its wait for a
#         running sync, which the connection's call timeout bounds (REVIEW-3 W3, erasure.PURGE_CALL_TIMEOUT_MS)
PURGE_SYNC_TEXT_INDEX = "BEGIN\n    CTX_DDL.SYNC_INDEX(idx_name => :idx_name, maxtime => :maxtime_min);\nEND;"
# source: FACTS.md §4 (rebuild fails on 0 vectors, DIA-51875) — count vectors before rebuilding
COUNT_VECTORS = "SELECT COUNT(*) FROM RAG_CHUNK WHERE EMBEDDING IS NOT NULL"

# --- health ---------------------------------------------------------------------------------

# source: FACTS.md §10 (plain INSERT with binds; rolled back at once) — readiness: the schema takes a write now
READY_PROBE = "INSERT INTO RAG_SETTINGS (SETTING_KEY, SETTING_VALUE) VALUES (:setting_key, 'probe')"

# --- people ---------------------------------------------------------------------------------

# source: FACTS.md §10 (plain SELECT by key) — the caller's role always comes from EMPLOYEES
CALLER_BY_ID = "SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id"
# source: FACTS.md §10 (plain SELECT by unique key)
CALLER_BY_TELEGRAM = "SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE TELEGRAM_ID = :telegram_id"

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


def embed_query(model_name: str) -> str:
    """The question's vector, from the model that embedded the chunks."""
    # source: FACTS.md §2 (SELECT VECTOR_EMBEDDING(<model> USING :text AS data) FROM dual, DOC)
    return f"SELECT VECTOR_EMBEDDING({checked_model(model_name)} USING :q AS data) FROM dual"


def _in_list(prefix: str, values: Sequence[object]) -> tuple[str, dict[str, object]]:
    """``(:p0, :p1, ...)`` and its binds; callers keep lists at or under 1000 (ORA-01795)."""
    if not values:
        raise ValueError("an IN list needs at least one value")
    names = [f"{prefix}{i}" for i in range(len(values))]
    return "(" + ", ".join(f":{n}" for n in names) + ")", dict(zip(names, values))


def chunk_hashes(source_type: str, ids: Sequence[int]) -> Statement:
    in_sql, binds = _in_list("id", ids)
    # source: FACTS.md §10 (plain SELECT with named binds)
    return Statement(
        "SELECT SOURCE_ID, CHUNK_IX, CONTENT_HASH FROM RAG_CHUNK\n"
        f"WHERE SOURCE_TYPE = :source_type AND SOURCE_ID IN {in_sql}",
        {"source_type": source_type, **binds},
    )


# --- source loading (chunk templates) ---------------------------------------------------------

# (table, key, project column) per source type: fixed identifiers, never user input.
_SOURCE_TABLES = {
    "task": ("TASKS", "TASK_ID", "PROJECT_ID"),
    "sprint": ("SPRINTS", "SPRINT_ID", "PROJECT_ID"),
    "project": ("PROJECTS", "PROJECT_ID", "PROJECT_ID"),
    "doc": ("DOCUMENTS", "DOCUMENT_ID", "PROJECT_ID"),
}


_LOAD_SOURCES = {
    # source: FACTS.md §10 (plain joins; CLOBs fetched as str with fetch_lobs off, §11.6)
    # a task also shows its reporter and its parent's key (the tracker's, else the parent task's own; V18):
    # a self-join of TASKS and NVL, plain SQL [DOC sqlrf NVL], as the V16 trigger's NVL
    "task": (
        "SELECT t.TASK_ID, t.TITLE, t.STATUS, t.PRIORITY, t.SPRINT_ID, s.NAME, t.PROJECT_ID, p.NAME,\n"
        "       t.ASSIGNEE_ID, e.FIRST_NAME, e.LAST_NAME, t.STORY_POINTS, t.ESTIMATED_HOURS,\n"
        "       t.EXPECTED_END_DATE, t.DESCRIPTION, t.EXTERNAL_KEY, t.ISSUE_TYPE, t.STATUS_NAME, t.LABELS,\n"
        "       t.FIX_VERSIONS, t.COMPONENTS, t.REPORTER_ID, r.FIRST_NAME, r.LAST_NAME, t.CREATED_AT,\n"
        "       t.RESOLVED_AT, t.RESOLUTION, t.AFFECTS_VERSIONS, t.ENVIRONMENT, NVL(t.PARENT_KEY, pt.EXTERNAL_KEY),\n"
        "       pt.TASK_ID, t.PRIORITY_NAME\n"
        "FROM TASKS t\n"
        "LEFT JOIN SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID\n"
        "LEFT JOIN PROJECTS p ON p.PROJECT_ID = t.PROJECT_ID\n"
        "LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = t.ASSIGNEE_ID\n"
        "LEFT JOIN EMPLOYEES r ON r.EMPLOYEE_ID = t.REPORTER_ID\n"
        "LEFT JOIN TASKS pt ON pt.TASK_ID = t.PARENT_ID\n"
        "WHERE t.TASK_ID IN "
    ),
    "sprint": (
        "SELECT s.SPRINT_ID, s.NAME, s.STATUS, s.PROJECT_ID, p.NAME, s.GOAL, s.START_DATE, s.END_DATE\n"
        "FROM SPRINTS s\n"
        "LEFT JOIN PROJECTS p ON p.PROJECT_ID = s.PROJECT_ID\n"
        "WHERE s.SPRINT_ID IN "
    ),
    "project": (
        "SELECT PROJECT_ID, NAME, STATUS, DESCRIPTION, START_DATE, END_DATE\n"
        "FROM PROJECTS\n"
        "WHERE PROJECT_ID IN "
    ),
    "doc": (
        "SELECT DOCUMENT_ID, TITLE, BODY, PROJECT_ID, OWNER_EMPLOYEE_ID, DOC_TYPE\n"
        "FROM DOCUMENTS\n"
        "WHERE DOCUMENT_ID IN "
    ),
}


def load_sources(source_type: str, ids: Sequence[int]) -> Statement:
    in_sql, binds = _in_list("id", ids)
    return Statement(_LOAD_SOURCES[source_type] + in_sql, binds)


def lock_sources(source_type: str, ids: Sequence[int]) -> Statement:
    """Lock the source rows a write derives from, so the re-read that guards against stale writes
    and the write itself see the same rows (an API UPDATE of one of them waits for the commit)."""
    table, key, _ = _SOURCE_TABLES[source_type]
    in_sql, binds = _in_list("id", ids)
    # source: FACTS.md §6 (FOR UPDATE in a top-level SELECT without DISTINCT/GROUP BY/aggregates [DOC sqlrf])
    return Statement(f"SELECT {key} FROM {table} WHERE {key} IN {in_sql} FOR UPDATE", binds)


def task_comments(task_ids: Sequence[int]) -> Statement:
    """Each comment with its author's name as the employee row has it now (none: no such employee)."""
    in_sql, binds = _in_list("id", task_ids)
    # source: FACTS.md §10 (plain SELECT with a LEFT JOIN, as _LOAD_SOURCES; BODY CLOB fetched as str, §11.6;
    #         CREATED_AT a TIMESTAMP fetched as a naive datetime)
    return Statement(
        "SELECT c.TASK_ID, c.BODY, c.AUTHOR_ID, e.FIRST_NAME, e.LAST_NAME, c.CREATED_AT\n"
        "FROM COMMENTS c\n"
        "LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = c.AUTHOR_ID\n"
        f"WHERE c.TASK_ID IN {in_sql}\n"
        "ORDER BY c.TASK_ID, c.CREATED_AT, c.COMMENT_ID",
        binds,
    )


def task_links(task_ids: Sequence[int]) -> Statement:
    in_sql, binds = _in_list("id", task_ids)
    # source: FACTS.md §10 (plain SELECT with named binds)
    return Statement(
        "SELECT TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID FROM TASK_LINKS\n"
        f"WHERE TASK_ID IN {in_sql}\n"
        "ORDER BY TASK_ID, LINK_TYPE, TARGET_KEY",
        binds,
    )


# --- imported rows (app/sources): ids by external key, a task's links, the sync cursors (V16) ------------

def find_by_external(entity: EntitySpec, keys: Sequence[str] | None) -> Statement:
    """``(external key, id)`` of one source's rows with these keys, or all of them (None: the sync's
    reconciliation); the caller binds :source_name too."""
    if entity.external is None:
        raise ValueError(f"{entity.name} keep no external key")
    select = f"SELECT {entity.external}, {entity.pk} FROM {entity.table}\nWHERE SOURCE = :source_name"
    if keys is None:
        # source: FACTS.md §10 (plain SELECT with a named bind; identifiers from EntitySpec only)
        return Statement(select)
    in_sql, binds = _in_list("k", keys)
    # source: FACTS.md §10 (plain SELECT with named binds; identifiers from EntitySpec only)
    return Statement(f"{select} AND {entity.external} IN {in_sql}", binds)


# source: FACTS.md §10 (plain SELECT by key)
TASK_SOURCE = "SELECT SOURCE FROM TASKS WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain SELECT by key)
LINKS_OF_TASK = "SELECT LINK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID FROM TASK_LINKS WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain INSERT; LINK_ID from the identity column, V16)
INSERT_LINK = (
    "INSERT INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID)\n"
    "VALUES (:task_id, :link_type, :target_key, :target_task_id)"
)
# source: FACTS.md §10 (plain UPDATE by key)
RETARGET_LINK = "UPDATE TASK_LINKS SET TARGET_TASK_ID = :target_task_id WHERE LINK_ID = :link_id"
# source: FACTS.md §10 (plain DELETE by key)
DELETE_LINK = "DELETE FROM TASK_LINKS WHERE LINK_ID = :link_id"
# source: FACTS.md §10 (plain SELECT by key)
READ_SYNC_CURSOR = "SELECT CURSOR_VALUE FROM SYNC_CURSORS WHERE SOURCE = :source_name"
# source: FACTS.md §7 (MERGE with a single-row dual source; no ON column in SET, ORA-38104) — as WRITE_SETTING
WRITE_SYNC_CURSOR = (
    "MERGE INTO SYNC_CURSORS t\n"
    "USING (SELECT :source_name AS SOURCE, :cursor_value AS CURSOR_VALUE FROM dual) s\n"
    "ON (t.SOURCE = s.SOURCE)\n"
    "WHEN MATCHED THEN UPDATE SET t.CURSOR_VALUE = s.CURSOR_VALUE, t.UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)\n"
    "WHEN NOT MATCHED THEN INSERT (SOURCE, CURSOR_VALUE) VALUES (s.SOURCE, s.CURSOR_VALUE)"
)
# source: FACTS.md §10 (plain SELECT; TASKS_EXTERNAL_KEY_IDX, V16) — questions name a key without its source
TASKS_BY_KEY = "SELECT TASK_ID FROM TASKS WHERE EXTERNAL_KEY = :external_key ORDER BY TASK_ID"


# --- a task's values (TASK_VALUES, V18): written with the task from the list its display CLOB is written from ------

def task_values(task_ids: Sequence[int]) -> Statement:
    """The values of these tasks (the reader orders them: app.engines.task_values.attach)."""
    in_sql, binds = _in_list("id", task_ids)
    # source: FACTS.md §10 (plain SELECT with named binds; TASK_VALUES_PK leads with TASK_ID)
    return Statement(f"SELECT TASK_ID, FIELD, VALUE FROM TASK_VALUES\nWHERE TASK_ID IN {in_sql}", binds)


# source: FACTS.md §10 (plain SELECT by key; TASK_VALUES_PK leads with TASK_ID)
VALUES_OF_TASK = "SELECT FIELD, VALUE FROM TASK_VALUES WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain INSERT of bound values) + §6 (executemany over rows; §11.7 the caller skips an empty batch)
INSERT_TASK_VALUE = "INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (:task_id, :field_name, :field_value)"
# source: FACTS.md §10 (plain DELETE by the primary key) + §6 (executemany; §11.7 the caller skips an empty batch)
DELETE_TASK_VALUE = ("DELETE FROM TASK_VALUES\n"
                     "WHERE TASK_ID = :task_id AND FIELD = :field_name AND VALUE = :field_value")
# The one-time backfill after V18 (app/engines/oracle/task_values.py): tasks with display text written before
# TASK_VALUES existed and no values yet, a keyset page at a time. CLOB IS NOT NULL and NOT EXISTS are plain SQL.
# source: FACTS.md §10 (plain SELECT, named binds; CLOBs fetched as str, §11.6) + §3 (FETCH FIRST :n ROWS ONLY)
TASK_VALUES_BACKFILL = (
    "SELECT t.TASK_ID, t.LABELS, t.COMPONENTS, t.FIX_VERSIONS, t.AFFECTS_VERSIONS FROM TASKS t\n"
    "WHERE t.TASK_ID > :after_id\n"
    "  AND (t.LABELS IS NOT NULL OR t.COMPONENTS IS NOT NULL OR t.FIX_VERSIONS IS NOT NULL\n"
    "       OR t.AFFECTS_VERSIONS IS NOT NULL)\n"
    "  AND NOT EXISTS (SELECT 1 FROM TASK_VALUES v WHERE v.TASK_ID = t.TASK_ID)\n"
    "ORDER BY t.TASK_ID\n"
    "FETCH FIRST :max_rows ROWS ONLY"
)


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


# --- CRUD (EntitySpec identifiers only; every value a bind) -----------------------------------

def _bind_name(column: str) -> str:
    # A prefix keeps bind names clear of reserved words (ORA-01745), whatever the column is called.
    return "v_" + column.lower()


def _lobs_last(entity: EntitySpec, columns: Sequence[str]) -> list[str]:
    """The columns with the CLOB ones last: a long CLOB value is a temporary LOB bind, and a VARCHAR2 bind declared past
    4,000 bytes after it would be ORA-24816, whose action is to put the LOB binds at the end (REVIEW-3 U1)."""
    return sorted(columns, key=lambda c: (entity.table, c) in LOB_COLUMNS)


def crud_insert(entity: EntitySpec, columns: Sequence[str]) -> str:
    entity.check_columns(columns)
    columns = _lobs_last(entity, columns)
    # source: FACTS.md §10 (identity keys) + python-oracledb RETURNING INTO an out variable [PYDOC] + REVIEW-3 U1
    #         (CLOB binds last)
    if not columns:
        return f"INSERT INTO {entity.table} ({entity.pk}) VALUES (NULL) RETURNING {entity.pk} INTO :new_id"
    cols = ", ".join(columns)
    vals = ", ".join(f":{_bind_name(c)}" for c in columns)
    return f"INSERT INTO {entity.table} ({cols}) VALUES ({vals}) RETURNING {entity.pk} INTO :new_id"


def crud_select(entity: EntitySpec) -> str:
    # source: FACTS.md §10 (plain SELECT by key)
    return f"SELECT {', '.join(entity.all_columns)} FROM {entity.table} WHERE {entity.pk} = :row_id"


# A list filter's predicate by operator (app.entities.Condition): the column is an EntitySpec identifier,
# the value a named bind "f_<filter name>". UPPER(col) = UPPER(:bind) as find_tasks matches labels; a
# Python date binds as DATE (FACTS.md §12.2) against the DATE column EXPECTED_END_DATE.
_FILTER = {"eq": "{c} = :{b}", "eq_ci": "UPPER({c}) = UPPER(:{b})", "null": "{c} IS NULL", "lt": "{c} < :{b}",
           "ge": "{c} >= :{b}"}


def _record_filter(entity: EntitySpec, conditions: Sequence[Condition]) -> tuple[list[str], dict[str, object]]:
    entity.check_conditions(conditions)
    predicates = [_FILTER[c.op].format(c=c.column, b=f"f_{c.name}") for c in conditions]
    return predicates, {f"f_{c.name}": c.value for c in conditions if c.op != "null"}


def crud_page(entity: EntitySpec, conditions: Sequence[Condition], after: int | None, limit: int) -> Statement:
    """The rows matching every condition past the key ``after``, by key: a keyset page of ``limit`` rows."""
    predicates, binds = _record_filter(entity, conditions)
    if after is not None:
        predicates.append(f"{entity.pk} > :after_id")
        binds["after_id"] = after
    binds["max_rows"] = limit
    where = ("WHERE " + "\n  AND ".join(predicates) + "\n") if predicates else ""
    # source: FACTS.md §10 (plain SELECT, values as named binds) + §3 (FETCH FIRST :n ROWS ONLY, as find_tasks)
    return Statement(f"SELECT {', '.join(entity.all_columns)} FROM {entity.table}\n{where}"
                     f"ORDER BY {entity.pk}\nFETCH FIRST :max_rows ROWS ONLY", binds)


def crud_count(entity: EntitySpec, conditions: Sequence[Condition]) -> Statement:
    predicates, binds = _record_filter(entity, conditions)
    where = ("\nWHERE " + "\n  AND ".join(predicates)) if predicates else ""
    # source: FACTS.md §10 (plain SELECT COUNT(*), values as named binds)
    return Statement(f"SELECT COUNT(*) FROM {entity.table}{where}", binds)


def crud_update(entity: EntitySpec, columns: Sequence[str]) -> str:
    entity.check_columns(columns)
    if not columns:
        raise ValueError("an UPDATE needs at least one column")
    sets = ", ".join(f"{c} = :{_bind_name(c)}" for c in _lobs_last(entity, columns))
    # source: FACTS.md §10 (plain UPDATE by key) + REVIEW-3 U1 (CLOB binds last)
    return f"UPDATE {entity.table} SET {sets} WHERE {entity.pk} = :row_id"


def crud_delete(entity: EntitySpec) -> str:
    # source: FACTS.md §10 (plain DELETE by key)
    return f"DELETE FROM {entity.table} WHERE {entity.pk} = :row_id"


def crud_binds(columns: Sequence[str], values: dict[str, object]) -> dict[str, object]:
    return {_bind_name(c): values[c] for c in columns}


# The TIMESTAMP columns CRUD writes from a bound value (V1: COMMENTS.CREATED_AT; V18: TASKS.CREATED_AT, UPDATED_AT,
# RESOLVED_AT); every other TIMESTAMP
# is set in SQL from SYSTIMESTAMP. tests/oracle/test_column_limits.py checks this set against the DDL.
TIMESTAMP_COLUMNS = frozenset({"CREATED_AT", "UPDATED_AT", "RESOLVED_AT"})


def crud_timestamp_binds(columns: Sequence[str]) -> tuple[str, ...]:
    # source: FACTS.md §12.2 (a datetime binds as DB_TYPE_DATE, losing fractional seconds;
    # cursor.setinputsizes(name=oracledb.DB_TYPE_TIMESTAMP) keeps them [PYDOC])
    return tuple(_bind_name(c) for c in columns if c in TIMESTAMP_COLUMNS)


# The CLOB columns CRUD writes (V1); tests/oracle/test_column_limits.py checks this set against the DDL. Their long
# values are bound as temporary CLOBs (records.clob_input_sizes), as are MESSAGES.CONTENT and PROJECTS.AUTO_SUMMARY.
LOB_COLUMNS = frozenset({("PROJECTS", "DESCRIPTION"), ("TASKS", "DESCRIPTION"), ("TASKS", "LABELS"),
                         ("TASKS", "FIX_VERSIONS"), ("TASKS", "COMPONENTS"), ("TASKS", "ENVIRONMENT"),
                         ("TASKS", "AFFECTS_VERSIONS"), ("COMMENTS", "BODY"), ("DOCUMENTS", "BODY")})


def crud_lob_binds(entity: EntitySpec, columns: Sequence[str]) -> tuple[str, ...]:
    # source: FACTS.md §11.6 (str into a CLOB) + REVIEW-2 U1 (cursor.setinputsizes(name=oracledb.DB_TYPE_CLOB) binds a
    # temporary LOB [PYDOC lob_data.rst; CODE python-oracledb tests/test_1900_lob_var.py 1906, 250,000 characters])
    return tuple(_bind_name(c) for c in columns if (entity.table, c) in LOB_COLUMNS)


# source: FACTS.md §10 (plain DELETE; children first, queue last because the deletes enqueue)
WIPE = tuple(
    f"DELETE FROM {table}"
    for table in ("MESSAGE_ENTITIES", "MESSAGES", "CONVERSATIONS", "COMMENTS", "TASK_LINKS", "TASKS", "DOCUMENTS",
                  "SPRINTS", "PROJECTS", "EMPLOYEES", "RAG_CHUNK", "RAG_DIRTY", "ERASURE_JOBS", "SYNC_CURSORS")
)

# --- search -----------------------------------------------------------------------------------

# The access rule of app/rag/access.py as one predicate: sprint/project chunks, organisation-wide
# documents, and what the caller owns (assigned tasks, own documents). Unassigned tasks: nobody.
ACCESS_PREDICATE = (
    "(SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL)"
    " OR OWNER_EMPLOYEE_ID = :caller_id)"
)


def search_filter(caller: Caller, scope: Scope) -> tuple[list[str], dict[str, object]]:
    """Access and scope predicates with their named binds; both empty for an unscoped manager."""
    predicates: list[str] = []
    binds: dict[str, object] = {}
    if not caller.sees_everything:
        predicates.append(ACCESS_PREDICATE)
        binds["caller_id"] = caller.employee_id
    if scope.project == "none":
        predicates.append("PROJECT_ID IS NULL")
    elif scope.project != "all":
        predicates.append("PROJECT_ID = :project_id")
        binds["project_id"] = scope.project
    if scope.sprint_id is not None:
        predicates.append("SPRINT_ID = :sprint_id")
        binds["sprint_id"] = scope.sprint_id
    if scope.source_types is not None:
        in_sql, st_binds = _in_list("st", scope.source_types)
        predicates.append(f"SOURCE_TYPE IN {in_sql}")
        binds.update(st_binds)
    if scope.doc_types is not None:
        in_sql, dt_binds = _in_list("dt", scope.doc_types)  # at most MAX_DOC_TYPES (app.rag.scope) binds
        # source: FACTS.md §10 (plain predicate, values as named binds) + §3 (one more attribute filter:
        #         a short FETCH APPROX falls back to FETCH EXACT) — narrows document chunks only
        predicates.append(f"(SOURCE_TYPE <> 'doc' OR DOC_TYPE IN {in_sql})")
        binds.update(dt_binds)
    return predicates, binds


def vector_search(caller: Caller, scope: Scope, exact: bool) -> tuple[str, dict[str, object]]:
    """Top :k chunks by cosine distance. Binds other than :qv and :k come back with the text."""
    predicates, binds = search_filter(caller, scope)
    where = ("WHERE " + "\n  AND ".join(predicates) + "\n") if predicates else ""
    fetch = "FETCH EXACT FIRST :k ROWS ONLY" if exact else "FETCH APPROX FIRST :k ROWS ONLY"
    # source: FACTS.md §3 (ORDER BY VECTOR_DISTANCE(col, :qv, COSINE) FETCH APPROX|EXACT FIRST :k ROWS ONLY, DOC;
    #         same metric as the index, not wrapped in another function)
    sql = (
        "SELECT SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, VECTOR_DISTANCE(EMBEDDING, :qv, COSINE) AS DISTANCE\n"
        "FROM RAG_CHUNK\n"
        f"{where}"
        "ORDER BY VECTOR_DISTANCE(EMBEDDING, :qv, COSINE)\n"
        f"{fetch}"
    )
    return sql, binds


def text_search(caller: Caller, scope: Scope) -> tuple[str, dict[str, object]]:
    """Top :n chunks by Oracle Text score, with their cosine distance to the question: the text arm's candidates,
    which search.py re-ranks by BM25 over the caller's own statistics (SCORE counts chunks they cannot see)."""
    predicates, binds = search_filter(caller, scope)
    where = "WHERE " + "\n  AND ".join(["CONTAINS(CONTENT, :tq, 1) > 0", *predicates]) + "\n"
    # source: FACTS.md §8B (CONTAINS(col, :q, 1) > 0 ORDER BY SCORE(1) DESC FETCH FIRST n ROWS ONLY, CODE text_search.py)
    sql = (
        "SELECT SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, VECTOR_DISTANCE(EMBEDDING, :qv, COSINE) AS DISTANCE\n"
        "FROM RAG_CHUNK\n"
        f"{where}"
        "ORDER BY SCORE(1) DESC\n"
        "FETCH FIRST :n ROWS ONLY"
    )
    return sql, binds


def text_statistics(caller: Caller) -> tuple[str, dict[str, object]]:
    """How many chunks the caller may see and their mean length in characters: the N and avgdl of the text arm's
    BM25, over the caller's visible set only (no scope: what is out of scope is still theirs to see). The length is
    the stored CONTENT_CHARS (V20, = LENGTH(CONTENT), written by both upsert forms): with RAG_CHUNK_STATS_IDX
    (SOURCE_TYPE, OWNER_EMPLOYEE_ID, CONTENT_CHARS) every column read is in one index (REVIEW-4 W1)."""
    where = "" if caller.sees_everything else f"\nWHERE {ACCESS_PREDICATE}"
    binds: dict[str, object] = {} if caller.sees_everything else {"caller_id": caller.employee_id}
    # source: FACTS.md §10 (plain aggregate, as ERASE_COUNT_MESSAGES; AVG of a NUMBER column [DOC sqlrf AVG]) over
    #         the searches' access predicate; index fast full scan [DOC TGSQL "Optimizer Access Paths"]
    return f"SELECT COUNT(*), AVG(CONTENT_CHARS) FROM RAG_CHUNK{where}", binds


def text_term_rows(caller: Caller) -> tuple[str, dict[str, object]]:
    """How many chunks the caller may see hold one term (:tq, the term in braces): the text arm's n(t)."""
    access = "" if caller.sees_everything else f"\n  AND {ACCESS_PREDICATE}"
    binds: dict[str, object] = {} if caller.sees_everything else {"caller_id": caller.employee_id}
    # source: FACTS.md §8B (SELECT COUNT(*) ... WHERE CONTAINS(col, :q) > 0, as PROOF_CONTAINS) + §12.4 (the term
    #         in braces) + the searches' access predicate
    return f"SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTAINS(CONTENT, :tq) > 0{access}", binds


# --- conversations (app/engines/oracle/conversations.py) ----------------------------------------

_conversation_columns = "CONVERSATION_ID, EMPLOYEE_ID, TITLE, RAG_SCOPE, PINNED_PROJECT_ID, CREATED_AT, UPDATED_AT"
_message_columns = ("MESSAGE_ID, CONVERSATION_ID, ROLE, CONTENT, CITATIONS, CREATED_AT, FOCUS, RETRIEVED, RAG_SCOPE, "
                    "LLM_ERROR, TRACKER_QUERY")

# source: FACTS.md §10 (identity key, defaults for the UTC timestamps) + RETURNING INTO an out variable, as crud_insert
INSERT_CONVERSATION = (
    "INSERT INTO CONVERSATIONS (EMPLOYEE_ID, TITLE, RAG_SCOPE, PINNED_PROJECT_ID)\n"
    "VALUES (:employee_id, :title, :rag_scope, :pinned_project_id) RETURNING CONVERSATION_ID INTO :new_id"
)
# source: FACTS.md §10 (plain SELECT by key; TIMESTAMP fetched as naive datetime)
GET_CONVERSATION = f"SELECT {_conversation_columns} FROM CONVERSATIONS WHERE CONVERSATION_ID = :conversation_id"
# source: FACTS.md §3 (FETCH FIRST :n ROWS ONLY, as find_tasks) — newest first, the first page
LIST_CONVERSATIONS = (
    f"SELECT {_conversation_columns} FROM CONVERSATIONS WHERE EMPLOYEE_ID = :employee_id\n"
    "ORDER BY UPDATED_AT DESC, CONVERSATION_ID DESC FETCH FIRST :max_rows ROWS ONLY"
)
# source: FACTS.md §3 (FETCH FIRST) + §10 (plain predicates; :after_updated bound twice by name, as :qv in the
#         searches; bound as DB_TYPE_TIMESTAMP, FACTS.md §12.2) — the page after (UPDATED_AT, CONVERSATION_ID)
LIST_CONVERSATIONS_AFTER = (
    f"SELECT {_conversation_columns} FROM CONVERSATIONS WHERE EMPLOYEE_ID = :employee_id\n"
    "  AND (UPDATED_AT < :after_updated OR (UPDATED_AT = :after_updated AND CONVERSATION_ID < :after_id))\n"
    "ORDER BY UPDATED_AT DESC, CONVERSATION_ID DESC FETCH FIRST :max_rows ROWS ONLY"
)
# source: FACTS.md §10 (plain SELECT COUNT(*))
COUNT_CONVERSATIONS = "SELECT COUNT(*) FROM CONVERSATIONS WHERE EMPLOYEE_ID = :employee_id"
# source: FACTS.md §10 (plain UPDATE by key; UTC timestamp from SYSTIMESTAMP); the pin is checked by the write
# itself: a pinned row changes only to its own project (a None bind, for "none"/"all", is NULL and matches none)
SET_CONVERSATION_SCOPE = (
    "UPDATE CONVERSATIONS SET RAG_SCOPE = :rag_scope, UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)\n"
    "WHERE CONVERSATION_ID = :conversation_id\n"
    "AND (PINNED_PROJECT_ID IS NULL OR PINNED_PROJECT_ID = :scope_project_id)"
)
# source: FACTS.md §10 (plain UPDATE by key; UTC timestamp from SYSTIMESTAMP) — a PATCH that pins or unpins
SET_CONVERSATION_PIN = (
    "UPDATE CONVERSATIONS SET RAG_SCOPE = :rag_scope, PINNED_PROJECT_ID = :pinned_project_id,\n"
    "UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP) WHERE CONVERSATION_ID = :conversation_id"
)
# source: FACTS.md §10 (plain UPDATE by key; UTC timestamp from SYSTIMESTAMP)
TOUCH_CONVERSATION = (
    "UPDATE CONVERSATIONS SET UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP) WHERE CONVERSATION_ID = :conversation_id"
)
# source: FACTS.md §10 (plain DELETE by key; the messages go by ON DELETE CASCADE, as COMMENTS in V1)
DELETE_CONVERSATION = "DELETE FROM CONVERSATIONS WHERE CONVERSATION_ID = :conversation_id"
# source: FACTS.md §10 (identity key) + §11.6/§12.1 (a str binds straight into the CLOB CONTENT) + REVIEW-3 U1
#         (CONTENT, a temporary CLOB when long, is the last bind: ORA-24816's action "re-order the binds so that the
#         LONG bind or LOB binds are all at the end of the bind list" [DOC error-help dia-24816 for the cause; the
#         action as the 10.2 message file words it, quoted at dbafan.com/blog/?p=269]); V13's and V19's columns are
#         VARCHAR2, bound before it
INSERT_MESSAGE = (
    "INSERT INTO MESSAGES (CONVERSATION_ID, ROLE, CITATIONS, FOCUS, RETRIEVED, RAG_SCOPE, LLM_ERROR, TRACKER_QUERY,"
    " CONTENT)\n"
    "VALUES (:conversation_id, :message_role, :citations, :focus, :retrieved, :used_scope, :llm_error,"
    " :tracker_query, :content)"
    " RETURNING MESSAGE_ID INTO :new_id"
)
# source: FACTS.md §10 (plain SELECT by key) + §11.6 (CLOB fetched as str: fetch_lobs = False)
GET_TURN = f"SELECT {_message_columns} FROM MESSAGES WHERE MESSAGE_ID IN (:user_id, :answer_id) ORDER BY MESSAGE_ID"
# source: FACTS.md §3 (FETCH FIRST :n ROWS ONLY) + §11.6 (CLOB fetched as str) — oldest first, past a message id
LIST_MESSAGES = (
    f"SELECT {_message_columns} FROM MESSAGES WHERE CONVERSATION_ID = :conversation_id AND MESSAGE_ID > :after_id\n"
    "ORDER BY MESSAGE_ID FETCH FIRST :max_rows ROWS ONLY"
)
# source: FACTS.md §10 (plain SELECT COUNT(*))
COUNT_MESSAGES = "SELECT COUNT(*) FROM MESSAGES WHERE CONVERSATION_ID = :conversation_id"
# source: FACTS.md §3 (FETCH FIRST n ROWS ONLY) + §11.6 — the newest n, newest first (reversed in Python)
RECENT_MESSAGES = (
    f"SELECT {_message_columns} FROM MESSAGES WHERE CONVERSATION_ID = :conversation_id\n"
    "ORDER BY MESSAGE_ID DESC FETCH FIRST :max_rows ROWS ONLY"
)

# source: FACTS.md §10 (plain INSERT of bound values) + §6 (one statement over rows with executemany; §11.7: the
#         caller skips an empty batch) — every entity an answer rests on (V17), in the turn's transaction
INSERT_MESSAGE_ENTITY = (
    "INSERT INTO MESSAGE_ENTITIES (MESSAGE_ID, SOURCE_TYPE, SOURCE_ID) VALUES (:message_id, :source_type, :source_id)"
)
# source: FACTS.md §10 (plain join, as ERASE_USER_MESSAGES; BETWEEN on the primary key's first column) — the
#         entities of one conversation's answers between two message ids (a page, the recent window)
MESSAGE_ENTITIES_BETWEEN = (
    "SELECT e.MESSAGE_ID, e.SOURCE_TYPE, e.SOURCE_ID FROM MESSAGE_ENTITIES e\n"
    "JOIN MESSAGES m ON m.MESSAGE_ID = e.MESSAGE_ID\n"
    "WHERE m.CONVERSATION_ID = :conversation_id AND e.MESSAGE_ID BETWEEN :first_id AND :last_id\n"
    "ORDER BY e.MESSAGE_ID, e.SOURCE_TYPE, e.SOURCE_ID"
)

# --- what the model's tools read ------------------------------------------------------------------

# source: FACTS.md §10 (plain SELECT) + §11.6 (DESCRIPTION and AUTO_SUMMARY CLOBs fetched as str)
PROJECTS_FOR_MATCHING = "SELECT PROJECT_ID, NAME, DESCRIPTION, AUTO_SUMMARY FROM PROJECTS ORDER BY PROJECT_ID"
# source: FACTS.md §10 (plain SELECT by key; TIMESTAMP fetched naive) + §11.6 (the AUTO_SUMMARY CLOB as str)
PROJECT_SUMMARY = "SELECT AUTO_SUMMARY, AUTO_SUMMARY_AT FROM PROJECTS WHERE PROJECT_ID = :project_id"
# source: FACTS.md §10 (plain UPDATE by key; UTC timestamp) + §12.1 (a str binds into the CLOB)
SET_PROJECT_SUMMARY = (
    "UPDATE PROJECTS SET AUTO_SUMMARY = :summary, AUTO_SUMMARY_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP),\n"
    "AUTO_SUMMARY_INPUTS = :summary_inputs WHERE PROJECT_ID = :project_id"
)
# source: FACTS.md §10 (plain SELECT; AUTO_SUMMARY_AT a plain UTC TIMESTAMP, fetched naive) + §11.6 (CLOBs as str)
SUMMARY_PROJECTS = (
    "SELECT PROJECT_ID, NAME, DESCRIPTION, AUTO_SUMMARY, AUTO_SUMMARY_AT, AUTO_SUMMARY_INPUTS\n"
    "FROM PROJECTS ORDER BY PROJECT_ID"
)
# source: FACTS.md §8 (ROW_NUMBER() OVER (ORDER BY ...) in an inline view, as the hybrid query ranks)
SUMMARY_TASKS = (
    "SELECT PROJECT_ID, TITLE, STATUS FROM (\n"
    "  SELECT PROJECT_ID, TASK_ID, TITLE, STATUS,\n"
    "         ROW_NUMBER() OVER (PARTITION BY PROJECT_ID ORDER BY TASK_ID DESC) AS RN\n"
    "  FROM TASKS WHERE PROJECT_ID IS NOT NULL)\n"
    "WHERE RN <= :max_tasks ORDER BY PROJECT_ID, TASK_ID DESC"
)
# source: FACTS.md §10 (plain SELECT) — the names a question may use (app/rag/task_questions.py)
VOCABULARY_PEOPLE = "SELECT EMPLOYEE_ID, FIRST_NAME, LAST_NAME FROM EMPLOYEES ORDER BY EMPLOYEE_ID"
# source: FACTS.md §10 (plain SELECT)
VOCABULARY_PROJECTS = "SELECT PROJECT_ID, NAME FROM PROJECTS ORDER BY PROJECT_ID"
# source: FACTS.md §10 (plain SELECT)
VOCABULARY_SPRINTS = "SELECT SPRINT_ID, NAME, PROJECT_ID FROM SPRINTS ORDER BY SPRINT_ID"


# --- erasure of an employee (app/engines/oracle/erasure.py) -------------------------------------

# source: FACTS.md §10 (plain SELECT by key) — the strings that will be erased, read before the deletes
ERASE_EMPLOYEE_ROW = (
    "SELECT FIRST_NAME, LAST_NAME, EMAIL, TELEGRAM_ID, EXTERNAL_ID FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id"
)
# source: FACTS.md §10 (plain SELECT; UPPER of VARCHAR2 [DOC sqlrf UPPER]; :first_name and :last_name each bound
#         twice by name, as :after_updated in LIST_CONVERSATIONS_AFTER) — other employees with the erased person's
#         first or last name as either of theirs: a lone name they share is not redacted (app.rag.erasure.lone_names)
ERASE_NAMESAKES = (
    "SELECT FIRST_NAME, LAST_NAME FROM EMPLOYEES WHERE EMPLOYEE_ID <> :employee_id\n"
    "  AND (UPPER(FIRST_NAME) IN (UPPER(:first_name), UPPER(:last_name))"
    " OR UPPER(LAST_NAME) IN (UPPER(:first_name), UPPER(:last_name)))"
)
# source: FACTS.md §10 (plain SELECT; BODY CLOB fetched as str, §11.6)
ERASE_AUTHORED_COMMENTS = (
    "SELECT COMMENT_ID, TASK_ID, BODY FROM COMMENTS WHERE AUTHOR_ID = :employee_id ORDER BY COMMENT_ID"
)
# source: FACTS.md §10 (plain SELECT; BODY CLOB fetched as str, §11.6)
ERASE_OWNED_DOCUMENTS = (
    "SELECT DOCUMENT_ID, TITLE, BODY FROM DOCUMENTS WHERE OWNER_EMPLOYEE_ID = :employee_id ORDER BY DOCUMENT_ID"
)
# source: FACTS.md §10 (plain SELECT)
ERASE_ASSIGNED_TASKS = "SELECT TASK_ID FROM TASKS WHERE ASSIGNEE_ID = :employee_id ORDER BY TASK_ID"
# source: FACTS.md §10 (plain DELETE; the COMMENTS row trigger queues each comment's task, V6)
ERASE_DELETE_COMMENTS = "DELETE FROM COMMENTS WHERE AUTHOR_ID = :employee_id"
# source: FACTS.md §10 (plain DELETE; the DOCUMENTS row trigger queues each document's DELETE, V6)
ERASE_DELETE_DOCUMENTS = "DELETE FROM DOCUMENTS WHERE OWNER_EMPLOYEE_ID = :employee_id"
# source: FACTS.md §10 (plain UPDATE; the DOCUMENTS row trigger queues each document, V6)
ERASE_REASSIGN_DOCUMENTS = (
    "UPDATE DOCUMENTS SET OWNER_EMPLOYEE_ID = :reassign_to WHERE OWNER_EMPLOYEE_ID = :employee_id"
)
# source: FACTS.md §10 (plain UPDATE; the TASKS row trigger queues each task, V6)
ERASE_UNASSIGN_TASKS = "UPDATE TASKS SET ASSIGNEE_ID = NULL WHERE ASSIGNEE_ID = :employee_id"
# source: FACTS.md §10 (plain SELECT; UNION of two indexed lookups, TASKS_REPORTER_IDX / TASKS_RESOLVED_BY_IDX, V18)
ERASE_REFERENCING_TASKS = ("SELECT TASK_ID FROM TASKS WHERE REPORTER_ID = :employee_id\nUNION\n"
                           "SELECT TASK_ID FROM TASKS WHERE RESOLVED_BY_ID = :employee_id\nORDER BY 1")
# source: FACTS.md §10 (plain UPDATE; the TASKS row trigger queues each task, V6) — the reporter, as the assignee
ERASE_CLEAR_REPORTER = "UPDATE TASKS SET REPORTER_ID = NULL WHERE REPORTER_ID = :employee_id"
# source: FACTS.md §10 (plain UPDATE; the TASKS row trigger queues each task, V6)
ERASE_CLEAR_RESOLVER = "UPDATE TASKS SET RESOLVED_BY_ID = NULL WHERE RESOLVED_BY_ID = :employee_id"
# source: FACTS.md §10 (plain DELETE by key; nothing references the row any more)
ERASE_DELETE_EMPLOYEE = "DELETE FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id"

# source: FACTS.md §10 (plain SELECT) — the employee's conversation titles, read before the delete
ERASE_CONVERSATION_TITLES = (
    "SELECT CONVERSATION_ID, TITLE FROM CONVERSATIONS WHERE EMPLOYEE_ID = :employee_id ORDER BY CONVERSATION_ID"
)
# source: FACTS.md §10 (plain join) + §11.6 (CONTENT CLOB fetched as str) — what the employee typed
ERASE_USER_MESSAGES = (
    "SELECT m.MESSAGE_ID, m.CONTENT FROM MESSAGES m JOIN CONVERSATIONS c ON c.CONVERSATION_ID = m.CONVERSATION_ID\n"
    "WHERE c.EMPLOYEE_ID = :employee_id AND m.ROLE = 'user' ORDER BY m.MESSAGE_ID"
)
# source: FACTS.md §10 (plain aggregate over a join)
ERASE_COUNT_MESSAGES = (
    "SELECT COUNT(*) FROM MESSAGES m JOIN CONVERSATIONS c ON c.CONVERSATION_ID = m.CONVERSATION_ID\n"
    "WHERE c.EMPLOYEE_ID = :employee_id"
)
# source: FACTS.md §10 (plain DELETE; their messages go by ON DELETE CASCADE, V10)
ERASE_DELETE_CONVERSATIONS = "DELETE FROM CONVERSATIONS WHERE EMPLOYEE_ID = :employee_id"

# --- the erasure job row (V14 ERASURE_JOBS), written with the deletes, advanced step by step ---------

ERASURE_COLUMNS = "EMPLOYEE_ID, STEP, DOCUMENTS, REPORT, OUTCOME, VERDICT, HELD, STARTED_AT, UPDATED_AT"
# source: FACTS.md §11.6 (str binds straight into CLOB columns, bytes into BLOB ones, up to 1 GB, for INSERT
#         [PYDOC lob_data.rst: "LOB data can be inserted in the table by binding strings or bytes"]) + §10
ERASURE_INSERT = (
    "INSERT INTO ERASURE_JOBS (EMPLOYEE_ID, STEP, DOCUMENTS, REPORT, OUTCOME, HELD)\n"
    "VALUES (:employee_id, 'delete', :documents, :report, :outcome, :held)"
)
# source: FACTS.md §10 (plain SELECT by key) + §11.6 (CLOB fetched as str and BLOB as bytes with fetch_lobs False)
ERASURE_SELECT = f"SELECT {ERASURE_COLUMNS}\nFROM ERASURE_JOBS WHERE EMPLOYEE_ID = :employee_id"
# source: FACTS.md §10 (plain SELECT) + §11.6
ERASURE_UNFINISHED = f"SELECT {ERASURE_COLUMNS}\nFROM ERASURE_JOBS WHERE STEP <> 'forget' ORDER BY EMPLOYEE_ID"
# source: FACTS.md §11.6 (str into a CLOB by UPDATE) + §10 (SYS_EXTRACT_UTC(SYSTIMESTAMP) as every UPDATED_AT)
ERASURE_RECORD_STEP = (
    "UPDATE ERASURE_JOBS SET STEP = :step, OUTCOME = :outcome, VERDICT = :verdict,\n"
    "       UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)\n"
    "WHERE EMPLOYEE_ID = :employee_id"
)
# source: FACTS.md §10 (plain UPDATE by key)
ERASURE_FORGET = (
    "UPDATE ERASURE_JOBS SET HELD = NULL, UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP) WHERE EMPLOYEE_ID = :employee_id"
)


def redact_candidates(table: str, key: str, column: str) -> str:
    """Rows whose column holds the bound pattern, a needle of at most 160 characters (so well inside a
    VARCHAR2 bind); identifiers from app.rag.erasure.REDACT_PLACES only."""
    # source: FACTS.md §10 (plain SELECT) + the UPPER(col) LIKE UPPER(:pattern) ESCAPE '\' shape of proof_count
    #         (REVIEW-2 U8: LIKE on a CLOB, run by the conformance suite's Oracle leg)
    return f"SELECT {key}, {column} FROM {table}\nWHERE UPPER({column}) LIKE UPPER(:pattern) ESCAPE '\\'"


def redact_update(table: str, key: str, column: str) -> str:
    # source: FACTS.md §11.6 (str into a CLOB or VARCHAR2 column by UPDATE) + §10 (by key)
    return f"UPDATE {table} SET {column} = :redacted WHERE {key} = :row_id"

# source: FACTS.md §8B (CTX_DDL procedures on the search index; implicit commit like SYNC_INDEX: run
#         outside a unit of work) + DOC 26/ccref/optimize_index.html ("Full mode compacts data and removes
#         rows"; optimize after sync). The named parameters idx_name/optlevel are from the ccref
#         OPTIMIZE_INDEX syntax of 8.1.6 and 9.0.1 (idx_name IN VARCHAR2, optlevel IN VARCHAR2, maxtime ...);
#         the 26ai page's syntax block itself was not retrieved: unconfirmed on 26ai until run there.
OPTIMIZE_TEXT_INDEX = "BEGIN\n    CTX_DDL.OPTIMIZE_INDEX(idx_name => :idx_name, optlevel => 'FULL');\nEND;"

# The proof searches these text columns: (table, columns, holds the tracker's own data). A string
# found in a source table is still present legitimately; the conversation tables are the employee's
# own data, which the erasure deletes.
PROOF_TABLES: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("EMPLOYEES", ("FIRST_NAME", "LAST_NAME", "EMAIL", "TELEGRAM_ID"), True),
    ("PROJECTS", ("NAME", "DESCRIPTION"), True),
    ("SPRINTS", ("NAME", "GOAL"), True),
    ("TASKS", ("TITLE", "DESCRIPTION"), True),
    ("COMMENTS", ("BODY",), True),
    ("DOCUMENTS", ("TITLE", "BODY", "DOC_TYPE"), True),
    ("RAG_CHUNK", ("CONTENT",), False),
    ("RAG_DIRTY", ("LAST_ERROR",), False),
    ("CONVERSATIONS", ("TITLE",), False),
    ("MESSAGES", ("CONTENT", "CITATIONS", "TRACKER_QUERY"), False),
    ("PROJECTS", ("AUTO_SUMMARY",), False),  # written by the LLM, not the tracker's own data
)


# The longest LIKE pattern the proof binds, in UTF-8 bytes: a bind value past the maximum VARCHAR2 (4,000 bytes) is
# ORA-01461 inside UPPER()/LIKE (REVIEW-2 W1); one below it is a legal bind however thin declares it (REVIEW-3 C1,
# records.LONG_BIND_BYTES). A longer text is searched by its pieces (app.rag.erasure.pieces), never whole.
PROOF_PATTERN_MAX_BYTES = 3900


def proof_count(table: str, columns: Sequence[str]) -> str:
    """Per column, the rows holding the bound pattern (case-insensitive; CLOB columns too)."""
    counts = ",\n       ".join(
        f"COUNT(CASE WHEN UPPER({c}) LIKE UPPER(:pattern) ESCAPE '\\' THEN 1 END)" for c in columns
    )
    # source: FACTS.md §10 (plain SELECT; COUNT(CASE WHEN ... THEN 1 END) as in QUEUE_STATUS) + REVIEW-2 W1 (the
    #         bound pattern stays within PROOF_PATTERN_MAX_BYTES)
    return f"SELECT {counts}\nFROM {table}"


def proof_values(table: str, column: str) -> str:
    """The values of one column that hold the bound pattern: a name found by proof_count is then judged
    as whole words in Python (app.rag.erasure.PersonString), so "Ana Silvana" is not "Ana Silva"."""
    # source: FACTS.md §10 (plain SELECT) + the UPPER(col) LIKE UPPER(:pattern) ESCAPE '\' shape of proof_count
    return f"SELECT {column} FROM {table}\nWHERE UPPER({column}) LIKE UPPER(:pattern) ESCAPE '\\'"


# The Text index's token tables: $I (the inverted list) and, when the index stages new rows (STAGE_ITAB), $G, which
# has the $I columns (DOC 12.1 ccapp "STAGE_ITAB": "$G table and $H B-tree index are equivalent to $I and $X").
# DR$<index>$I with TOKEN_TEXT (uppercase by default) is read in public code on real databases; that a 26ai SEARCH
# INDEX keeps the name is what the doctor's "text tokens" check proves (REVIEW-2 W9).
TEXT_TOKEN_TABLES = (f"DR${TEXT_INDEX}$G", f"DR${TEXT_INDEX}$I")

# source: FACTS.md §4 (USER_* dictionary views, as VERSION_TABLE_EXISTS) + REVIEW-2 W9 — which token tables exist
TEXT_TOKEN_TABLES_PRESENT = (
    "SELECT TABLE_NAME FROM USER_TABLES WHERE TABLE_NAME IN (:g_table, :i_table) ORDER BY TABLE_NAME"
)


def text_tokens(table: str, words: Sequence[str]) -> Statement:
    """Which of ``words`` the token table holds (the lexer uppercases tokens; Oracle's UPPER matches it)."""
    if table not in TEXT_TOKEN_TABLES:
        raise ValueError(f"{table!r} is not a token table of {TEXT_INDEX}")
    if not words:
        raise ValueError("no words to look up")
    in_list = ", ".join(f"UPPER(:w{i})" for i in range(len(words)))  # at most app.rag.erasure.words' limit
    # source: FACTS.md §8B + REVIEW-2 W9 (DR$<index>$I.TOKEN_TEXT, the index's own table in the app schema; after a
    #         FULL optimize it holds no deleted row's tokens [DOC 26/ccref/optimize_index.html]) + REVIEW-3 U3 (word
    #         tokens only, TOKEN_TYPE 0; the doctor's "text token case" proves they are upper-cased)
    return Statement(f"SELECT DISTINCT TOKEN_TEXT FROM {table} WHERE TOKEN_TYPE = 0 AND TOKEN_TEXT IN ({in_list})",
                     {f"w{i}": w for i, w in enumerate(words)})


# source: FACTS.md §8B + REVIEW-3 U3 (the $I table's TOKEN_TEXT/TOKEN_TYPE, as text_tokens reads them; ROWNUM bounds
#         the sample) — the proof looks tokens up by UPPER(word): of a sample of word tokens, how many are not upper
DOCTOR_TOKEN_CASE = (
    "SELECT COUNT(*), COUNT(CASE WHEN TOKEN_TEXT <> UPPER(TOKEN_TEXT) THEN 1 END)\n"
    f"FROM (SELECT TOKEN_TEXT FROM {TEXT_TOKEN_TABLES[1]} WHERE TOKEN_TYPE = 0 AND ROWNUM <= :max_rows)"
)


# source: FACTS.md §8B (CONTAINS(col, :q) > 0 over the search index) + §12.4 and REVIEW-2 U2 (the term in braces, the
#         documented escape the search path uses) — live chunks holding a word the token table still has
PROOF_CONTAINS = "SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTAINS(CONTENT, :tq) > 0"


# --- settings proved by `ragctl oracle doctor` (V12 RAG_SETTINGS) ---------------------------------
# --- and the model mark (model_mark.py: RAG_SETTINGS rows + RAG_CHUNK.EMBEDDING_MODEL, V15) --------------

# source: FACTS.md §10 (plain SELECT) + scalar subqueries in a SELECT list [DOC sqlrf "Scalar Subquery Expressions"]
#         — the mark, the swap target and whether any chunk is stored, in one round trip
READ_MODEL_MARK = (
    "SELECT (SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :mark_key),\n"
    "       (SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :target_key),\n"
    "       (SELECT COUNT(*) FROM RAG_CHUNK WHERE ROWNUM = 1)\n"
    "FROM dual"
)
# source: FACTS.md §10 (plain SELECT; ROWNUM = 1 stops at the first row) — is a chunk left that another model made?
#         NULL: written before V15, by the legacy model
OTHER_MODEL_CHUNK = (
    "SELECT COUNT(*) FROM RAG_CHUNK WHERE NVL(EMBEDDING_MODEL, :legacy_model) <> :embedding_model AND ROWNUM = 1"
)
# source: FACTS.md §6 (FOR UPDATE in a top-level SELECT without DISTINCT/GROUP BY/aggregates [DOC sqlrf], as
#         lock_sources) + REVIEW-3 W1 — writers ending a swap take turns: the check after it sees the other's commit
LOCK_MODEL_TARGET = "SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :target_key FOR UPDATE"
# source: FACTS.md §10 (plain DELETE by key) — the swap target, once the swap ends
DELETE_SETTING = "DELETE FROM RAG_SETTINGS WHERE SETTING_KEY = :setting_key"

# source: FACTS.md §10 (plain SELECT by key)
READ_SETTING = "SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :setting_key"
# source: FACTS.md §7 (MERGE with a single-row dual source; no ON column in SET, ORA-38104); ORA-00001 when two
#         sessions insert the same new key is absorbed by rerunning it (model_mark.write_setting, REVIEW-3 W1)
WRITE_SETTING = (
    "MERGE INTO RAG_SETTINGS t\n"
    "USING (SELECT :setting_key AS SETTING_KEY, :setting_value AS SETTING_VALUE FROM dual) s\n"
    "ON (t.SETTING_KEY = s.SETTING_KEY)\n"
    "WHEN MATCHED THEN UPDATE SET t.SETTING_VALUE = s.SETTING_VALUE, t.UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)\n"
    "WHEN NOT MATCHED THEN INSERT (SETTING_KEY, SETTING_VALUE) VALUES (s.SETTING_KEY, s.SETTING_VALUE)"
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


# --- `ragctl oracle doctor` (app/services/oracle_doctor*.py) -------------------------------------
# The doctor also runs the engine's own statements (upsert_chunk, CLAIM, vector_search, text_search,
# SYNC_TEXT_INDEX, MODEL_EXISTS, VECTOR_INDEX_INFO, embed_query): these are only its scaffolding.
# Scratch rows use negative SOURCE_IDs (identity ids are positive), so a leftover is recognisable
# and harmless: a worker that claims one finds no source and deletes no chunk.

# source: FACTS.md §1 (cursor.description[i].vector_dimensions after execute, PYDOC) — the column's dimensions
DOCTOR_EMBEDDING_COLUMN = "SELECT EMBEDDING FROM RAG_CHUNK WHERE 1 = 0"
# source: FACTS.md §1 (VECTOR fetched as array('f')) + REVIEW-3 U2 — the scratch chunks the upsert check wrote
DOCTOR_SCRATCH_CHUNKS = (
    "SELECT CHUNK_IX, EMBEDDING FROM RAG_CHUNK WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id\n"
    "ORDER BY CHUNK_IX"
)
# source: FACTS.md §10 (plain SELECT) — the committed scratch queue rows of the claim check
DOCTOR_SCRATCH_DIRTY = "SELECT DIRTY_ID FROM RAG_DIRTY WHERE SOURCE_ID < 0 ORDER BY DIRTY_ID"
# source: FACTS.md §6 (FOR UPDATE SKIP LOCKED without a row limit: rows others hold are skipped) — from a
#         third connection, the scratch rows nobody holds; the rest are what the workers locked
DOCTOR_UNLOCKED_SCRATCH = "SELECT DIRTY_ID FROM RAG_DIRTY WHERE SOURCE_ID < 0 FOR UPDATE SKIP LOCKED"
# source: FACTS.md §10 (plain DELETE) — scratch queue rows, also a crashed earlier run's
DOCTOR_DELETE_SCRATCH_DIRTY = "DELETE FROM RAG_DIRTY WHERE SOURCE_ID < 0"
# source: FACTS.md §10 (plain aggregate) — a developer to search as
DOCTOR_DEVELOPER = "SELECT MIN(EMPLOYEE_ID) FROM EMPLOYEES WHERE ROLE = 'DEVELOPER'"
# source: FACTS.md §3 (IVF plans: the index shows as its VECTOR$...$IVF_FLAT_CENTROID* tables, DOC
#         vecse/optimizer-plans-ivf-vector-indexes.html, inverted-file-flat-vector-indexes-partitioning-schemes.html)
#         + DOC arpls DBMS_XPLAN.DISPLAY_CURSOR (no argument: the session's last cursor; needs SELECT on
#         V$SQL_PLAN, V$SESSION, V$SQL_PLAN_STATISTICS_ALL, e.g. SELECT_CATALOG_ROLE) — not in FACTS.md
DOCTOR_PLAN = "SELECT PLAN_TABLE_OUTPUT FROM TABLE(DBMS_XPLAN.DISPLAY_CURSOR())"
# source: FACTS.md §10 (identity key; RETURNING INTO an out variable, as crud_insert) — scratch rows of the
#         trigger checks, always rolled back
DOCTOR_INSERT_PROJECT = "INSERT INTO PROJECTS (NAME) VALUES (:project_name) RETURNING PROJECT_ID INTO :new_id"
# source: FACTS.md §10 (identity key; RETURNING INTO)
DOCTOR_INSERT_EMPLOYEE = "INSERT INTO EMPLOYEES (FIRST_NAME) VALUES (:first_name) RETURNING EMPLOYEE_ID INTO :new_id"
# source: FACTS.md §10 (identity key; RETURNING INTO) — a nullable sprint, as CRUD binds None into a NUMBER column
DOCTOR_INSERT_TASK = (
    "INSERT INTO TASKS (TITLE, PROJECT_ID, SPRINT_ID, ASSIGNEE_ID) VALUES (:title, :project_id, :sprint_id, :assignee_id)\n"
    "RETURNING TASK_ID INTO :new_id"
)
# source: FACTS.md §10 (identity key; RETURNING INTO) — a scratch sprint for the sprint-delete cascade (REVIEW-2 U3)
DOCTOR_INSERT_SPRINT = (
    "INSERT INTO SPRINTS (NAME, PROJECT_ID) VALUES (:sprint_name, :project_id) RETURNING SPRINT_ID INTO :new_id"
)
# source: FACTS.md §10 (plain INSERT; EMBEDDING left NULL) — a scratch source's chunk, for the V9 access triggers
DOCTOR_INSERT_CHUNK = (
    "INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, OWNER_EMPLOYEE_ID, PROJECT_ID, SPRINT_ID, CONTENT,\n"
    "                       CONTENT_HASH)\n"
    "VALUES (:source_type, :source_id, 0, :owner_employee_id, :project_id, :sprint_id, :content, :content_hash)"
)
# source: FACTS.md §10 (plain UPDATE; fires TASKS_RAG_DIRTY_TRG)
DOCTOR_UPDATE_TASK = "UPDATE TASKS SET TITLE = :title WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain INSERT; fires COMMENTS_RAG_DIRTY_TRG)
DOCTOR_INSERT_COMMENT = "INSERT INTO COMMENTS (TASK_ID, AUTHOR_ID, BODY) VALUES (:task_id, :author_id, :body)"
# source: FACTS.md §10 (plain UPDATE; fires PROJECTS_RAG_DIRTY_TRG, which queues the project's tasks)
DOCTOR_RENAME_PROJECT = "UPDATE PROJECTS SET NAME = :project_name WHERE PROJECT_ID = :project_id"
# source: FACTS.md §10 (plain UPDATE; fires TASKS_RAG_ACCESS_TRG, V9)
DOCTOR_REASSIGN_TASK = "UPDATE TASKS SET ASSIGNEE_ID = :assignee_id WHERE TASK_ID = :task_id"
# source: FACTS.md §10 (plain aggregate; the transaction's own uncommitted rows are visible to it)
DOCTOR_DIRTY_COUNT = (
    "SELECT COUNT(*) FROM RAG_DIRTY\n"
    "WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id AND ACTION = :dirty_action"
)
# source: FACTS.md §10 (plain SELECT) — who may see a scratch source's chunk now, and its scope columns
DOCTOR_CHUNK_STATE = (
    "SELECT OWNER_EMPLOYEE_ID, PROJECT_ID, SPRINT_ID FROM RAG_CHUNK WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id"
)
# source: FACTS.md §8B + REVIEW-2 U4 (CTX_DDL.OPTIMIZE_INDEX(idx_name, optlevel, maxtime), "When you specify 0 for
#         maxtime, Oracle performs minimal optimization" [DOC ccref 8.1.6]) — the purge's call, kept short
DOCTOR_OPTIMIZE_TEXT_INDEX = (
    "BEGIN\n    CTX_DDL.OPTIMIZE_INDEX(idx_name => :idx_name, optlevel => 'FULL', maxtime => 0);\nEND;"
)


# --- the doctor's REVIEW-4 §4 steps (app/services/oracle_doctor_review4.py) ----------------------------

# source: FACTS.md §10 (plain SELECT) — the scratch tasks' links, after INSERT_LINK / RETARGET_LINK / DELETE_LINK and
#         a task delete's cascades (V16: CASCADE on TASK_ID, SET NULL on TARGET_TASK_ID)
DOCTOR_LINKS = (
    "SELECT LINK_ID, TASK_ID, TARGET_TASK_ID FROM TASK_LINKS WHERE TASK_ID IN (:task_a, :task_b) ORDER BY LINK_ID"
)
# source: FACTS.md §10 (plain UPDATE by key; fires EMPLOYEES_RAG_DIRTY_TRG, V16/V20: REVIEW-4 U1)
DOCTOR_RENAME_EMPLOYEE = "UPDATE EMPLOYEES SET FIRST_NAME = :first_name WHERE EMPLOYEE_ID = :employee_id"
# The constraints V16 adds to the five imported tables (REVIEW-4 §4 step 6).
V16_CONSTRAINTS = tuple(f"{table}_EXTERNAL_{kind}" for table in ("TASKS", "EMPLOYEES", "PROJECTS", "SPRINTS", "COMMENTS")
                        for kind in ("CK", "UK"))
# source: FACTS.md §4 (USER_* dictionary views, as MIGRATION_CONSTRAINT_TABLE; STATUS and VALIDATED columns
#         [DOC refrn USER_CONSTRAINTS]) — the V16 constraints present, enabled and validated
DOCTOR_V16_CONSTRAINTS = (
    "SELECT CONSTRAINT_NAME, STATUS, VALIDATED FROM USER_CONSTRAINTS\n"
    f"WHERE CONSTRAINT_NAME IN ({', '.join(repr(name) for name in V16_CONSTRAINTS)}) ORDER BY CONSTRAINT_NAME"
)
# source: DOC arpls DBMS_SESSION.SLEEP (18c+, seconds) in an anonymous block, as INDEX_ACCURACY — the call-timeout
#         probe's slow call (REVIEW-3 C7 on the real server and network path)
DOCTOR_SLEEP = "BEGIN\n    DBMS_SESSION.SLEEP(:seconds);\nEND;"
# source: FACTS.md §10 (plain SELECT) — the same connection still answers after its call was cut
DOCTOR_DUAL = "SELECT 1 FROM dual"
# source: REVIEW-4 C11 ($I word tokens: TOKEN_TYPE = 0; TOKEN_COUNT the documents of the row) + ROWNUM over an ordered
#         inline view [DOC sqlrf ROWNUM], as DOCTOR_TOKEN_CASE — the index's most frequent word, the text arm's worst term
DOCTOR_TOP_TOKEN = (
    "SELECT TOKEN_TEXT FROM (\n"
    f"    SELECT TOKEN_TEXT, SUM(TOKEN_COUNT) AS DOCS FROM {TEXT_TOKEN_TABLES[1]} WHERE TOKEN_TYPE = 0\n"
    "    GROUP BY TOKEN_TEXT ORDER BY DOCS DESC)\n"
    "WHERE ROWNUM = 1"
)
# source: FACTS.md §10 (plain DELETE with a scalar subquery) — `ragctl oracle migration-rerun` (REVIEW-4 U2): the
#         newest version forgotten, as a run that died before its version row leaves it
DELETE_NEWEST_VERSION = "DELETE FROM RAG_SCHEMA_VERSION WHERE VERSION = (SELECT MAX(VERSION) FROM RAG_SCHEMA_VERSION)"
# source: FACTS.md §4 (USER_* dictionary views) — the schema's objects and columns, before and after the rerun
CATALOGUE_OBJECTS = (
    "SELECT OBJECT_TYPE, OBJECT_NAME, STATUS FROM USER_OBJECTS WHERE OBJECT_NAME NOT LIKE 'BIN$%'\n"
    "ORDER BY OBJECT_TYPE, OBJECT_NAME"
)
# source: FACTS.md §4 (USER_* dictionary views)
CATALOGUE_COLUMNS = (
    "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, NULLABLE FROM USER_TAB_COLUMNS ORDER BY TABLE_NAME, COLUMN_ID"
)
