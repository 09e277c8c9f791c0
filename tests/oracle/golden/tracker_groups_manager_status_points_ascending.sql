-- source: FACTS.md §10 (GROUP BY, named binds) + §3 (FETCH FIRST) + sqlrf ORDER BY (aliases, CASE)

SELECT x.k, x.k AS label, x.n, x.points
FROM (SELECT t.STATUS AS k, COUNT(*) AS n, COALESCE(SUM(t.STORY_POINTS), 0) AS points
      FROM TASKS t
      GROUP BY t.STATUS) x
ORDER BY x.points ASC, CASE WHEN x.k IS NULL THEN 1 ELSE 0 END, label, x.k
FETCH FIRST :max_groups ROWS ONLY
