-- source: FACTS.md §10 (plain DELETE by the primary key) + §6 (executemany; §11.7 the caller skips an empty batch)

DELETE FROM TASK_VALUES
WHERE TASK_ID = :task_id AND FIELD = :field_name AND VALUE = :field_value
