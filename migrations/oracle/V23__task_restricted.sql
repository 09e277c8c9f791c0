-- Issue 32, the same change as migrations/sqlite/V17: a Jira issue-security level withholds an issue from the
-- members of its project. RESTRICTED is 1 for a task the tracker restricts (an imported Jira issue whose
-- fields.security names a level), 0 otherwise (native tasks, GitHub issues, every row written before this version).
-- Under RAG_ACCESS_RULE=project the membership branch of the access rule skips a restricted task (only its assignee,
-- managers and admins see it), read in the query itself as the membership is: a pass that sets or clears it counts
-- on the writer's commit, with the worker stopped; no chunk changes, so no trigger.
-- Plain DDL (FACTS.md §10): ALTER TABLE ... ADD (column) as V22, with a constant DEFAULT and NOT NULL
-- [DOC sqlrf ALTER TABLE, add_column_clause: column_definition DEFAULT expr, inline NOT NULL and CHECK constraints].
ALTER TABLE TASKS ADD (RESTRICTED NUMBER(1) DEFAULT 0 NOT NULL CONSTRAINT TASKS_RESTRICTED_CK CHECK (RESTRICTED IN (0, 1)));
