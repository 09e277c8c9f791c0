-- Issue 31, the same change as migrations/sqlite/V16: the tracker's own priorities and every sprint an issue was in
-- (V21 is the `members` branch's).
--
-- 1. TASKS keeps the tracker's own priority beside ours: PRIORITY stays our level, PRIORITY_NAME is the tracker's
--    name ("Blocker", "Major", "Trivial", a custom one; 100 characters) and PRIORITY_RANK its place in the
--    tracker's order (1 = the most important; NULL = unknown). NULL for native tasks and rows written before this
--    version. Plain DDL (FACTS.md §10): ALTER TABLE ... ADD (columns) as V16/V18; no DEFAULT, nothing to backfill.
ALTER TABLE TASKS ADD (PRIORITY_NAME VARCHAR2(100 CHAR), PRIORITY_RANK NUMBER(10));

-- 2. Every sprint a task was in; TASKS.SPRINT_ID stays the latest. The shape of V18's TASK_VALUES: each foreign key
--    inline with ON DELETE CASCADE (a row goes with its task and with its sprint), a composite PRIMARY KEY whose
--    first column serves the task's cascade, an index on SPRINT_ID for "in sprint X" and the sprint's cascade
--    (FACTS.md §10). No trigger: the chunk shows only the latest sprint. No table trigger reads TASK_SPRINTS, so a
--    cascade from TASKS or SPRINTS into it cannot raise ORA-04091 (FACTS.md §12.9).
CREATE TABLE TASK_SPRINTS (
    TASK_ID   NUMBER(19) NOT NULL CONSTRAINT TASK_SPRINTS_TASK_FK REFERENCES TASKS (TASK_ID) ON DELETE CASCADE,
    SPRINT_ID NUMBER(19) NOT NULL
              CONSTRAINT TASK_SPRINTS_SPRINT_FK REFERENCES SPRINTS (SPRINT_ID) ON DELETE CASCADE,
    CONSTRAINT TASK_SPRINTS_PK PRIMARY KEY (TASK_ID, SPRINT_ID)
);
CREATE INDEX TASK_SPRINTS_SPRINT_IDX ON TASK_SPRINTS (SPRINT_ID);
