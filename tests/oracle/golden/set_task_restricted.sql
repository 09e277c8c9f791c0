-- source: FACTS.md §10 (plain UPDATE by key, values as named binds)
UPDATE TASKS SET RESTRICTED = :restricted
WHERE TASK_ID = :task_id AND RESTRICTED <> :restricted
