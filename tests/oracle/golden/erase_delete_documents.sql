-- source: FACTS.md §10 (plain DELETE; the DOCUMENTS row trigger queues the deletes, V6)

DELETE FROM DOCUMENTS WHERE OWNER_EMPLOYEE_ID = :employee_id
