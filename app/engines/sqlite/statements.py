"""Every SQL statement the SQLite engine sends, in one place (the twin of oracle/statements.py).

Named constants, or small builders where a statement depends on a count of binds or on an
EntitySpec. Only two kinds of text are ever spliced: EntitySpec identifiers (validated at import
by app.entities) and fragments built here from fixed text and ``?`` marks; every value is bound.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.entities import Condition, EntitySpec

NOW = "strftime('%Y-%m-%dT%H:%M:%f', 'now')"


def marks(items: Sequence[object]) -> str:
    """``?, ?, ?`` for an IN list of these items."""
    return ", ".join("?" * len(items))


# --- connection and schema --------------------------------------------------------------------

# secure_delete: freed pages and cells are overwritten with zeros, so deleted text does not linger
# in the file until a VACUUM (the erasure proof reads the raw bytes).
PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON",
           "PRAGMA secure_delete = ON")
CREATE_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS SCHEMA_VERSION (
    VERSION    INTEGER PRIMARY KEY,
    NAME       TEXT NOT NULL,
    CHECKSUM   TEXT NOT NULL,
    APPLIED_AT TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now'))
)
"""
VERSION_TABLE_EXISTS = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'SCHEMA_VERSION'"
APPLIED_VERSIONS = "SELECT VERSION, CHECKSUM FROM SCHEMA_VERSION"
RECORD_VERSION = "INSERT INTO SCHEMA_VERSION (VERSION, NAME, CHECKSUM) VALUES (?, ?, ?)"
FOREIGN_KEY_CHECK = "PRAGMA foreign_key_check"

WIPE_TABLES = ("MESSAGE_ENTITIES", "MESSAGES", "CONVERSATIONS", "COMMENTS", "TASK_LINKS", "TASKS", "SPRINTS",
               "DOCUMENTS", "PROJECT_MEMBERS", "PROJECTS", "EMPLOYEES", "RAG_CHUNK", "RAG_VEC", "RAG_DIRTY", "RAG_CHUNK_CHANGES",
               "ERASURE_JOBS", "SYNC_CURSORS")
WIPE = tuple(f"DELETE FROM {table}" for table in WIPE_TABLES)
# A new epoch tells every process's vector index to reload from scratch.
BUMP_EPOCH = "UPDATE RAG_META SET VALUE = VALUE + 1 WHERE KEY = 'epoch'"

# --- people -----------------------------------------------------------------------------------

CALLER_BY_ID = "SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE EMPLOYEE_ID = ?"
CALLER_BY_TELEGRAM = "SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE TELEGRAM_ID = ?"

# --- CRUD (identifiers only from EntitySpec) ----------------------------------------------------


def crud_insert(entity: EntitySpec, columns: Sequence[str]) -> str:
    select = ", ".join(entity.all_columns)
    if not columns:
        return f"INSERT INTO {entity.table} DEFAULT VALUES RETURNING {select}"
    return (f"INSERT INTO {entity.table} ({', '.join(columns)}) VALUES ({marks(columns)}) "
            f"RETURNING {select}")


def crud_select(entity: EntitySpec) -> str:
    return f"SELECT {', '.join(entity.all_columns)} FROM {entity.table} WHERE {entity.pk} = ?"


# A list filter's predicate by operator (app.entities.Condition); the column is an EntitySpec identifier.
_FILTER = {"eq": "{c} = ?", "eq_ci": "UPPER({c}) = UPPER(?)", "null": "{c} IS NULL", "lt": "{c} < ?",
           "ge": "{c} >= ?"}


def _where(entity: EntitySpec, conditions: Sequence[Condition]) -> tuple[list[str], list[object]]:
    entity.check_conditions(conditions)
    return ([_FILTER[c.op].format(c=c.column) for c in conditions],
            [c.value for c in conditions if c.op != "null"])


def crud_page(entity: EntitySpec, conditions: Sequence[Condition], after: int | None) -> tuple[str, list[object]]:
    """The rows matching every condition past the key ``after``, by key; the caller appends LIMIT's bind."""
    predicates, binds = _where(entity, conditions)
    if after is not None:
        predicates.append(f"{entity.pk} > ?")
        binds.append(after)
    where = f" WHERE {' AND '.join(predicates)}" if predicates else ""
    return (f"SELECT {', '.join(entity.all_columns)} FROM {entity.table}{where} ORDER BY {entity.pk} LIMIT ?",
            binds)


