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

-- 2. W1: the text arm's statistics from an index. Every lexical or hybrid search needs the number and mean length of
--    the chunks the asker may see; AVG(LENGTH(CONTENT)) read each row's CONTENT (up to 4,000 bytes in the table row).
--    CONTENT_CHARS holds LENGTH(CONTENT) (characters [DOC sqlrf LENGTH], the unit app/rag/bm25.py ranks in), written
--    by both upsert forms (statements._UPSERT_TAIL); the index holds every column the access predicate and the
--    aggregate read, and SOURCE_TYPE is NOT NULL, so every row is in it and the optimizer can answer
--    COUNT(*), AVG(CONTENT_CHARS) with an index fast full scan that never visits the table [DOC TGSQL "Optimizer
--    Access Paths"]. Plain DDL as V8/V15 (ALTER TABLE ... ADD, CREATE INDEX: FACTS.md §10); the backfill is a plain
--    UPDATE, committed with the version row (migrate.migrate) and harmless to repeat.
ALTER TABLE RAG_CHUNK ADD (CONTENT_CHARS NUMBER(10));
UPDATE RAG_CHUNK SET CONTENT_CHARS = LENGTH(CONTENT) WHERE CONTENT_CHARS IS NULL;
CREATE INDEX RAG_CHUNK_STATS_IDX ON RAG_CHUNK (SOURCE_TYPE, OWNER_EMPLOYEE_ID, CONTENT_CHARS);
