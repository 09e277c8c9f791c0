-- source: FACTS.md §10 (plain UPDATE; the TASKS row trigger queues each task, V6)

UPDATE TASKS SET RESOLVED_BY_ID = NULL WHERE RESOLVED_BY_ID = :employee_id