def crud_count(entity: EntitySpec, conditions: Sequence[Condition]) -> tuple[str, list[object]]:
    predicates, binds = _where(entity, conditions)
    where = f" WHERE {' AND '.join(predicates)}" if predicates else ""
    return f"SELECT COUNT(*) FROM {entity.table}{where}", binds


def crud_update(entity: EntitySpec, columns: Sequence[str]) -> str:
    return (f"UPDATE {entity.table} SET {', '.join(f'{c} = ?' for c in columns)} WHERE {entity.pk} = ? "
            f"RETURNING {', '.join(entity.all_columns)}")


def crud_delete(entity: EntitySpec) -> str:
    return f"DELETE FROM {entity.table} WHERE {entity.pk} = ?"


# --- queue --------------------------------------------------------------------------------------

# Rows that failed wait NEXT_ATTEMPT_AT (exponential backoff) so they never hold up the queue's head.
CLAIM = ("SELECT DIRTY_ID, SOURCE_TYPE, SOURCE_ID, ACTION, ATTEMPTS FROM RAG_DIRTY WHERE ATTEMPTS < ? "
         f"AND (NEXT_ATTEMPT_AT IS NULL OR NEXT_ATTEMPT_AT <= {NOW}) "
         "ORDER BY ENQUEUED_AT, DIRTY_ID LIMIT ?")
ENQUEUE_UPSERT = "INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES (?, ?, 'UPSERT')"


def delete_dirty(ids: Sequence[int]) -> str:
    return f"DELETE FROM RAG_DIRTY WHERE DIRTY_ID IN ({marks(ids)})"


RECORD_FAILURE = (
    f"UPDATE RAG_DIRTY SET ATTEMPTS = ATTEMPTS + 1, LAST_ERROR = ?, LAST_ATTEMPT_AT = {NOW}, "
    "NEXT_ATTEMPT_AT = strftime('%Y-%m-%dT%H:%M:%f', 'now', printf('%+.3f seconds', ?)) WHERE DIRTY_ID = ?"
)

RETRY_STUCK = "UPDATE RAG_DIRTY SET ATTEMPTS = 0, NEXT_ATTEMPT_AT = NULL WHERE ATTEMPTS > 0"

# source type -> (table, primary key, column holding its project for backfill filters)
SOURCE_TABLES: dict[str, tuple[str, str, str]] = {
    "task": ("TASKS", "TASK_ID", "PROJECT_ID"),
    "sprint": ("SPRINTS", "SPRINT_ID", "PROJECT_ID"),
    "project": ("PROJECTS", "PROJECT_ID", "PROJECT_ID"),
    "doc": ("DOCUMENTS", "DOCUMENT_ID", "PROJECT_ID"),
}


def backfill_select(source_type: str, project: bool, force: bool, limited: bool) -> str:
    """``SELECT :st, id, 'UPSERT'`` over the rows to queue; binds :st, :project, :room."""
    table, pk, project_column = SOURCE_TABLES[source_type]
    where = ["1 = 1"]
    if project:
        where.append(f"s.{project_column} = :project")
    if not force:
        where.append(f"NOT EXISTS (SELECT 1 FROM RAG_CHUNK c WHERE c.SOURCE_TYPE = :st AND c.SOURCE_ID = s.{pk})")
        where.append(f"NOT EXISTS (SELECT 1 FROM RAG_DIRTY d WHERE d.SOURCE_TYPE = :st AND d.SOURCE_ID = s.{pk})")
    select = f"SELECT :st, s.{pk}, 'UPSERT' FROM {table} s WHERE {' AND '.join(where)} ORDER BY s.{pk}"
    return select + " LIMIT :room" if limited else select


def backfill_count(select: str) -> str:
    return f"SELECT COUNT(*) FROM ({select})"


def backfill_insert(select: str) -> str:
    return f"INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) {select}"


# --- chunks -------------------------------------------------------------------------------------


