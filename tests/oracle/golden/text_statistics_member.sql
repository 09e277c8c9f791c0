-- source: FACTS.md §10 (plain aggregate, as text_statistics_developer) over the project rule's access predicate (PROJECT_ID is not in RAG_CHUNK_STATS_IDX: the table is read)

SELECT COUNT(*), AVG(CONTENT_CHARS) FROM RAG_CHUNK
WHERE (SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL) OR OWNER_EMPLOYEE_ID = :caller_id OR (SOURCE_TYPE = 'task' AND SOURCE_ID NOT IN (SELECT TASK_ID FROM TASKS WHERE RESTRICTED = 1) AND PROJECT_ID IN (:m0, :m1)))
