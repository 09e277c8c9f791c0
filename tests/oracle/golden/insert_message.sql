-- source: FACTS.md §10 (identity key) + §11.6/§12.1 (a str binds straight into the CLOB CONTENT) + REVIEW-3 U1 (CONTENT, the LOB bind, last: ORA-24816's action); V13's and V19's (TRACKER_QUERY) columns are VARCHAR2 values (None binds as NULL)

INSERT INTO MESSAGES (CONVERSATION_ID, ROLE, CITATIONS, FOCUS, RETRIEVED, RAG_SCOPE, LLM_ERROR, TRACKER_QUERY, CONTENT)
VALUES (:conversation_id, :message_role, :citations, :focus, :retrieved, :used_scope, :llm_error, :tracker_query, :content) RETURNING MESSAGE_ID INTO :new_id
