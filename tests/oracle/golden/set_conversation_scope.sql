-- source: FACTS.md §10 (plain UPDATE by key; UTC timestamp from SYSTIMESTAMP); the pin is checked by the write itself (a None bind is NULL, as SET_CONVERSATION_PIN's)

UPDATE CONVERSATIONS SET RAG_SCOPE = :rag_scope, UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHERE CONVERSATION_ID = :conversation_id
AND (PINNED_PROJECT_ID IS NULL OR PINNED_PROJECT_ID = :scope_project_id)
