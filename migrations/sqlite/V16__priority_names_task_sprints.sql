-- Issue 31, the tracker's own priorities and every sprint an issue was in (V15 is the `members` branch's).
--
-- 1. TASKS keeps the tracker's own priority beside ours: PRIORITY stays our level (CRITICAL, HIGH, MEDIUM, LOW),
--    PRIORITY_NAME is the tracker's name ("Blocker", "Major", "Trivial", a custom one; at most 100 characters)
--    and PRIORITY_RANK its place in the tracker's order (1 = the most important; NULL = unknown), so "minor
--    bugs" is not "trivial bugs" and the most important of two CRITICAL issues is the Blocker. NULL for native
--    tasks and rows written before this version. Plain ADD COLUMN (https://sqlite.org/lang_altertable.html).
ALTER TABLE TASKS ADD COLUMN PRIORITY_NAME TEXT;
ALTER TABLE TASKS ADD COLUMN PRIORITY_RANK INTEGER;

-- 2. Every sprint a task was in (a Jira issue's sprint field lists each sprint it was carried over through);
--    TASKS.SPRINT_ID stays the latest. A row goes with its task and with its sprint (CASCADE). The key (TASK_ID
--    first) serves a task's own sprints and the task's cascade; the SPRINT_ID index serves "in sprint X" and the
--    sprint's cascade. No trigger: the chunk shows only the latest sprint, so this set changes no chunk.
CREATE TABLE TASK_SPRINTS (
    TASK_ID   INTEGER NOT NULL REFERENCES TASKS (TASK_ID) ON DELETE CASCADE,
    SPRINT_ID INTEGER NOT NULL REFERENCES SPRINTS (SPRINT_ID) ON DELETE CASCADE,
    PRIMARY KEY (TASK_ID, SPRINT_ID)
) WITHOUT ROWID;
CREATE INDEX TASK_SPRINTS_SPRINT_IDX ON TASK_SPRINTS (SPRINT_ID);
