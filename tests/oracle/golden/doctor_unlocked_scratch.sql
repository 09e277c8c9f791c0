-- source: FACTS.md §6 (FOR UPDATE SKIP LOCKED without a row limit; rows locked as fetched) [BLOG, DOC sqlrf]

SELECT DIRTY_ID FROM RAG_DIRTY WHERE SOURCE_ID < 0 FOR UPDATE SKIP LOCKED
