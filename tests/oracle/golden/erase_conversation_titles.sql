-- source: FACTS.md §10 (plain SELECT) — the employee's conversation titles, read before the delete

SELECT CONVERSATION_ID, TITLE FROM CONVERSATIONS WHERE EMPLOYEE_ID = :employee_id ORDER BY CONVERSATION_ID
