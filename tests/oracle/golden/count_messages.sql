-- source: FACTS.md §10 (plain SELECT COUNT(*))

SELECT COUNT(*) FROM MESSAGES WHERE CONVERSATION_ID = :conversation_id
