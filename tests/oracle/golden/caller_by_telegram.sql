-- source: FACTS.md §10 (plain SELECT by unique key)

SELECT EMPLOYEE_ID, ROLE FROM EMPLOYEES WHERE TELEGRAM_ID = :telegram_id
