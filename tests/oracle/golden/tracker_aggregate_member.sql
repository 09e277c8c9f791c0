-- source: FACTS.md §10 (plain aggregate over TASKS t, named binds; at most 1,000 per IN list: ORA-01795) — the typed query's access rule under RAG_ACCESS_RULE=project

SELECT COUNT(*), COALESCE(SUM(t.STORY_POINTS), 0)
FROM TASKS t
WHERE (t.ASSIGNEE_ID = :caller_id OR (t.RESTRICTED = 0 AND t.PROJECT_ID IN (:caller_id_m0, :caller_id_m1)))
