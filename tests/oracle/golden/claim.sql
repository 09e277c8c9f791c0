-- source: FACTS.md §6 (canonical: FOR UPDATE SKIP LOCKED with no row limit, one batch fetched with prefetchrows = arraysize = batch; ORDER BY allowed with FOR UPDATE) [BLOG Pachot/rwijk, PYDOC tuning, DOC sqlrf]

SELECT DIRTY_ID, SOURCE_TYPE, SOURCE_ID, ACTION, ATTEMPTS
FROM RAG_DIRTY
WHERE ATTEMPTS < :max_attempts
ORDER BY ENQUEUED_AT, DIRTY_ID
FOR UPDATE SKIP LOCKED
