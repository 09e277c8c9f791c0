-- source: FACTS.md §10 (plain DELETE by the primary key, V22)

DELETE FROM TASK_SPRINTS WHERE TASK_ID = :task_id AND SPRINT_ID = :sprint_id
