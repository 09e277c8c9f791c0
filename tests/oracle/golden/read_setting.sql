-- source: FACTS.md §10 (plain SELECT by key) — the upsert form the doctor stored (V12 RAG_SETTINGS)

SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :setting_key
