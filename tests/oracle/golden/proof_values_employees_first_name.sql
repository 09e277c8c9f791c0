-- source: FACTS.md §10 (plain SELECT) + the LIKE shape of proof_count

SELECT FIRST_NAME FROM EMPLOYEES
WHERE UPPER(FIRST_NAME) LIKE UPPER(:pattern) ESCAPE '\'
