-- source: FACTS.md §10 (plain UPDATE by key; UTC timestamp) + §12.1 (a str binds into the CLOB)

UPDATE PROJECTS SET AUTO_SUMMARY = :summary, AUTO_SUMMARY_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP),
AUTO_SUMMARY_INPUTS = :summary_inputs WHERE PROJECT_ID = :project_id
