-- source: FACTS.md §10 (plain INSERT with binds; rolled back at once)

INSERT INTO RAG_SETTINGS (SETTING_KEY, SETTING_VALUE) VALUES (:setting_key, 'probe')
