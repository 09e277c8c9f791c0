-- source: FACTS.md §10 (plain SELECT COUNT(*), values as named binds)

SELECT COUNT(*) FROM PROJECT_MEMBERS WHERE PROJECT_ID = :project_id
