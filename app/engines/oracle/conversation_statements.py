"""The Oracle statements of conversations: conversations, messages, the entities an answer rests on, and what the
model's tools read (app/engines/oracle/conversations.py). The rules of statements.py hold here.
"""

from __future__ import annotations

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

# source: FACTS.md §10 (plain SELECT) — the names a question may use (app/rag/task_questions.py)
VOCABULARY_PEOPLE = "SELECT EMPLOYEE_ID, FIRST_NAME, LAST_NAME FROM EMPLOYEES ORDER BY EMPLOYEE_ID"
# source: FACTS.md §10 (plain SELECT)
VOCABULARY_PROJECTS = "SELECT PROJECT_ID, NAME FROM PROJECTS ORDER BY PROJECT_ID"
# source: FACTS.md §10 (plain SELECT)
VOCABULARY_SPRINTS = "SELECT SPRINT_ID, NAME, PROJECT_ID FROM SPRINTS ORDER BY SPRINT_ID"
