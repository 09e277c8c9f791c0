-- gvenzl/oracle-free runs this once, at first start, in SQL*Plus as SYS connected to the CDB
-- (FACTS.md §9): switch to the PDB where APP_USER (app) was created with DB_DEVELOPER_ROLE.
-- The entrypoint ignores SQL errors unless the script exits with one (FACTS.md §12.6): a failed
-- grant must fail the container, not leave a database the app cannot use. FAILURE, not SQL.SQLCODE:
-- a UNIX exit status keeps one byte (SQL*Plus reference, EXIT), so ORA-01536 (6 × 256) would exit 0.
WHENEVER SQLERROR EXIT FAILURE
ALTER SESSION SET CONTAINER=FREEPDB1;

-- The model folder ./models is bind-mounted at /opt/oracle/models (compose.dev.yml).
CREATE OR REPLACE DIRECTORY MODEL_DIR AS '/opt/oracle/models';
-- READ, WRITE as in both of Oracle's load examples (quick start and end-to-end, FACTS.md §5): a
-- read-only grant is not shown working anywhere. The bind mount stays read-only at the OS level.
GRANT READ, WRITE ON DIRECTORY MODEL_DIR TO app;

-- DBMS_VECTOR.LOAD_ONNX_MODEL needs CREATE MINING MODEL (granted explicitly in Oracle's end-to-end
-- example, FACTS.md §5); CTXAPP lets the app sync its Oracle Text index (CTX_DDL, FACTS.md §8B).
GRANT CREATE MINING MODEL TO app;
GRANT CTXAPP TO app;

-- `ragctl oracle doctor` reads the plan of its filtered FETCH APPROX with DBMS_XPLAN.DISPLAY_CURSOR, which runs with
-- the caller's rights and needs SELECT on these fixed views (DOC arpls DBMS_XPLAN "Security Model"); without them it
-- prints "User has no SELECT privilege on V$SESSION" as its output. V$ names are public synonyms: the grants go on
-- the SYS.V_$ views (ORA-02030 otherwise). Development only: production DBAs decide whether to give them.
GRANT SELECT ON V_$SQL TO app;
GRANT SELECT ON V_$SQL_PLAN TO app;
GRANT SELECT ON V_$SESSION TO app;
GRANT SELECT ON V_$SQL_PLAN_STATISTICS_ALL TO app;
