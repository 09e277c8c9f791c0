-- source: FACTS.md §10 (plain SELECT by key)

SELECT SOURCE FROM TASKS WHERE TASK_ID = :task_id
