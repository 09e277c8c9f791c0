-- source: FACTS.md §10 (plain SELECT with a named bind; identifiers from EntitySpec)

SELECT EXTERNAL_KEY, TASK_ID FROM TASKS
WHERE SOURCE = :source_name
