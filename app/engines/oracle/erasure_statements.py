"""The Oracle statements of an employee's erasure: the deletes, the job row, the redaction, the Oracle Text purge
and the proof (app/engines/oracle/erasure.py, engine_erasure.py). The rules of statements.py hold here.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engines.oracle.statements import TEXT_INDEX, TEXT_TOKEN_TABLES, Statement

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

# --- the purge of the Oracle Text index ------------------------------------------------------------

# source: FACTS.md §8B + REVIEW-2 W7 (DOC 26/ccref/sync_index.html `maxtime IN NUMBER`, minutes) — the erasure
#         purge must really sync, so it keeps the default LOCK_WAIT; maxtime bounds its own work, not its wait for a
#         running sync, which the connection's call timeout bounds (REVIEW-3 W3, erasure.PURGE_CALL_TIMEOUT_MS)
PURGE_SYNC_TEXT_INDEX = "BEGIN\n    CTX_DDL.SYNC_INDEX(idx_name => :idx_name, maxtime => :maxtime_min);\nEND;"

# --- the proof ------------------------------------------------------------------------------------

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


# source: FACTS.md §8B (CONTAINS(col, :q) > 0 over the search index) + §12.4 and REVIEW-2 U2 (the term in braces, the
#         documented escape the search path uses) — live chunks holding a word the token table still has
PROOF_CONTAINS = "SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTAINS(CONTENT, :tq) > 0"
