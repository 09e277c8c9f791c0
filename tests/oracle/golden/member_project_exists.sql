-- source: FACTS.md §10 (plain SELECT by key)

SELECT COUNT(*) FROM PROJECTS WHERE PROJECT_ID = :project_id
