-- source: FACTS.md §10 (plain UPDATE; fires TASKS_RAG_DIRTY_TRG)

UPDATE TASKS SET TITLE = :title WHERE TASK_ID = :task_id
