-- source: FACTS.md §6 (ROWID-subquery window + FOR UPDATE SKIP LOCKED; ORDER BY allowed with FOR UPDATE) [BLOG Lewis, DOC sqlrf]

SELECT q.DIRTY_ID, q.SOURCE_TYPE, q.SOURCE_ID, q.ACTION, q.ATTEMPTS
FROM RAG_DIRTY q
WHERE q.ROWID IN (
    SELECT /*+ qb_name(inline) unnest no_merge */ d.ROWID
    FROM RAG_DIRTY d
    WHERE d.ATTEMPTS < :max_attempts
    ORDER BY d.ENQUEUED_AT, d.DIRTY_ID
    FETCH FIRST :claim_window ROWS ONLY)
ORDER BY q.ENQUEUED_AT, q.DIRTY_ID
FOR UPDATE SKIP LOCKED
