-- Every entity an assistant turn rests on; the same change as migrations/sqlite/V12. MESSAGES.CITATIONS
-- (VARCHAR2(4000 BYTE)) holds the first 100 anchors and RETRIEVED the best 64 chunks, so withdrawal could
-- not see past them (issue 26 point 7): one row per (message, entity), no limit. Ids only, no personal text.
-- The rows go with their message (ON DELETE CASCADE, as MESSAGES_CONVERSATION_FK in V10). The primary key
-- index (MESSAGE_ID first) serves the reads by message and the cascade. Plain DDL (FACTS.md §10).
CREATE TABLE MESSAGE_ENTITIES (
    MESSAGE_ID  NUMBER(19) NOT NULL
                CONSTRAINT MESSAGE_ENTITIES_MESSAGE_FK REFERENCES MESSAGES (MESSAGE_ID) ON DELETE CASCADE,
    SOURCE_TYPE VARCHAR2(16) NOT NULL
                CONSTRAINT MESSAGE_ENTITIES_TYPE_CK CHECK (SOURCE_TYPE IN ('task', 'sprint', 'project', 'doc')),
    SOURCE_ID   NUMBER(19) NOT NULL,
    CONSTRAINT MESSAGE_ENTITIES_PK PRIMARY KEY (MESSAGE_ID, SOURCE_TYPE, SOURCE_ID)
);