def chunk_hashes(ids: Sequence[int]) -> str:
    return ("SELECT SOURCE_ID, CHUNK_IX, CONTENT_HASH FROM RAG_CHUNK "
            f"WHERE SOURCE_TYPE = ? AND SOURCE_ID IN ({marks(ids)})")


UPSERT_CHUNK = (
    "INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, OWNER_EMPLOYEE_ID, PROJECT_ID, SPRINT_ID,"
    " DOC_TYPE, AUDIENCE, CONTENT, CONTENT_HASH) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (SOURCE_TYPE, SOURCE_ID, CHUNK_IX) DO UPDATE SET"
    " OWNER_EMPLOYEE_ID = excluded.OWNER_EMPLOYEE_ID, PROJECT_ID = excluded.PROJECT_ID,"
    " SPRINT_ID = excluded.SPRINT_ID, DOC_TYPE = excluded.DOC_TYPE, AUDIENCE = excluded.AUDIENCE,"
    f" CONTENT = excluded.CONTENT, CONTENT_HASH = excluded.CONTENT_HASH, UPDATED_AT = {NOW} "
    "RETURNING CHUNK_ID"
)
DELETE_VECTOR = "DELETE FROM RAG_VEC WHERE CHUNK_ID = ?"
INSERT_VECTOR = "INSERT INTO RAG_VEC (CHUNK_ID, EMBEDDING, AUDIENCE, SOURCE_TYPE) VALUES (?, ?, ?, ?)"
DELETE_CHUNKS = "DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = ? AND SOURCE_ID = ? AND CHUNK_IX >= ?"

# --- the change log that keeps every process's in-memory vector index fresh --------------------

MAX_CHANGE_SEQ = "SELECT IFNULL(MAX(SEQ), 0) FROM RAG_CHUNK_CHANGES"
PRUNED_THROUGH = "SELECT VALUE FROM RAG_META WHERE KEY = 'pruned_through'"
PRUNE_CHANGES = "DELETE FROM RAG_CHUNK_CHANGES WHERE SEQ <= ?"
SET_PRUNED_THROUGH = "UPDATE RAG_META SET VALUE = ? WHERE KEY = 'pruned_through'"
INDEX_POSITION = (
    "SELECT (SELECT VALUE FROM RAG_META WHERE KEY = 'epoch'),"
    " (SELECT IFNULL(MAX(SEQ), 0) FROM RAG_CHUNK_CHANGES),"
    " (SELECT VALUE FROM RAG_META WHERE KEY = 'pruned_through')"
)
CHANGED_CHUNKS = "SELECT DISTINCT CHUNK_ID FROM RAG_CHUNK_CHANGES WHERE SEQ > ? AND SEQ <= ?"


def index_metadata(ids: Sequence[int] | None) -> str:
    where = "" if ids is None else f" WHERE CHUNK_ID IN ({marks(ids)})"
    return "SELECT CHUNK_ID, AUDIENCE, SOURCE_TYPE, PROJECT_ID, SPRINT_ID, DOC_TYPE FROM RAG_CHUNK" + where


def index_vectors(ids: Sequence[int] | None) -> str:
    where = "" if ids is None else f" WHERE CHUNK_ID IN ({marks(ids)})"
    return "SELECT CHUNK_ID, EMBEDDING FROM RAG_VEC" + where


# RAG_FTS's CREATE statement: the in-memory lexical index stems its terms iff RAG_FTS uses porter.
FTS_DEFINITION = "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'RAG_FTS'"


def lexical_rows(ids: Sequence[int] | None) -> str:
    """What the in-memory lexical index keeps of a chunk: its filter attributes and its text."""
    where = "" if ids is None else f" WHERE CHUNK_ID IN ({marks(ids)})"
    return "SELECT CHUNK_ID, AUDIENCE, SOURCE_TYPE, PROJECT_ID, SPRINT_ID, DOC_TYPE, CONTENT FROM RAG_CHUNK" + where


# --- read path ----------------------------------------------------------------------------------


