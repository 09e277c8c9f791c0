-- source: FACTS.md §10 (identity key) + §11.6/§12.1 (a str binds straight into the CLOB CONTENT)

INSERT INTO MESSAGES (CONVERSATION_ID, ROLE, CONTENT, CITATIONS)
VALUES (:conversation_id, :message_role, :content, :citations) RETURNING MESSAGE_ID INTO :new_id
