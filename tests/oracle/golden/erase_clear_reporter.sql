-- source: FACTS.md §10 (plain UPDATE; the TASKS row trigger queues each task, V6)

UPDATE TASKS SET REPORTER_ID = NULL WHERE REPORTER_ID = :employee_id
