-- Issue 32: project membership, the second access rule (RAG_ACCESS_RULE=project). A developer who is a member
-- of a project also sees every task of it (with its comments and links), read in the query itself, so a
-- membership written here changes what that person sees on the writer's commit, with the worker stopped: no
-- chunk changes, no queue row (the chunks of a task carry its PROJECT_ID already).
-- SOURCE says who set the row: a manual PUT, a tracker sync (jira, github), a mapping file, or derived from
-- activity (ragctl import --members-from-activity); a sync replaces only its own source's rows.
-- Ids only, no personal text; a row goes with its project or its employee (ON DELETE CASCADE, erasure).
CREATE TABLE PROJECT_MEMBERS (
    PROJECT_ID  INTEGER NOT NULL REFERENCES PROJECTS (PROJECT_ID) ON DELETE CASCADE,
    EMPLOYEE_ID INTEGER NOT NULL REFERENCES EMPLOYEES (EMPLOYEE_ID) ON DELETE CASCADE,
    SOURCE      TEXT NOT NULL CHECK (SOURCE IN ('manual', 'jira', 'github', 'file', 'activity')),
    ADDED_AT    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now')),
    PRIMARY KEY (PROJECT_ID, EMPLOYEE_ID)
) WITHOUT ROWID;
CREATE INDEX PROJECT_MEMBERS_EMPLOYEE_IDX ON PROJECT_MEMBERS (EMPLOYEE_ID, PROJECT_ID);
