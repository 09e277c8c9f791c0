-- source: FACTS.md §10 (plain INSERT with named binds; a missing task or sprint is ORA-02291, V22)

INSERT INTO TASK_SPRINTS (TASK_ID, SPRINT_ID) VALUES (:task_id, :sprint_id)
