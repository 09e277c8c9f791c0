-- source: FACTS.md §10 (GROUP BY, named binds) + §3 (FETCH FIRST) + sqlrf ORDER BY (aliases, CASE)

SELECT x.k, x.k AS label, x.n, x.points
FROM (SELECT v.VALUE AS k, COUNT(*) AS n, COALESCE(SUM(t.STORY_POINTS), 0) AS points
      FROM TASKS t
      LEFT JOIN TASK_VALUES v ON v.TASK_ID = t.TASK_ID AND v.FIELD = :group_field
      WHERE t.ASSIGNEE_ID = :caller_id
        AND (t.STATUS IS NULL OR UPPER(t.STATUS) NOT IN (:p0_done0, :p0_done1, :p0_done2, :p0_done3))
      GROUP BY v.VALUE) x
ORDER BY x.n DESC, CASE WHEN x.k IS NULL THEN 1 ELSE 0 END, label, x.k
FETCH FIRST :max_groups ROWS ONLY
