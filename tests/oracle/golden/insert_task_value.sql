-- source: FACTS.md §10 (plain INSERT of bound values) + §6 (executemany over rows; §11.7 the caller skips an empty batch)

INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (:task_id, :field_name, :field_value)
