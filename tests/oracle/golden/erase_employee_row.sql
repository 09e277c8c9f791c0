-- source: FACTS.md §10 (plain SELECT by key) — the strings to erase, read before the deletes

SELECT FIRST_NAME, LAST_NAME, EMAIL, TELEGRAM_ID, EXTERNAL_ID FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id
