-- source: FACTS.md §10 (plain DELETE; the COMMENTS row trigger queues the tasks, V6)

DELETE FROM COMMENTS WHERE AUTHOR_ID = :employee_id
