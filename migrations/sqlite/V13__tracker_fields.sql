-- migrate: foreign_keys=off
-- Issue 31, "Store the fields": every field a real tracker has, so a question can be answered from it
-- (who reported it, when it was created, updated, resolved and how, what it affects, what it belongs to).
-- The first line makes the runner rebuild with foreign keys off and check every key before it commits
-- (app/engines/sqlite/migrate.py): TASK_LINKS is rebuilt in step 3.
--
-- 1. TASKS gains its reporter, its three timestamps (UTC naive ISO text, as COMMENTS.CREATED_AT), its
--    resolution ("Fixed", "Won't Fix", "Duplicate", a tracker's own name; NULL = unresolved), environment,
--    affects versions (display text, as FIX_VERSIONS), its parent (the key as the tracker names it, and the
--    task when it is here) and who resolved it (GitHub's closed_by). ADD COLUMN cannot have a non-constant
--    default (https://sqlite.org/lang_altertable.html#altertabaddcol), so CREATED_AT / UPDATED_AT are written
--    by the engine's task writes, not by a default; existing rows keep NULL (not known). A REFERENCES column
--    added this way must default to NULL, which it does. The FK columns are indexed: deleting an employee or a
--    task looks its referencing rows up (SET NULL).
ALTER TABLE TASKS ADD COLUMN REPORTER_ID INTEGER REFERENCES EMPLOYEES (EMPLOYEE_ID) ON DELETE SET NULL;
ALTER TABLE TASKS ADD COLUMN CREATED_AT TEXT;
ALTER TABLE TASKS ADD COLUMN UPDATED_AT TEXT;
ALTER TABLE TASKS ADD COLUMN RESOLVED_AT TEXT;
ALTER TABLE TASKS ADD COLUMN RESOLUTION TEXT;
ALTER TABLE TASKS ADD COLUMN ENVIRONMENT TEXT;
ALTER TABLE TASKS ADD COLUMN AFFECTS_VERSIONS TEXT;
ALTER TABLE TASKS ADD COLUMN PARENT_KEY TEXT;
ALTER TABLE TASKS ADD COLUMN PARENT_ID INTEGER REFERENCES TASKS (TASK_ID) ON DELETE SET NULL;
ALTER TABLE TASKS ADD COLUMN RESOLVED_BY_ID INTEGER REFERENCES EMPLOYEES (EMPLOYEE_ID) ON DELETE SET NULL;
CREATE INDEX TASKS_REPORTER_IDX ON TASKS (REPORTER_ID);
CREATE INDEX TASKS_PARENT_IDX ON TASKS (PARENT_ID);
CREATE INDEX TASKS_RESOLVED_BY_IDX ON TASKS (RESOLVED_BY_ID);

-- 2. The queryable form of the multi-valued fields: one row per value, each value whole (never split on
--    spaces; "Release 2.1" is one fix version). LABELS / COMPONENTS / FIX_VERSIONS / AFFECTS_VERSIONS stay as
--    the display text, written by the same engine call from the same list. A value goes with its task.
--    (FIELD, VALUE) serves "tasks labelled X"; the key (TASK_ID first) serves a task's own values and the
--    cascade.
CREATE TABLE TASK_VALUES (
    TASK_ID INTEGER NOT NULL REFERENCES TASKS (TASK_ID) ON DELETE CASCADE,
    FIELD   TEXT NOT NULL CHECK (FIELD IN ('LABEL', 'COMPONENT', 'FIX_VERSION', 'AFFECTS_VERSION')),
    VALUE   TEXT NOT NULL CHECK (length(VALUE) BETWEEN 1 AND 200),
    PRIMARY KEY (TASK_ID, FIELD, VALUE)
) WITHOUT ROWID;
CREATE INDEX TASK_VALUES_VALUE_IDX ON TASK_VALUES (FIELD, VALUE);

-- Backfill from the display text written before this version (", "-joined by app/sources): each part, trimmed,
-- is one value; an empty part or one over 200 characters is left out (no such value can be stored whole).
-- A value that itself held ", " was already indistinguishable in the text and comes back as two.
WITH RECURSIVE PARTS (TASK_ID, FIELD, VALUE, REST) AS (
    SELECT TASK_ID, 'LABEL', NULL, LABELS || ', ' FROM TASKS WHERE LABELS IS NOT NULL
    UNION ALL
    SELECT TASK_ID, 'COMPONENT', NULL, COMPONENTS || ', ' FROM TASKS WHERE COMPONENTS IS NOT NULL
    UNION ALL
    SELECT TASK_ID, 'FIX_VERSION', NULL, FIX_VERSIONS || ', ' FROM TASKS WHERE FIX_VERSIONS IS NOT NULL
    UNION ALL
    SELECT TASK_ID, FIELD, substr(REST, 1, instr(REST, ', ') - 1), substr(REST, instr(REST, ', ') + 2)
    FROM PARTS WHERE REST <> ''
)
INSERT OR IGNORE INTO TASK_VALUES (TASK_ID, FIELD, VALUE)
SELECT TASK_ID, FIELD, trim(VALUE) FROM PARTS
WHERE VALUE IS NOT NULL AND length(trim(VALUE)) BETWEEN 1 AND 200;

-- 3. TASK_LINKS.LINK_TYPE widened to every direction a tracker names, still read from the task's own side
--    (DEPENDED_ON_BY: the target depends on this task). A CHECK cannot be altered, so the table is rebuilt by
--    the documented procedure (https://sqlite.org/lang_altertable.html#otheralter): create the new table, copy,
--    drop the old one (its triggers go with it), rename, then create its indexes and triggers again, unchanged
--    from V11. AUTOINCREMENT's counter is carried over before the drop deletes it, so a deleted link's id is
--    never handed out again (V5).
CREATE TABLE TASK_LINKS_NEW (
    LINK_ID        INTEGER PRIMARY KEY AUTOINCREMENT,
    TASK_ID        INTEGER NOT NULL REFERENCES TASKS (TASK_ID) ON DELETE CASCADE,
    LINK_TYPE      TEXT NOT NULL CHECK (LINK_TYPE IN ('BLOCKS', 'BLOCKED_BY', 'DEPENDS_ON', 'DEPENDED_ON_BY',
                                                      'DUPLICATES', 'DUPLICATED_BY', 'CLONES', 'CLONED_BY',
                                                      'RELATES')),
    TARGET_KEY     TEXT NOT NULL,
    TARGET_TASK_ID INTEGER REFERENCES TASKS (TASK_ID) ON DELETE SET NULL,
    UNIQUE (TASK_ID, LINK_TYPE, TARGET_KEY)
);
INSERT INTO TASK_LINKS_NEW (LINK_ID, TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID)
    SELECT LINK_ID, TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID FROM TASK_LINKS;
DELETE FROM sqlite_sequence WHERE name = 'TASK_LINKS_NEW';
INSERT INTO sqlite_sequence (name, seq) SELECT 'TASK_LINKS_NEW', seq FROM sqlite_sequence WHERE name = 'TASK_LINKS';
DROP TABLE TASK_LINKS;
ALTER TABLE TASK_LINKS_NEW RENAME TO TASK_LINKS;
CREATE INDEX TASK_LINKS_TARGET_IDX ON TASK_LINKS (TARGET_TASK_ID);
CREATE INDEX TASK_LINKS_KEY_IDX ON TASK_LINKS (TARGET_KEY);

CREATE TRIGGER TASK_LINKS_RAG_AI AFTER INSERT ON TASK_LINKS BEGIN
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', NEW.TASK_ID, 'UPSERT');
END;

CREATE TRIGGER TASK_LINKS_RAG_AU AFTER UPDATE ON TASK_LINKS BEGIN
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
        SELECT 'task', OLD.TASK_ID, 'UPSERT'
        WHERE OLD.TASK_ID IS NOT NEW.TASK_ID AND EXISTS (SELECT 1 FROM TASKS WHERE TASK_ID = OLD.TASK_ID);
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', NEW.TASK_ID, 'UPSERT');
END;

CREATE TRIGGER TASK_LINKS_RAG_AD AFTER DELETE ON TASK_LINKS
WHEN EXISTS (SELECT 1 FROM TASKS WHERE TASK_ID = OLD.TASK_ID) BEGIN
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', OLD.TASK_ID, 'UPSERT');
END;

-- 4. Triggers. A task's chunk shows its labels, components and versions, so a change to its values marks the
--    task (TASK_LINKS_RAG_*'s shape); a value deleted by its task's cascade marks nothing.
CREATE TRIGGER TASK_VALUES_RAG_AI AFTER INSERT ON TASK_VALUES BEGIN
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', NEW.TASK_ID, 'UPSERT');
END;

CREATE TRIGGER TASK_VALUES_RAG_AU AFTER UPDATE ON TASK_VALUES BEGIN
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
        SELECT 'task', OLD.TASK_ID, 'UPSERT'
        WHERE OLD.TASK_ID IS NOT NEW.TASK_ID AND EXISTS (SELECT 1 FROM TASKS WHERE TASK_ID = OLD.TASK_ID);
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', NEW.TASK_ID, 'UPSERT');
END;

CREATE TRIGGER TASK_VALUES_RAG_AD AFTER DELETE ON TASK_VALUES
WHEN EXISTS (SELECT 1 FROM TASKS WHERE TASK_ID = OLD.TASK_ID) BEGIN
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES ('task', OLD.TASK_ID, 'UPSERT');
END;

-- The chunk shows the reporter ("Reporter: Chen Wei"): renaming a person marks the tasks they reported too
-- (V11's trigger, widened). A deleted reporter is covered by ON DELETE SET NULL, which fires TASKS_RAG_AU.
DROP TRIGGER EMPLOYEES_RAG_NAME_AU;
CREATE TRIGGER EMPLOYEES_RAG_NAME_AU AFTER UPDATE OF FIRST_NAME, LAST_NAME ON EMPLOYEES
WHEN OLD.FIRST_NAME IS NOT NEW.FIRST_NAME OR OLD.LAST_NAME IS NOT NEW.LAST_NAME BEGIN
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
        SELECT 'task', TASK_ID, 'UPSERT' FROM TASKS
        WHERE ASSIGNEE_ID = NEW.EMPLOYEE_ID OR REPORTER_ID = NEW.EMPLOYEE_ID;
    INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
        SELECT DISTINCT 'task', TASK_ID, 'UPSERT' FROM COMMENTS WHERE AUTHOR_ID = NEW.EMPLOYEE_ID;
END;

-- 5. Every task's chunk template changes (the new lines): queue them all, as V11 did.
INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) SELECT 'task', TASK_ID, 'UPSERT' FROM TASKS;
