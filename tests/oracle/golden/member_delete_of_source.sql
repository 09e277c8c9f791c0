-- source: FACTS.md §10 (plain DELETE by key, values as named binds)

DELETE FROM PROJECT_MEMBERS
WHERE PROJECT_ID = :project_id AND EMPLOYEE_ID = :employee_id AND SOURCE = :member_source
