-- source: FACTS.md §10 (plain SELECT by key)

SELECT COUNT(*) FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id
