-- Issue 31, "Store the fields", the same change as migrations/sqlite/V13: every field a real tracker has.
--
-- 1. TASKS gains its reporter, its three timestamps (plain TIMESTAMP holding UTC, as COMMENTS.CREATED_AT),
--    its resolution ("Fixed", "Won't Fix", "Duplicate", a tracker's own name; NULL = unresolved), environment and
--    affects versions (CLOBs of any length, as LABELS/FIX_VERSIONS in V16: a str binds straight in, FACTS.md §11.6),
--    its parent (the key as the tracker names it, 200 characters as EXTERNAL_KEY, and the task when it is here)
--    and who resolved it (GitHub's closed_by). No DEFAULT: one would fill the existing rows with the migration's
--    time; the engine's task writes set CREATED_AT / UPDATED_AT. Plain DDL (FACTS.md §10): ALTER TABLE ... ADD
--    (columns) as V16; the foreign keys are out-of-line constraints added with ALTER TABLE ... ADD CONSTRAINT
--    name FOREIGN KEY (col) REFERENCES t (col) ON DELETE SET NULL [DOC sqlrf ALTER TABLE add_table_constraint /
--    out_of_line_constraint, references_clause], the actions V1's inline TASKS_ASSIGNEE_FK uses. Each FK column is
--    indexed (deleting an employee or a task looks the referencing rows up). Each statement commits implicitly.
ALTER TABLE TASKS ADD (REPORTER_ID NUMBER(19), CREATED_AT TIMESTAMP, UPDATED_AT TIMESTAMP, RESOLVED_AT TIMESTAMP,
                       RESOLUTION VARCHAR2(200 CHAR), ENVIRONMENT CLOB, AFFECTS_VERSIONS CLOB,
                       PARENT_KEY VARCHAR2(200 CHAR), PARENT_ID NUMBER(19), RESOLVED_BY_ID NUMBER(19));
ALTER TABLE TASKS ADD CONSTRAINT TASKS_REPORTER_FK
    FOREIGN KEY (REPORTER_ID) REFERENCES EMPLOYEES (EMPLOYEE_ID) ON DELETE SET NULL;
ALTER TABLE TASKS ADD CONSTRAINT TASKS_PARENT_FK
    FOREIGN KEY (PARENT_ID) REFERENCES TASKS (TASK_ID) ON DELETE SET NULL;
ALTER TABLE TASKS ADD CONSTRAINT TASKS_RESOLVED_BY_FK
    FOREIGN KEY (RESOLVED_BY_ID) REFERENCES EMPLOYEES (EMPLOYEE_ID) ON DELETE SET NULL;
CREATE INDEX TASKS_REPORTER_IDX ON TASKS (REPORTER_ID);
CREATE INDEX TASKS_PARENT_IDX ON TASKS (PARENT_ID);
CREATE INDEX TASKS_RESOLVED_BY_IDX ON TASKS (RESOLVED_BY_ID);

-- 2. The queryable form of the multi-valued fields: one row per value, each value whole (never split on spaces).
--    The display CLOBs stay, written by the same engine call from the same list. Shapes of V16's TASK_LINKS /
--    V17's MESSAGE_ENTITIES: ON DELETE CASCADE to its task, an inline CHECK on its own column, a composite
--    PRIMARY KEY whose first column serves the cascade (FACTS.md §10). VALUE is 200 characters (the key is at most
--    19 + 16 + 800 bytes in AL32UTF8, far under the index key limit, REVIEW-4 C1); VALUE and FIELD are not SQL
--    reserved words [DOC sqlrf "Oracle SQL Reserved Words"].
--    No backfill here: splitting the ", "-joined CLOBs of V16 in SQL needs a shape FACTS.md does not confirm, so
--    the engine backfills the values of tasks that have display text and no values after it migrates
--    (app/engines/oracle/task_values.py, statements.TASK_VALUES_BACKFILL_*), in Python, with the same split.
CREATE TABLE TASK_VALUES (
    TASK_ID NUMBER(19) NOT NULL CONSTRAINT TASK_VALUES_TASK_FK REFERENCES TASKS (TASK_ID) ON DELETE CASCADE,
    FIELD   VARCHAR2(16) NOT NULL
            CONSTRAINT TASK_VALUES_FIELD_CK CHECK (FIELD IN ('LABEL', 'COMPONENT', 'FIX_VERSION', 'AFFECTS_VERSION')),
    VALUE   VARCHAR2(200 CHAR) NOT NULL,
    CONSTRAINT TASK_VALUES_PK PRIMARY KEY (TASK_ID, FIELD, VALUE)
);
CREATE INDEX TASK_VALUES_VALUE_IDX ON TASK_VALUES (FIELD, VALUE);

-- 3. TASK_LINKS.LINK_TYPE widened to every direction a tracker names, read from the task's own side. The named
--    CHECK of V16 is dropped and added again with the wider list [DOC sqlrf ALTER TABLE drop_constraint_clause:
--    DROP CONSTRAINT constraint_name; add_table_constraint as V16]; the longest type (DEPENDED_ON_BY, 14) fits
--    VARCHAR2(16). A rerun after a run that died between the two finds the constraint gone (ORA-02443), which
--    app/engines/oracle/migration_objects.py keeps when the catalogue shows no constraint of that name.
ALTER TABLE TASK_LINKS DROP CONSTRAINT TASK_LINKS_TYPE_CK;
ALTER TABLE TASK_LINKS ADD CONSTRAINT TASK_LINKS_TYPE_CK
    CHECK (LINK_TYPE IN ('BLOCKS', 'BLOCKED_BY', 'DEPENDS_ON', 'DEPENDED_ON_BY', 'DUPLICATES', 'DUPLICATED_BY',
                         'CLONES', 'CLONED_BY', 'RELATES'));

-- 4. Triggers, the semantics of migrations/sqlite/V13. A change to a task's values marks the task: V16's
--    TASK_LINKS_RAG_DIRTY_TRG body, which reads nothing but :OLD/:NEW and only INSERTs INTO RAG_DIRTY, so a deleted
--    task's cascade cannot raise ORA-04091 (FACTS.md §10, §12.9).
-- PL/SQL blocks end with a line holding a single '/' (app/engines/oracle/migrate.py).
CREATE OR REPLACE TRIGGER TASK_VALUES_RAG_DIRTY_TRG
AFTER INSERT OR UPDATE OR DELETE ON TASK_VALUES
FOR EACH ROW
BEGIN
    IF DELETING OR (UPDATING AND :OLD.TASK_ID <> :NEW.TASK_ID) THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', :OLD.TASK_ID, 'UPSERT');
    END IF;
    IF INSERTING OR UPDATING THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', :NEW.TASK_ID, 'UPSERT');
    END IF;
END;
/

-- The chunk shows the reporter: renaming a person marks the tasks they reported too (V16's trigger, widened). It
-- reads TASKS and COMMENTS, other tables, and fires on a rename only (never in a delete's cascade: FACTS.md §10,
-- §12.9). A deleted reporter is covered by ON DELETE SET NULL, which fires TASKS_RAG_DIRTY_TRG (V6). Deleting a
-- parent task sets its children's PARENT_ID to NULL: that fires TASKS_RAG_DIRTY_TRG, which reads no table, and not
-- TASKS_RAG_ACCESS_TRG (PARENT_ID is not in its UPDATE OF list).
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
            SELECT DISTINCT 'task', TASK_ID, 'UPSERT' FROM COMMENTS WHERE AUTHOR_ID = :NEW.EMPLOYEE_ID;
    END IF;
END;
/

-- 5. Every task's chunk template changes (the new lines): queue them all, as V16 did. Plain INSERT ... SELECT into
--    the queue (FACTS.md §10).
INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) SELECT 'task', TASK_ID, 'UPSERT' FROM TASKS;
