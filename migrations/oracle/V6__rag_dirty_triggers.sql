-- Enqueue re-indexing in the writer's own transaction (same rules as migrations/sqlite/V3):
-- a write from any client is captured and a rolled-back write leaves no dirty row.
-- A chunk depends on more than its own row (a task shows its sprint, project, assignee and
-- comments), so changes to those mark the task too.
--
-- ORA-04091 (mutating table, FACTS.md §10): a row trigger must not read or change its own table, nor a
-- table that a DELETE CASCADE / SET NULL of the same statement is changing. So these triggers only
-- INSERT INTO RAG_DIRTY and read OTHER tables, and only on an UPDATE (never during a delete):
-- * deleting a sprint/project/employee is covered by the FK actions: ON DELETE SET NULL updates the
--   referencing TASKS/SPRINTS/DOCUMENTS/COMMENTS rows, which fires their own UPDATE triggers below;
-- * a comment deleted by its task's cascade marks the (deleted) task UPSERT without reading TASKS:
--   the worker finds no row and deletes the chunks, exactly as for the task's own DELETE row.
-- Duplicates are harmless: the worker coalesces by source, latest DIRTY_ID wins.
-- PL/SQL blocks end with a line holding a single '/', as in SQL*Plus (app/engines/oracle/migrate.py).

CREATE OR REPLACE TRIGGER TASKS_RAG_DIRTY_TRG
AFTER INSERT OR UPDATE OR DELETE ON TASKS
FOR EACH ROW
BEGIN
    IF DELETING THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', :OLD.TASK_ID, 'DELETE');
    ELSE
        IF UPDATING AND :OLD.TASK_ID <> :NEW.TASK_ID THEN
            INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', :OLD.TASK_ID, 'DELETE');
        END IF;
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', :NEW.TASK_ID, 'UPSERT');
    END IF;
END;
/

CREATE OR REPLACE TRIGGER DOCUMENTS_RAG_DIRTY_TRG
AFTER INSERT OR UPDATE OR DELETE ON DOCUMENTS
FOR EACH ROW
BEGIN
    IF DELETING THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('doc', :OLD.DOCUMENT_ID, 'DELETE');
    ELSE
        IF UPDATING AND :OLD.DOCUMENT_ID <> :NEW.DOCUMENT_ID THEN
            INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('doc', :OLD.DOCUMENT_ID, 'DELETE');
        END IF;
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('doc', :NEW.DOCUMENT_ID, 'UPSERT');
    END IF;
END;
/

-- A task's text shows its sprint's name. NAME is NOT NULL, so <> is exact.
CREATE OR REPLACE TRIGGER SPRINTS_RAG_DIRTY_TRG
AFTER INSERT OR UPDATE OR DELETE ON SPRINTS
FOR EACH ROW
BEGIN
    IF DELETING THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('sprint', :OLD.SPRINT_ID, 'DELETE');
    ELSE
        IF UPDATING AND :OLD.SPRINT_ID <> :NEW.SPRINT_ID THEN
            INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('sprint', :OLD.SPRINT_ID, 'DELETE');
        END IF;
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('sprint', :NEW.SPRINT_ID, 'UPSERT');
        IF UPDATING AND :OLD.NAME <> :NEW.NAME THEN
            INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
                SELECT 'task', TASK_ID, 'UPSERT' FROM TASKS WHERE SPRINT_ID = :NEW.SPRINT_ID;
        END IF;
    END IF;
END;
/

-- Tasks and sprints show their project's name.
CREATE OR REPLACE TRIGGER PROJECTS_RAG_DIRTY_TRG
AFTER INSERT OR UPDATE OR DELETE ON PROJECTS
FOR EACH ROW
BEGIN
    IF DELETING THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('project', :OLD.PROJECT_ID, 'DELETE');
    ELSE
        IF UPDATING AND :OLD.PROJECT_ID <> :NEW.PROJECT_ID THEN
            INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('project', :OLD.PROJECT_ID, 'DELETE');
        END IF;
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('project', :NEW.PROJECT_ID, 'UPSERT');
        IF UPDATING AND :OLD.NAME <> :NEW.NAME THEN
            INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
                SELECT 'task', TASK_ID, 'UPSERT' FROM TASKS WHERE PROJECT_ID = :NEW.PROJECT_ID;
            INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
                SELECT 'sprint', SPRINT_ID, 'UPSERT' FROM SPRINTS WHERE PROJECT_ID = :NEW.PROJECT_ID;
        END IF;
    END IF;
END;
/

-- A task's text shows its assignee's name. LAST_NAME may be NULL: compare null-safely.
CREATE OR REPLACE TRIGGER EMPLOYEES_RAG_DIRTY_TRG
AFTER UPDATE OF FIRST_NAME, LAST_NAME ON EMPLOYEES
FOR EACH ROW
BEGIN
    IF :OLD.FIRST_NAME <> :NEW.FIRST_NAME
       OR NVL(:OLD.LAST_NAME, CHR(0)) <> NVL(:NEW.LAST_NAME, CHR(0)) THEN
        INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
            SELECT 'task', TASK_ID, 'UPSERT' FROM TASKS WHERE ASSIGNEE_ID = :NEW.EMPLOYEE_ID;
    END IF;
END;
/

-- A comment is part of its task's text: mark the old task and the new one.
CREATE OR REPLACE TRIGGER COMMENTS_RAG_DIRTY_TRG
AFTER INSERT OR UPDATE OR DELETE ON COMMENTS
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