# The chunks of the tasks the tracker restricts (TASKS.RESTRICTED, V17): under the project rule no membership grants
# them. CROSS JOIN keeps TASKS outer (https://sqlite.org/optoverview.html#crossjoin): TASKS_RESTRICTED_IDX lists the
# few restricted tasks and the RAG_CHUNK key finds their chunks, instead of a scan of every task chunk.
WITHHELD_CHUNKS = ("SELECT c.CHUNK_ID FROM TASKS t CROSS JOIN RAG_CHUNK c"
                   " WHERE t.RESTRICTED = 1 AND c.SOURCE_TYPE = 'task' AND c.SOURCE_ID = t.TASK_ID")


def hit_rows(ids: Sequence[int]) -> str:
    return f"SELECT CHUNK_ID, SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT FROM RAG_CHUNK WHERE CHUNK_ID IN ({marks(ids)})"


# --- status -------------------------------------------------------------------------------------

# Rows, the oldest row's age, failing and stuck rows, and the entities waiting (issue 33: rows left from before a
# pass, or queued by each write of one entity, count once), in one statement: one snapshot.
QUEUE_STATUS = (
    "SELECT COUNT(*), (julianday('now') - julianday(MIN(ENQUEUED_AT))) * 86400.0,"
    " COUNT(*) FILTER (WHERE ATTEMPTS > 0), COUNT(*) FILTER (WHERE ATTEMPTS >= ?),"
    " (SELECT COUNT(*) FROM (SELECT 1 FROM RAG_DIRTY GROUP BY SOURCE_TYPE, SOURCE_ID)) FROM RAG_DIRTY"
)
FAILING_ROWS = ("SELECT DIRTY_ID, SOURCE_TYPE, SOURCE_ID, ATTEMPTS, LAST_ERROR FROM RAG_DIRTY WHERE ATTEMPTS > 0 "
                "ORDER BY ATTEMPTS DESC, DIRTY_ID LIMIT ?")
CHUNKS_BY_TYPE = "SELECT SOURCE_TYPE, COUNT(*) FROM RAG_CHUNK GROUP BY SOURCE_TYPE"


# --- conversations (app/engines/sqlite/conversations.py) -----------------------------------------

CONVERSATION_COLUMNS = ("CONVERSATION_ID, EMPLOYEE_ID, TITLE, RAG_SCOPE, PINNED_PROJECT_ID, CREATED_AT,"
                        " UPDATED_AT")
MESSAGE_COLUMNS = ("MESSAGE_ID, CONVERSATION_ID, ROLE, CONTENT, CITATIONS, CREATED_AT, FOCUS, RETRIEVED, RAG_SCOPE, LLM_ERROR,"
                   " TRACKER_QUERY")
INSERT_CONVERSATION = ("INSERT INTO CONVERSATIONS (EMPLOYEE_ID, TITLE, RAG_SCOPE, PINNED_PROJECT_ID) "
                       f"VALUES (?, ?, ?, ?) RETURNING {CONVERSATION_COLUMNS}")
GET_CONVERSATION = f"SELECT {CONVERSATION_COLUMNS} FROM CONVERSATIONS WHERE CONVERSATION_ID = ?"
# Newest first; a later page starts below the (UPDATED_AT, CONVERSATION_ID) of the previous page's last row.
LIST_CONVERSATIONS = (f"SELECT {CONVERSATION_COLUMNS} FROM CONVERSATIONS WHERE EMPLOYEE_ID = ? "
                      "ORDER BY UPDATED_AT DESC, CONVERSATION_ID DESC LIMIT ?")
LIST_CONVERSATIONS_AFTER = (
    f"SELECT {CONVERSATION_COLUMNS} FROM CONVERSATIONS WHERE EMPLOYEE_ID = ? "
    "AND (UPDATED_AT < ? OR (UPDATED_AT = ? AND CONVERSATION_ID < ?)) "
    "ORDER BY UPDATED_AT DESC, CONVERSATION_ID DESC LIMIT ?")
COUNT_CONVERSATIONS = "SELECT COUNT(*) FROM CONVERSATIONS WHERE EMPLOYEE_ID = ?"
# A pinned conversation keeps its project: the write itself checks the pin (a read before it could be stale).
SET_CONVERSATION_SCOPE = (f"UPDATE CONVERSATIONS SET RAG_SCOPE = ?, UPDATED_AT = {NOW} WHERE CONVERSATION_ID = ? "
                          f"AND (PINNED_PROJECT_ID IS NULL OR PINNED_PROJECT_ID = ?) RETURNING {CONVERSATION_COLUMNS}")
