-- source: FACTS.md §10 (plain DELETE by key)

DELETE FROM PROJECTS WHERE PROJECT_ID = :row_id
