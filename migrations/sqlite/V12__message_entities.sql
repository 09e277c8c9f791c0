-- Every entity an assistant turn rests on (issue 26 point 7): MESSAGES.CITATIONS keeps the first 100
-- anchors and RETRIEVED the best 64 chunks (what their columns hold on Oracle), so an answer naming 160
-- tasks was still shown after task #150 left the asker's sight. One row per (message, entity), no limit:
-- withdrawal (app/services/conversations.py) checks all of them against the access rule now. Ids only,
-- no personal text; the rows go with their message (ON DELETE CASCADE: a deleted conversation, an erased
-- employee's conversations). Rows of answers stored before this version do not exist: those answers are
-- judged by their citations, focus and retrieved chunks, and withdrawn when those hit their caps.
CREATE TABLE MESSAGE_ENTITIES (
    MESSAGE_ID  INTEGER NOT NULL REFERENCES MESSAGES (MESSAGE_ID) ON DELETE CASCADE,
    SOURCE_TYPE TEXT NOT NULL CHECK (SOURCE_TYPE IN ('task', 'sprint', 'project', 'doc')),
    SOURCE_ID   INTEGER NOT NULL,
    PRIMARY KEY (MESSAGE_ID, SOURCE_TYPE, SOURCE_ID)
) WITHOUT ROWID;
