-- source: FACTS.md §7 (MERGE with a single-row dual source; no ON column in SET, ORA-38104) — as WRITE_SYNC_CURSOR; ORA-00001 when two sessions insert the same new row is absorbed by rerunning it (as WRITE_SETTING)

MERGE INTO PROJECT_MEMBERS t
USING (SELECT :project_id AS PROJECT_ID, :employee_id AS EMPLOYEE_ID, :member_source AS SOURCE FROM dual) s
ON (t.PROJECT_ID = s.PROJECT_ID AND t.EMPLOYEE_ID = s.EMPLOYEE_ID)
WHEN MATCHED THEN UPDATE SET t.SOURCE = s.SOURCE
WHEN NOT MATCHED THEN INSERT (PROJECT_ID, EMPLOYEE_ID, SOURCE) VALUES (s.PROJECT_ID, s.EMPLOYEE_ID, s.SOURCE)