SET_CONVERSATION_PIN = (f"UPDATE CONVERSATIONS SET RAG_SCOPE = ?, PINNED_PROJECT_ID = ?, UPDATED_AT = {NOW} "
                        f"WHERE CONVERSATION_ID = ? RETURNING {CONVERSATION_COLUMNS}")
TOUCH_CONVERSATION = f"UPDATE CONVERSATIONS SET UPDATED_AT = {NOW} WHERE CONVERSATION_ID = ?"
DELETE_CONVERSATION = "DELETE FROM CONVERSATIONS WHERE CONVERSATION_ID = ?"  # messages: ON DELETE CASCADE
INSERT_MESSAGE = ("INSERT INTO MESSAGES (CONVERSATION_ID, ROLE, CONTENT, CITATIONS, FOCUS, RETRIEVED, RAG_SCOPE,"
                  f" LLM_ERROR, TRACKER_QUERY) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {MESSAGE_COLUMNS}")
LIST_MESSAGES = (f"SELECT {MESSAGE_COLUMNS} FROM MESSAGES WHERE CONVERSATION_ID = ? AND MESSAGE_ID > ? "
                 "ORDER BY MESSAGE_ID LIMIT ?")
COUNT_MESSAGES = "SELECT COUNT(*) FROM MESSAGES WHERE CONVERSATION_ID = ?"
# The newest n, newest first (reversed in Python): MESSAGES_CONVERSATION_IDX serves both orders.
RECENT_MESSAGES = f"SELECT {MESSAGE_COLUMNS} FROM MESSAGES WHERE CONVERSATION_ID = ? ORDER BY MESSAGE_ID DESC LIMIT ?"
# Every entity an answer rests on (V12); read for the messages of one conversation between two ids (a page,
# the recent window), in the order TurnFacts keeps them. The primary key (MESSAGE_ID first) serves the range.
INSERT_MESSAGE_ENTITY = "INSERT INTO MESSAGE_ENTITIES (MESSAGE_ID, SOURCE_TYPE, SOURCE_ID) VALUES (?, ?, ?)"
MESSAGE_ENTITIES_BETWEEN = (
    "SELECT e.MESSAGE_ID, e.SOURCE_TYPE, e.SOURCE_ID FROM MESSAGE_ENTITIES e "
    "JOIN MESSAGES m ON m.MESSAGE_ID = e.MESSAGE_ID WHERE m.CONVERSATION_ID = ? AND e.MESSAGE_ID BETWEEN ? AND ? "
    "ORDER BY e.MESSAGE_ID, e.SOURCE_TYPE, e.SOURCE_ID")

# --- what the model's tools read ----------------------------------------------------------------

PROJECTS_FOR_MATCHING = "SELECT PROJECT_ID, NAME, DESCRIPTION, AUTO_SUMMARY FROM PROJECTS ORDER BY PROJECT_ID"
PROJECT_SUMMARY = "SELECT AUTO_SUMMARY, AUTO_SUMMARY_AT FROM PROJECTS WHERE PROJECT_ID = ?"
SET_PROJECT_SUMMARY = (f"UPDATE PROJECTS SET AUTO_SUMMARY = ?, AUTO_SUMMARY_AT = {NOW}, AUTO_SUMMARY_INPUTS = ? "
                       "WHERE PROJECT_ID = ?")
# The summary job's input: every project with its stored summary, and each project's newest tasks.
SUMMARY_PROJECTS = ("SELECT PROJECT_ID, NAME, DESCRIPTION, AUTO_SUMMARY, AUTO_SUMMARY_AT, AUTO_SUMMARY_INPUTS "
                    "FROM PROJECTS ORDER BY PROJECT_ID")
