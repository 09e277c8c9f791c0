-- source: FACTS.md §10 (plain joins, values as named binds) + §3 (FETCH FIRST n ROWS ONLY) + §12.2 (a date binds as DATE)

SELECT t.TASK_ID, t.TITLE, t.STATUS, t.PRIORITY, t.SPRINT_ID, s.NAME, t.PROJECT_ID, p.NAME, t.ASSIGNEE_ID,
       TRIM(e.FIRST_NAME || ' ' || e.LAST_NAME), t.EXPECTED_END_DATE, t.STORY_POINTS,
       t.EXTERNAL_KEY
FROM TASKS t
LEFT JOIN SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID
LEFT JOIN PROJECTS p ON p.PROJECT_ID = t.PROJECT_ID
LEFT JOIN EMPLOYEES e ON e.EMPLOYEE_ID = t.ASSIGNEE_ID
WHERE t.ASSIGNEE_ID = :caller_id
  AND UPPER(t.STATUS) = UPPER(:task_status)
  AND UPPER(t.PRIORITY) = UPPER(:task_priority)
  AND t.SPRINT_ID = :sprint_id
  AND t.PROJECT_ID = :project_id
  AND t.ASSIGNEE_ID = :assignee_id
  AND t.EXPECTED_END_DATE < :overdue_on AND (t.STATUS IS NULL OR UPPER(t.STATUS) NOT IN (:done0, :done1, :done2, :done3))
  AND t.ASSIGNEE_ID IS NULL
  AND (t.STATUS IS NULL OR UPPER(t.STATUS) NOT IN (:open0, :open1, :open2, :open3))
  AND t.EXPECTED_END_DATE >= :due_after
  AND t.EXPECTED_END_DATE < :due_before
ORDER BY t.TASK_ID
FETCH FIRST :max_rows ROWS ONLY
