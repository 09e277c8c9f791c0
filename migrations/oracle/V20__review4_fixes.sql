-- Issue 34 (REVIEW-4). Written after V18 (tracker fields: TASKS.REPORTER_ID) and V19 (MESSAGES.QUERY).
--
-- 1. U1: EMPLOYEES_RAG_DIRTY_TRG without DISTINCT. RAG_DIRTY.DIRTY_ID is an identity column (a sequence default),
--    and NEXTVAL is not allowed in "a SELECT statement with the DISTINCT operator" [DOC sqlrf sequence
--    pseudocolumns]; whether a sequence *default* is generated under DISTINCT is not shown by any source, and a
--    sequence default under a top-level set operator failed on 12c with ORA-01400 [PAGES jeffkemponoracle.com
--    2016/10]. The trigger compiles either way (static SQL is not executed at CREATE), so the first rename would
--    have failed inside the user's UPDATE. The plain INSERT ... SELECT is V6's confirmed shape (FACTS.md §10);
--    duplicate rows are harmless: the worker coalesces by source (V6). Otherwise V18's body: a rename marks the
--    tasks the person is assigned, reported and commented on. It reads TASKS and COMMENTS and fires on a rename
--    only, never in a delete's cascade (FACTS.md §10, §12.9; REVIEW-4 C3).
-- PL/SQL blocks end with a line holding a single '/' (app/engines/oracle/migrate.py).
CREATE OR REPLACE TRIGGER EMPLOYEES_RAG_DIRTY_TRG
AFTER UPDATE OF FIRST_NAME, LAST_NAME ON EMPLOYEES
FOR EACH ROW
BEGIN
    IF :OLD.FIRST_NAME <> :NEW.FIRST_NAME
       OR NVL(:OLD.LAST_NAME, CHR(0)) <> NVL(:NEW.LAST_NAME, CHR(0)) THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
            SELECT 'task', TASK_ID, 'UPSERT' FROM TASKS
            WHERE ASSIGNEE_ID = :NEW.EMPLOYEE_ID OR REPORTER_ID = :NEW.EMPLOYEE_ID;
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
            SELECT 'task', TASK_ID, 'UPSERT' FROM COMMENTS WHERE AUTHOR_ID = :NEW.EMPLOYEE_ID;
    END IF;
END;
/