SUMMARY_TASKS = (
    "SELECT PROJECT_ID, TITLE, STATUS FROM (SELECT PROJECT_ID, TASK_ID, TITLE, STATUS, "
    "ROW_NUMBER() OVER (PARTITION BY PROJECT_ID ORDER BY TASK_ID DESC) AS RN FROM TASKS WHERE PROJECT_ID IS NOT NULL) "
    "WHERE RN <= ? ORDER BY PROJECT_ID, TASK_ID DESC"
)
# The names a question may use (app/rag/task_questions.py): people, projects, sprints.
VOCABULARY_PEOPLE = "SELECT EMPLOYEE_ID, FIRST_NAME, LAST_NAME FROM EMPLOYEES ORDER BY EMPLOYEE_ID"
VOCABULARY_PROJECTS = "SELECT PROJECT_ID, NAME FROM PROJECTS ORDER BY PROJECT_ID"
VOCABULARY_SPRINTS = "SELECT SPRINT_ID, NAME, PROJECT_ID FROM SPRINTS ORDER BY SPRINT_ID"


# --- erasure of an employee's conversations -------------------------------------------------------

ERASE_CONVERSATION_TITLES = "SELECT CONVERSATION_ID, TITLE FROM CONVERSATIONS WHERE EMPLOYEE_ID = ? ORDER BY CONVERSATION_ID"
ERASE_USER_MESSAGES = (
    "SELECT m.MESSAGE_ID, m.CONTENT FROM MESSAGES m JOIN CONVERSATIONS c ON c.CONVERSATION_ID = m.CONVERSATION_ID "
    "WHERE c.EMPLOYEE_ID = ? AND m.ROLE = 'user' ORDER BY m.MESSAGE_ID"
)
ERASE_COUNT_MESSAGES = ("SELECT COUNT(*) FROM MESSAGES m JOIN CONVERSATIONS c ON c.CONVERSATION_ID = m.CONVERSATION_ID "
                        "WHERE c.EMPLOYEE_ID = ?")
ERASE_DELETE_CONVERSATIONS = "DELETE FROM CONVERSATIONS WHERE EMPLOYEE_ID = ?"  # messages: ON DELETE CASCADE


# --- erasure of an employee (app/engines/sqlite/erasure.py) -------------------------------------

ERASE_EMPLOYEE_ROW = ("SELECT FIRST_NAME, LAST_NAME, EMAIL, TELEGRAM_ID, EXTERNAL_ID FROM EMPLOYEES"
                      " WHERE EMPLOYEE_ID = ?")
ERASE_AUTHORED_COMMENTS = "SELECT COMMENT_ID, TASK_ID, BODY FROM COMMENTS WHERE AUTHOR_ID = ? ORDER BY COMMENT_ID"
ERASE_OWNED_DOCUMENTS = "SELECT DOCUMENT_ID, TITLE, BODY FROM DOCUMENTS WHERE OWNER_EMPLOYEE_ID = ? ORDER BY DOCUMENT_ID"
ERASE_ASSIGNED_TASKS = "SELECT TASK_ID FROM TASKS WHERE ASSIGNEE_ID = ? ORDER BY TASK_ID"
# Other employees with the erased person's first or last name as either of theirs (?2, ?3: those names): a lone
# name they share is not redacted in conversations (app.rag.erasure.lone_names). Python re-checks with casefold.
ERASE_NAMESAKES = ("SELECT FIRST_NAME, LAST_NAME FROM EMPLOYEES WHERE EMPLOYEE_ID <> ?1"
                   " AND (upper(FIRST_NAME) IN (upper(?2), upper(?3)) OR upper(LAST_NAME) IN (upper(?2), upper(?3)))")
ERASE_DELETE_COMMENTS = "DELETE FROM COMMENTS WHERE AUTHOR_ID = ?"
ERASE_DELETE_DOCUMENTS = "DELETE FROM DOCUMENTS WHERE OWNER_EMPLOYEE_ID = ?"
ERASE_REASSIGN_DOCUMENTS = "UPDATE DOCUMENTS SET OWNER_EMPLOYEE_ID = ? WHERE OWNER_EMPLOYEE_ID = ?"
ERASE_UNASSIGN_TASKS = "UPDATE TASKS SET ASSIGNEE_ID = NULL WHERE ASSIGNEE_ID = ?"
# Tasks they reported or resolved (V13): the references are cleared like the assignee (the chunk shows the reporter).
ERASE_REFERENCING_TASKS = ("SELECT TASK_ID FROM TASKS WHERE REPORTER_ID = ? UNION "
                           "SELECT TASK_ID FROM TASKS WHERE RESOLVED_BY_ID = ? ORDER BY 1")
