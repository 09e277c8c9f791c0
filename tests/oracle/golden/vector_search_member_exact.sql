-- source: FACTS.md §3 (FETCH EXACT: the fallback when a filtered FETCH APPROX comes back short) + §10 (plain predicates, named binds) — the project rule's access predicate

SELECT SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, VECTOR_DISTANCE(EMBEDDING, :qv, COSINE) AS DISTANCE
FROM RAG_CHUNK
WHERE (SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL) OR OWNER_EMPLOYEE_ID = :caller_id OR (SOURCE_TYPE = 'task' AND PROJECT_ID IN (:m0, :m1)))
  AND PROJECT_ID = :project_id
  AND SOURCE_TYPE IN (:st0, :st1)
ORDER BY VECTOR_DISTANCE(EMBEDDING, :qv, COSINE)
FETCH EXACT FIRST :k ROWS ONLY
