-- source: FACTS.md §7 (MERGE; both WHEN clauses optional; a single-row source) + §10 (plain SELECT by key); ORA-00001 when two sessions insert the same new row is absorbed by rerunning it (as WRITE_SETTING)

MERGE INTO PROJECT_MEMBERS t
USING (SELECT :project_id AS PROJECT_ID, e.EMPLOYEE_ID, :member_source AS SOURCE FROM EMPLOYEES e
       WHERE e.EMPLOYEE_ID = :employee_id) s
ON (t.PROJECT_ID = s.PROJECT_ID AND t.EMPLOYEE_ID = s.EMPLOYEE_ID)
WHEN NOT MATCHED THEN INSERT (PROJECT_ID, EMPLOYEE_ID, SOURCE) VALUES (s.PROJECT_ID, s.EMPLOYEE_ID, s.SOURCE)
