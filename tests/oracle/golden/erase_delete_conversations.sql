-- source: FACTS.md §10 (plain DELETE; the messages go by ON DELETE CASCADE, V10)

DELETE FROM CONVERSATIONS WHERE EMPLOYEE_ID = :employee_id
