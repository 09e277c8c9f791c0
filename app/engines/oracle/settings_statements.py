"""The Oracle statements of what the engine keeps about itself beside the tracker's rows: RAG_SETTINGS (settings,
the model mark, the upsert form) and the projects' LLM summaries (app/engines/oracle/model_mark.py, upsert.py,
summaries.py). The rules of statements.py hold here.
"""

from __future__ import annotations

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

# --- project summaries (app/engines/oracle/summaries.py) -------------------------------------------

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
