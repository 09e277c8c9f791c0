-- source: FACTS.md §10 (plain UPDATE by key; UTC timestamp from SYSTIMESTAMP) — a PATCH that pins or unpins

UPDATE CONVERSATIONS SET RAG_SCOPE = :rag_scope, PINNED_PROJECT_ID = :pinned_project_id,
UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP) WHERE CONVERSATION_ID = :conversation_id
