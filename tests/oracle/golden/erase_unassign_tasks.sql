-- source: FACTS.md §10 (plain UPDATE; the TASKS row trigger queues the tasks, V6)

UPDATE TASKS SET ASSIGNEE_ID = NULL WHERE ASSIGNEE_ID = :employee_id
