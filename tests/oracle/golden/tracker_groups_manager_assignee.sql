-- source: FACTS.md §10 (GROUP BY, named binds) + §3 (FETCH FIRST) + sqlrf ORDER BY (aliases, CASE)

SELECT x.k, TRIM(g.FIRST_NAME || ' ' || g.LAST_NAME) AS label, x.n, x.points
FROM (SELECT t.ASSIGNEE_ID AS k, COUNT(*) AS n, COALESCE(SUM(t.STORY_POINTS), 0) AS points
      FROM TASKS t
      GROUP BY t.ASSIGNEE_ID) x
LEFT JOIN EMPLOYEES g ON g.EMPLOYEE_ID = x.k
ORDER BY x.n DESC, CASE WHEN x.k IS NULL THEN 1 ELSE 0 END, label, x.k
FETCH FIRST :max_groups ROWS ONLY
