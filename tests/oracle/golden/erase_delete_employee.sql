-- source: FACTS.md §10 (plain DELETE by key)

DELETE FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id
