-- source: FACTS.md §6 (FOR UPDATE in a top-level SELECT without DISTINCT/GROUP BY/aggregates) [DOC sqlrf]

SELECT TASK_ID FROM TASKS WHERE TASK_ID IN (:id0) FOR UPDATE
