-- RAG storage: chunks (text + access/scope metadata), their vectors (sqlite-vec), a lexical
-- index (FTS5) and the work queue. AUDIENCE is app.rag.access.audience() of the chunk, stored so
-- the access rule is one membership test (AUDIENCE IN (0, :me)) in every plan.

CREATE TABLE RAG_CHUNK (
    CHUNK_ID          INTEGER PRIMARY KEY,
    SOURCE_TYPE       TEXT NOT NULL CHECK (SOURCE_TYPE IN ('task', 'sprint', 'project', 'doc')),
    SOURCE_ID         INTEGER NOT NULL,
    CHUNK_IX          INTEGER NOT NULL,
    OWNER_EMPLOYEE_ID INTEGER,
    PROJECT_ID        INTEGER,
    SPRINT_ID         INTEGER,
    AUDIENCE          INTEGER NOT NULL,
    CONTENT           TEXT NOT NULL,
    CONTENT_HASH      TEXT NOT NULL,
    UPDATED_AT        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now')),
    UNIQUE (SOURCE_TYPE, SOURCE_ID, CHUNK_IX)
);
CREATE INDEX RAG_CHUNK_AUDIENCE_IDX ON RAG_CHUNK (AUDIENCE);

-- The durable vectors. Searches run on an in-memory exact index mirrored from this table
-- (vector_index.py): vec0's KNN is ~5x slower than a numpy scan at 100k x 384.
CREATE VIRTUAL TABLE RAG_VEC USING vec0(
    CHUNK_ID INTEGER PRIMARY KEY,
    EMBEDDING float[384] distance_metric=cosine,
    AUDIENCE INTEGER,
    SOURCE_TYPE TEXT
);

-- External-content FTS5 over RAG_CHUNK.CONTENT; remove_diacritics 2: demo data is partly Spanish.
CREATE VIRTUAL TABLE RAG_FTS USING fts5(
    CONTENT,
    content = 'RAG_CHUNK',
    content_rowid = 'CHUNK_ID',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- Change log read by every process's in-memory vector index: it applies the chunk ids changed
-- since the last SEQ it saw. Rows at or below RAG_META.pruned_through may be gone (full reload).
CREATE TABLE RAG_CHUNK_CHANGES (
    SEQ      INTEGER PRIMARY KEY AUTOINCREMENT,
    CHUNK_ID INTEGER NOT NULL
);

CREATE TABLE RAG_META (
    KEY   TEXT PRIMARY KEY,
    VALUE INTEGER NOT NULL
);
INSERT INTO RAG_META (KEY, VALUE) VALUES ('epoch', 1), ('pruned_through', 0);

CREATE TRIGGER RAG_CHUNK_AI AFTER INSERT ON RAG_CHUNK BEGIN
    INSERT INTO RAG_FTS (rowid, CONTENT) VALUES (NEW.CHUNK_ID, NEW.CONTENT);
    INSERT INTO RAG_CHUNK_CHANGES (CHUNK_ID) VALUES (NEW.CHUNK_ID);
END;

CREATE TRIGGER RAG_CHUNK_AU AFTER UPDATE ON RAG_CHUNK BEGIN
    INSERT INTO RAG_FTS (RAG_FTS, rowid, CONTENT) VALUES ('delete', OLD.CHUNK_ID, OLD.CONTENT);
    INSERT INTO RAG_FTS (rowid, CONTENT) VALUES (NEW.CHUNK_ID, NEW.CONTENT);
    INSERT INTO RAG_CHUNK_CHANGES (CHUNK_ID) VALUES (OLD.CHUNK_ID);
    INSERT INTO RAG_CHUNK_CHANGES (CHUNK_ID) SELECT NEW.CHUNK_ID WHERE NEW.CHUNK_ID <> OLD.CHUNK_ID;
END;

-- A chunk's vector never outlives it, whoever deletes the chunk.
CREATE TRIGGER RAG_CHUNK_AD AFTER DELETE ON RAG_CHUNK BEGIN
    INSERT INTO RAG_FTS (RAG_FTS, rowid, CONTENT) VALUES ('delete', OLD.CHUNK_ID, OLD.CONTENT);
    DELETE FROM RAG_VEC WHERE CHUNK_ID = OLD.CHUNK_ID;
    INSERT INTO RAG_CHUNK_CHANGES (CHUNK_ID) VALUES (OLD.CHUNK_ID);
END;

CREATE TABLE RAG_DIRTY (
    DIRTY_ID        INTEGER PRIMARY KEY AUTOINCREMENT,
    SOURCE_TYPE     TEXT NOT NULL CHECK (SOURCE_TYPE IN ('task', 'sprint', 'project', 'doc')),
    SOURCE_ID       INTEGER NOT NULL,
    ACTION          TEXT NOT NULL CHECK (ACTION IN ('UPSERT', 'DELETE')),
    ENQUEUED_AT     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now')),
    ATTEMPTS        INTEGER NOT NULL DEFAULT 0,
    LAST_ERROR      TEXT,
    LAST_ATTEMPT_AT TEXT
);
CREATE INDEX RAG_DIRTY_PICK_IDX ON RAG_DIRTY (ENQUEUED_AT, DIRTY_ID);
CREATE INDEX RAG_DIRTY_SOURCE_IDX ON RAG_DIRTY (SOURCE_TYPE, SOURCE_ID);
