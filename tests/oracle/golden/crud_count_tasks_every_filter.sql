-- source: FACTS.md §10 (plain SELECT COUNT(*), values as named binds) + §12.2 (a date binds as DATE)

SELECT COUNT(*) FROM TASKS
WHERE ASSIGNEE_ID = :f_assignee_id
  AND UPPER(STATUS) = UPPER(:f_status)
  AND UPPER(PRIORITY) = UPPER(:f_priority)
  AND SPRINT_ID IS NULL
  AND PROJECT_ID = :f_project_id
  AND EXPECTED_END_DATE < :f_due_before
  AND EXPECTED_END_DATE >= :f_due_after
