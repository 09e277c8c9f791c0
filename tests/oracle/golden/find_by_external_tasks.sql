-- source: FACTS.md §10 (plain SELECT with named binds; identifiers from EntitySpec)

SELECT EXTERNAL_KEY, TASK_ID FROM TASKS
WHERE SOURCE = :source_name AND EXTERNAL_KEY IN (:k0, :k1)
