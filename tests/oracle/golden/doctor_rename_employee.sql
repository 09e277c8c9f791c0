-- source: FACTS.md §10 (plain UPDATE by key; fires EMPLOYEES_RAG_DIRTY_TRG, REVIEW-4 U1)

UPDATE EMPLOYEES SET FIRST_NAME = :first_name WHERE EMPLOYEE_ID = :employee_id
