-- source: FACTS.md §10 (plain UPDATE; fires TASKS_RAG_ACCESS_TRG, V9)

UPDATE TASKS SET ASSIGNEE_ID = :assignee_id WHERE TASK_ID = :task_id
