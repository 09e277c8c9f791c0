-- source: FACTS.md §10 (plain DELETE by the primary key)

DELETE FROM PROJECT_MEMBERS WHERE PROJECT_ID = :project_id AND EMPLOYEE_ID = :employee_id
