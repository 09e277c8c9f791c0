-- source: FACTS.md §10 (plain aggregate, as ERASE_COUNT_MESSAGES; LENGTH of a VARCHAR2 counts characters) over the searches' access predicate

SELECT COUNT(*), AVG(LENGTH(CONTENT)) FROM RAG_CHUNK
WHERE (SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL) OR OWNER_EMPLOYEE_ID = :caller_id)
