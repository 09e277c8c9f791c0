-- source: FACTS.md §3 (FETCH APPROX; a short filtered answer falls back to FETCH EXACT) + app/rag/access.py rule + scope binds; the doc-type predicate narrows document chunks only (§10 plain predicate, named binds)

SELECT SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, VECTOR_DISTANCE(EMBEDDING, :qv, COSINE) AS DISTANCE
FROM RAG_CHUNK
WHERE (SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL) OR OWNER_EMPLOYEE_ID = :caller_id)
  AND PROJECT_ID = :project_id
  AND SOURCE_TYPE IN (:st0, :st1)
  AND (SOURCE_TYPE <> 'doc' OR DOC_TYPE IN (:dt0, :dt1))
ORDER BY VECTOR_DISTANCE(EMBEDDING, :qv, COSINE)
FETCH APPROX FIRST :k ROWS ONLY
