-- source: FACTS.md §10 (identity key, UTC timestamp defaults) + RETURNING INTO an out variable [PYDOC], as crud_insert

INSERT INTO CONVERSATIONS (EMPLOYEE_ID, TITLE, RAG_SCOPE, PINNED_PROJECT_ID)
VALUES (:employee_id, :title, :rag_scope, :pinned_project_id) RETURNING CONVERSATION_ID INTO :new_id
