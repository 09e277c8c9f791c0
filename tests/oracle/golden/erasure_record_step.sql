-- source: FACTS.md §11.6 (str into a CLOB by UPDATE) + §10

UPDATE ERASURE_JOBS SET STEP = :step, OUTCOME = :outcome, VERDICT = :verdict,
       UPDATED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHERE EMPLOYEE_ID = :employee_id
