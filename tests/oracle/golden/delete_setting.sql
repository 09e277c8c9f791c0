-- source: FACTS.md §10 (plain DELETE by key)

DELETE FROM RAG_SETTINGS WHERE SETTING_KEY = :setting_key
