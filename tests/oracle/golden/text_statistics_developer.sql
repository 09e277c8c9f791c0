-- source: FACTS.md §10 (plain aggregate, as ERASE_COUNT_MESSAGES; AVG of the stored CONTENT_CHARS = LENGTH(CONTENT), V20) over the searches' access predicate; all columns in RAG_CHUNK_STATS_IDX (REVIEW-4 W1)

SELECT COUNT(*), AVG(CONTENT_CHARS) FROM RAG_CHUNK
WHERE (SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL) OR OWNER_EMPLOYEE_ID = :caller_id)
