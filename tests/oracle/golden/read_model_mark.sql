-- source: FACTS.md §10 (plain SELECT; scalar subqueries in the select list [DOC sqlrf]) — the model mark

SELECT (SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :mark_key),
       (SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :target_key),
       (SELECT COUNT(*) FROM RAG_CHUNK WHERE ROWNUM = 1)
FROM dual
