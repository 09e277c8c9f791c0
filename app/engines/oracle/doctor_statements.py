"""The Oracle statements only `ragctl oracle doctor` sends (app/services/oracle_doctor*.py): its scratch rows,
plans and proofs. The rules of statements.py hold here.
"""

from __future__ import annotations

from app.engines.oracle.statements import TEXT_TOKEN_TABLES

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

# source: FACTS.md §8B + REVIEW-3 U3 (the $I table's TOKEN_TEXT/TOKEN_TYPE, as text_tokens reads them; ROWNUM bounds
#         the sample) — the proof looks tokens up by UPPER(word): of a sample of word tokens, how many are not upper
DOCTOR_TOKEN_CASE = (
    "SELECT COUNT(*), COUNT(CASE WHEN TOKEN_TEXT <> UPPER(TOKEN_TEXT) THEN 1 END)\n"
    f"FROM (SELECT TOKEN_TEXT FROM {TEXT_TOKEN_TABLES[1]} WHERE TOKEN_TYPE = 0 AND ROWNUM <= :max_rows)"
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
