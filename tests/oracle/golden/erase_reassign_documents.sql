-- source: FACTS.md §10 (plain UPDATE; the DOCUMENTS row trigger queues the documents, V6)

UPDATE DOCUMENTS SET OWNER_EMPLOYEE_ID = :reassign_to WHERE OWNER_EMPLOYEE_ID = :employee_id
