-- Who may see a chunk changes in the writer's own transaction (DESIGN.md, Write path 5); the same
-- rules as migrations/sqlite/V5. Oracle identity columns never hand out an id twice, so that part of
-- the SQLite change has no twin here. Only the text waits for the worker.
--
-- The access rule reads RAG_CHUNK.OWNER_EMPLOYEE_ID and SOURCE_TYPE (statements.ACCESS_PREDICATE), so
-- a task's assignee and a document's owner are copied onto their chunks at once; PROJECT_ID and
-- SPRINT_ID (the scope) follow too, and a deleted source's chunks go with it (so do the old id's
-- chunks when a client changes a source's id).
-- ORA-04091 (FACTS.md §10): these row triggers change only RAG_CHUNK and RAG_DIRTY, never their own
-- table, and read nothing but :OLD/:NEW, so they are also safe when an ON DELETE SET NULL cascade of a
-- deleted project or employee fires them. Lock order is the source row, then its chunks: the worker's
-- write path locks the same source row first (statements.lock_sources), so the two cannot deadlock.
-- Trigger events `UPDATE OF col, ... OR DELETE ON t ... FOR EACH ROW`: the dml_event_clause of CREATE TRIGGER
-- [DOC sqlrf/lnpls: { DELETE | INSERT | UPDATE [OF column, ...] } [OR ...]], as V6 uses `UPDATE OF` and FACTS.md §10
-- `INSERT OR UPDATE OR DELETE`.
-- PL/SQL blocks end with a line holding a single '/', as in SQL*Plus (app/engines/oracle/migrate.py).

CREATE OR REPLACE TRIGGER TASKS_RAG_ACCESS_TRG
AFTER UPDATE OF TASK_ID, ASSIGNEE_ID, PROJECT_ID, SPRINT_ID OR DELETE ON TASKS
FOR EACH ROW
BEGIN
    IF DELETING OR :OLD.TASK_ID <> :NEW.TASK_ID THEN
        DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = 'task' AND SOURCE_ID = :OLD.TASK_ID;
    END IF;
    IF UPDATING THEN
        UPDATE RAG_CHUNK
           SET OWNER_EMPLOYEE_ID = :NEW.ASSIGNEE_ID, PROJECT_ID = :NEW.PROJECT_ID, SPRINT_ID = :NEW.SPRINT_ID
         WHERE SOURCE_TYPE = 'task' AND SOURCE_ID = :NEW.TASK_ID;
    END IF;
END;
/

CREATE OR REPLACE TRIGGER DOCUMENTS_RAG_ACCESS_TRG
AFTER UPDATE OF DOCUMENT_ID, OWNER_EMPLOYEE_ID, PROJECT_ID OR DELETE ON DOCUMENTS
FOR EACH ROW
BEGIN
    IF DELETING OR :OLD.DOCUMENT_ID <> :NEW.DOCUMENT_ID THEN
        DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = :OLD.DOCUMENT_ID;
    END IF;
    IF UPDATING THEN
        UPDATE RAG_CHUNK SET OWNER_EMPLOYEE_ID = :NEW.OWNER_EMPLOYEE_ID, PROJECT_ID = :NEW.PROJECT_ID
         WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = :NEW.DOCUMENT_ID;
    END IF;
END;
/

CREATE OR REPLACE TRIGGER SPRINTS_RAG_ACCESS_TRG
AFTER UPDATE OF SPRINT_ID, PROJECT_ID OR DELETE ON SPRINTS
FOR EACH ROW
BEGIN
    IF DELETING OR :OLD.SPRINT_ID <> :NEW.SPRINT_ID THEN
        DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = 'sprint' AND SOURCE_ID = :OLD.SPRINT_ID;
    END IF;
    IF UPDATING THEN
        UPDATE RAG_CHUNK SET PROJECT_ID = :NEW.PROJECT_ID WHERE SOURCE_TYPE = 'sprint' AND SOURCE_ID = :NEW.SPRINT_ID;
    END IF;
END;
/

CREATE OR REPLACE TRIGGER PROJECTS_RAG_ACCESS_TRG
AFTER UPDATE OF PROJECT_ID OR DELETE ON PROJECTS
FOR EACH ROW
BEGIN
    IF DELETING OR :OLD.PROJECT_ID <> :NEW.PROJECT_ID THEN
        DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = 'project' AND SOURCE_ID = :OLD.PROJECT_ID;
    END IF;
END;
/

-- Failing queue rows wait until NEXT_ATTEMPT_AT (exponential backoff) before the claim takes them
-- again. Plain DDL like V8 (FACTS.md §10); it commits implicitly.
ALTER TABLE RAG_DIRTY ADD (NEXT_ATTEMPT_AT TIMESTAMP);
