-- Issue 32, the last point of "Synced from the tracker": a Jira issue-security level withholds an issue from the
-- members of its project. RESTRICTED is 1 for a task the tracker restricts (an imported Jira issue whose
-- fields.security names a level), 0 otherwise (native tasks, GitHub issues, every row written before this version).
-- Under RAG_ACCESS_RULE=project the membership branch of the access rule skips a restricted task: only its assignee
-- (and managers and admins) see it. The flag is read in the query itself, as the membership is, so a pass that sets
-- or clears it changes what a member sees on the writer's commit, with the worker stopped; no chunk changes.
-- Plain ADD COLUMN with a constant default (https://sqlite.org/lang_altertable.html).
ALTER TABLE TASKS ADD COLUMN RESTRICTED INTEGER NOT NULL DEFAULT 0 CHECK (RESTRICTED IN (0, 1));
-- The restricted tasks, few beside the rest: the search reads their chunks on each member's question.
CREATE INDEX TASKS_RESTRICTED_IDX ON TASKS (TASK_ID) WHERE RESTRICTED = 1;
