-- source: FACTS.md §10 (plain SELECT, named binds); UPPER/INSTR/REGEXP_LIKE on a CLOB [DOC sqlrf UPPER, INSTR, REGEXP_LIKE]

SELECT COUNT(*), COALESCE(SUM(t.STORY_POINTS), 0)
FROM TASKS t
WHERE t.ASSIGNEE_ID = :caller_id
  AND (t.STATUS IS NULL OR UPPER(t.STATUS) NOT IN (:p0_done0, :p0_done1, :p0_done2, :p0_done3))
