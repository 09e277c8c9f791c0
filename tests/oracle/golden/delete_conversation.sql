-- source: FACTS.md §10 (plain DELETE by key; messages go by ON DELETE CASCADE, V10)

DELETE FROM CONVERSATIONS WHERE CONVERSATION_ID = :conversation_id
