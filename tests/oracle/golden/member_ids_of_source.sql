-- source: FACTS.md §10 (plain SELECT by key, values as named binds)

SELECT EMPLOYEE_ID FROM PROJECT_MEMBERS WHERE PROJECT_ID = :project_id AND SOURCE = :member_source
