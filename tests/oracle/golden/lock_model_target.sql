-- source: FACTS.md §6 (FOR UPDATE in a top-level SELECT, DOC sqlrf) + REVIEW-3 W1 (writers ending a model swap take turns)

SELECT SETTING_VALUE FROM RAG_SETTINGS WHERE SETTING_KEY = :target_key FOR UPDATE
