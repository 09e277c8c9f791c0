-- source: FACTS.md §10 (identity key) + §11.6/§12.1 (a str binds straight into the CLOB CONTENT); V13's columns are short VARCHAR2 values (None binds as NULL)

INSERT INTO MESSAGES (CONVERSATION_ID, ROLE, CONTENT, CITATIONS, FOCUS, RETRIEVED, RAG_SCOPE, LLM_ERROR)
VALUES (:conversation_id, :message_role, :content, :citations, :focus, :retrieved, :used_scope, :llm_error) RETURNING MESSAGE_ID INTO :new_id
