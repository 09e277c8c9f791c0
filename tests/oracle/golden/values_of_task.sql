-- source: FACTS.md §10 (plain SELECT by key; TASK_VALUES_PK leads with TASK_ID)

SELECT FIELD, VALUE FROM TASK_VALUES WHERE TASK_ID = :task_id
