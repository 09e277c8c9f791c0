-- source: FACTS.md §8B (SELECT COUNT(*) ... WHERE CONTAINS(col, :q) > 0, as PROOF_CONTAINS) + §12.4 (the term in braces) + the project rule's access predicate

SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTAINS(CONTENT, :tq) > 0
  AND (SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL) OR OWNER_EMPLOYEE_ID = :caller_id OR (SOURCE_TYPE = 'task' AND SOURCE_ID NOT IN (SELECT TASK_ID FROM TASKS WHERE RESTRICTED = 1) AND PROJECT_ID IN (:m0, :m1)))
