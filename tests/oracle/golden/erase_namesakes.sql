-- source: FACTS.md §10 (plain SELECT; UPPER [DOC sqlrf UPPER]; a name bound twice by name) — other employees sharing a lone name
SELECT FIRST_NAME, LAST_NAME FROM EMPLOYEES WHERE EMPLOYEE_ID <> :employee_id
  AND (UPPER(FIRST_NAME) IN (UPPER(:first_name), UPPER(:last_name)) OR UPPER(LAST_NAME) IN (UPPER(:first_name), UPPER(:last_name)))
