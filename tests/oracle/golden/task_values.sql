-- source: FACTS.md §10 (plain SELECT with named binds; TASK_VALUES_PK leads with TASK_ID)

SELECT TASK_ID, FIELD, VALUE FROM TASK_VALUES
WHERE TASK_ID IN (:id0)
