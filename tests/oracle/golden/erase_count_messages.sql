-- source: FACTS.md §10 (plain aggregate over a join)

SELECT COUNT(*) FROM MESSAGES m JOIN CONVERSATIONS c ON c.CONVERSATION_ID = m.CONVERSATION_ID
WHERE c.EMPLOYEE_ID = :employee_id
