-- The bot's conversations (DESIGN.md, Chat): one employee's conversations and their messages, and
-- the project auto-summaries a later job writes. Conversations are the employee's own data: they go
-- with the employee (ON DELETE CASCADE, and erasure deletes them explicitly). Ids are never reused.
--
-- RAG_SCOPE is a positive project id as text, 'none' (chunks with no project) or 'all'. A pinned
-- project that is deleted leaves the conversation unpinned (SET NULL); its RAG_SCOPE keeps the old
-- id, which the service treats like any scope naming a project that no longer exists.
-- Timestamps are UTC ISO-8601 text with milliseconds, like every other table here.

CREATE TABLE CONVERSATIONS (
    CONVERSATION_ID   INTEGER PRIMARY KEY AUTOINCREMENT,
    EMPLOYEE_ID       INTEGER NOT NULL REFERENCES EMPLOYEES (EMPLOYEE_ID) ON DELETE CASCADE,
    TITLE             TEXT,
    RAG_SCOPE         TEXT NOT NULL DEFAULT 'all'
                      CHECK (RAG_SCOPE IN ('none', 'all')
                             OR (RAG_SCOPE GLOB '[1-9]*' AND RAG_SCOPE NOT GLOB '*[^0-9]*' AND length(RAG_SCOPE) <= 19)),
    PINNED_PROJECT_ID INTEGER REFERENCES PROJECTS (PROJECT_ID) ON DELETE SET NULL,
    CREATED_AT        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now')),
    UPDATED_AT        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now'))
);
-- An employee's conversations, newest first (list_conversations), and the FK actions.
CREATE INDEX CONVERSATIONS_EMPLOYEE_IDX ON CONVERSATIONS (EMPLOYEE_ID, UPDATED_AT);
CREATE INDEX CONVERSATIONS_PINNED_IDX ON CONVERSATIONS (PINNED_PROJECT_ID);

CREATE TABLE MESSAGES (
    MESSAGE_ID      INTEGER PRIMARY KEY AUTOINCREMENT,
    CONVERSATION_ID INTEGER NOT NULL REFERENCES CONVERSATIONS (CONVERSATION_ID) ON DELETE CASCADE,
    ROLE            TEXT NOT NULL CHECK (ROLE IN ('user', 'assistant')),
    CONTENT         TEXT NOT NULL,
    CITATIONS       TEXT NOT NULL DEFAULT '[]',  -- JSON array of anchors, e.g. ["[TASK #12]"]
    CREATED_AT      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now'))
);
CREATE INDEX MESSAGES_CONVERSATION_IDX ON MESSAGES (CONVERSATION_ID, MESSAGE_ID);

-- Project auto-summaries are data for project matching, NOT chunk text (the templates never read them).
-- Writing one fires the V5 update trigger like any project update: the project is queued once and the
-- worker skips it (its chunk text, hence its hash, is unchanged). Oracle cannot name its CLOB
-- DESCRIPTION in a trigger's UPDATE OF list (ORA-25006), so neither engine narrows the trigger.
ALTER TABLE PROJECTS ADD COLUMN AUTO_SUMMARY TEXT;
ALTER TABLE PROJECTS ADD COLUMN AUTO_SUMMARY_AT TEXT;
