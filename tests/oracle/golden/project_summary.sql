-- source: FACTS.md §10 (plain SELECT by key; TIMESTAMP fetched naive) + §11.6 (the AUTO_SUMMARY CLOB as str)

SELECT AUTO_SUMMARY, AUTO_SUMMARY_AT FROM PROJECTS WHERE PROJECT_ID = :project_id