ERASE_CLEAR_REPORTER = "UPDATE TASKS SET REPORTER_ID = NULL WHERE REPORTER_ID = ?"
ERASE_CLEAR_RESOLVER = "UPDATE TASKS SET RESOLVED_BY_ID = NULL WHERE RESOLVED_BY_ID = ?"
ERASE_DELETE_EMPLOYEE = "DELETE FROM EMPLOYEES WHERE EMPLOYEE_ID = ?"

# Physical clean-up, each outside any transaction: merge the FTS5 segments into one (deleted
# entries are dropped), move the WAL into the file and truncate it, rebuild the file.
FTS_OPTIMIZE = "INSERT INTO RAG_FTS (RAG_FTS) VALUES ('optimize')"
WAL_CHECKPOINT_TRUNCATE = "PRAGMA wal_checkpoint(TRUNCATE)"
VACUUM = "VACUUM"

# The job row (V10): written with the deletes, advanced step by step, its held strings forgotten last.
ERASURE_COLUMNS = "EMPLOYEE_ID, STEP, DOCUMENTS, REPORT, OUTCOME, VERDICT, HELD, STARTED_AT, UPDATED_AT"
ERASURE_INSERT = ("INSERT INTO ERASURE_JOBS (EMPLOYEE_ID, STEP, DOCUMENTS, REPORT, OUTCOME, HELD) "
                  "VALUES (?, 'delete', ?, ?, ?, ?)")
ERASURE_SELECT = f"SELECT {ERASURE_COLUMNS} FROM ERASURE_JOBS WHERE EMPLOYEE_ID = ?"
ERASURE_UNFINISHED = f"SELECT {ERASURE_COLUMNS} FROM ERASURE_JOBS WHERE STEP <> 'forget' ORDER BY EMPLOYEE_ID"
ERASURE_RECORD_STEP = (f"UPDATE ERASURE_JOBS SET STEP = ?, OUTCOME = ?, VERDICT = ?, UPDATED_AT = {NOW} "
                       "WHERE EMPLOYEE_ID = ?")
ERASURE_FORGET = f"UPDATE ERASURE_JOBS SET HELD = NULL, UPDATED_AT = {NOW} WHERE EMPLOYEE_ID = ?"



def redact_candidates(table: str, key: str, column: str) -> str:
    """Rows whose column holds the bound LIKE pattern (identifiers from app.rag.erasure.REDACT_PLACES only)."""
    return f"SELECT {key}, {column} FROM {table} WHERE {column} LIKE ? ESCAPE '\\'"


def redact_update(table: str, key: str, column: str) -> str:
    return f"UPDATE {table} SET {column} = ? WHERE {key} = ?"


# The proof. Table and column names come from the database's own catalogue and are quoted by
# quote_identifier; the searched values are always bound. LIKE patterns are a string's short needle
# (SQLite refuses patterns over 50,000 bytes); the rows found are then judged by the string's own pattern.
PROOF_TABLES = "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"
PROOF_COLUMNS = "SELECT name FROM pragma_table_info(?) ORDER BY cid"
PROOF_SCHEMA = "SELECT sql FROM sqlite_schema WHERE sql LIKE ? ESCAPE '\\'"
# Index entries holding the string's words, with their chunk's text (NULL: the chunk is gone, a stale entry).
PROOF_FTS_MATCH = (
    "SELECT c.CHUNK_ID, c.CONTENT FROM RAG_FTS LEFT JOIN RAG_CHUNK c ON c.CHUNK_ID = RAG_FTS.rowid "
    "WHERE RAG_FTS MATCH ?"
)


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def proof_table_rows(table: str, columns: Sequence[str]) -> str:
    """The rows of which any column holds the needle (bound as ?1 for LIKE, ASCII case-insensitive, and ?2
    as bytes for a BLOB): one scan of the table per string, not one per column."""
    cols = [quote_identifier(c) for c in columns]
    where = " OR ".join(f"{c} LIKE ?1 ESCAPE '\\' OR instr(CAST({c} AS BLOB), ?2) > 0" for c in cols)
    return f"SELECT {', '.join(cols)} FROM {quote_identifier(table)} WHERE {where}"
