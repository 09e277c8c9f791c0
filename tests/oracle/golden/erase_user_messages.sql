-- source: FACTS.md §10 (plain join) + §11.6 (CONTENT CLOB fetched as str) — what the employee typed

SELECT m.MESSAGE_ID, m.CONTENT FROM MESSAGES m JOIN CONVERSATIONS c ON c.CONVERSATION_ID = m.CONVERSATION_ID
WHERE c.EMPLOYEE_ID = :employee_id AND m.ROLE = 'user' ORDER BY m.MESSAGE_ID
