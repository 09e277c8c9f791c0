-- source: FACTS.md §10 (plain SELECT by the primary key; TIMESTAMP fetched as naive datetime, UTC by V21's default)

SELECT PROJECT_ID, EMPLOYEE_ID, SOURCE, ADDED_AT FROM PROJECT_MEMBERS
WHERE PROJECT_ID = :project_id AND EMPLOYEE_ID = :employee_id
