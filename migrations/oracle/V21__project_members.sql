-- Issue 32: project membership, the second access rule (RAG_ACCESS_RULE=project); the same table as
-- migrations/sqlite/V15. A developer who is a member of a project also sees every task of it (with its comments
-- and links), tested in each statement against this table, so a membership written here changes what that
-- person sees at the writer's commit, with the worker stopped: no chunk changes, no RAG_DIRTY row.
-- SOURCE says who set the row (a manual PUT, a tracker sync, a mapping file, derived from activity); a sync
-- replaces only its own source's rows. Ids only, no personal text. A row goes with its project or its employee
-- (ON DELETE CASCADE, as MESSAGE_ENTITIES_MESSAGE_FK in V17 and CONVERSATIONS_EMPLOYEE_FK in V10). ADDED_AT is a
-- plain TIMESTAMP holding UTC (FACTS.md §10, as V10's CREATED_AT). The primary key index (PROJECT_ID first)
-- serves a project's list; PROJECT_MEMBERS_EMPLOYEE_IDX serves "the projects of this caller" and the employee
-- cascade. Plain DDL (FACTS.md §10).
CREATE TABLE PROJECT_MEMBERS (
    PROJECT_ID  NUMBER(19) NOT NULL
                CONSTRAINT PROJECT_MEMBERS_PROJECT_FK REFERENCES PROJECTS (PROJECT_ID) ON DELETE CASCADE,
    EMPLOYEE_ID NUMBER(19) NOT NULL
                CONSTRAINT PROJECT_MEMBERS_EMPLOYEE_FK REFERENCES EMPLOYEES (EMPLOYEE_ID) ON DELETE CASCADE,
    SOURCE      VARCHAR2(16) NOT NULL
                CONSTRAINT PROJECT_MEMBERS_SOURCE_CK CHECK (SOURCE IN ('manual', 'jira', 'github', 'file', 'activity')),
    ADDED_AT    TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL,
    CONSTRAINT PROJECT_MEMBERS_PK PRIMARY KEY (PROJECT_ID, EMPLOYEE_ID)
);
CREATE INDEX PROJECT_MEMBERS_EMPLOYEE_IDX ON PROJECT_MEMBERS (EMPLOYEE_ID, PROJECT_ID);
