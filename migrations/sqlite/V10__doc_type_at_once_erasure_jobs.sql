-- Issue 20: a document's type moves with the writer, and an erasure records its progress.
--
-- 1. DOC_TYPE at once (DESIGN.md, Write path 5), like owner, project and assignee in V5: a re-typed
--    document leaves and joins doc-type scopes in the writer's own transaction; only its text waits for
--    the worker. Chunks store the type's normal form (app.rag.scope.doc_type_key): trimmed of ASCII
--    blanks, 1-40 of letters, digits, space, '_' or '-', upper-cased; anything else is NULL (no doc-type
--    scope selects it). trim(X, Y) strips the characters of Y; GLOB '[^...]' matches a character outside
--    the set ('-' last is literal); upper() folds ASCII, the only letters left (tests/sqlite/
--    test_sqlite_triggers.py compares this expression with doc_type_key). RAG_CHUNK_AU (V2) logs the
--    changed chunks, so every process's in-memory indexes apply the new type on their next search.
--    INSERT OR REPLACE of a document fires the insert trigger (as V5's access triggers).

CREATE TRIGGER DOCUMENTS_RAG_DOC_TYPE_AU AFTER UPDATE OF DOC_TYPE ON DOCUMENTS
WHEN OLD.DOC_TYPE IS NOT NEW.DOC_TYPE BEGIN
    UPDATE RAG_CHUNK SET DOC_TYPE = (
        SELECT CASE WHEN k <> '' AND length(k) <= 40 AND k NOT GLOB '*[^A-Za-z0-9_ -]*' THEN upper(k) END
        FROM (SELECT trim(NEW.DOC_TYPE, char(32, 9, 10, 13, 12, 11)) AS k))
    WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = NEW.DOCUMENT_ID;
END;

CREATE TRIGGER DOCUMENTS_RAG_DOC_TYPE_AI AFTER INSERT ON DOCUMENTS BEGIN
    UPDATE RAG_CHUNK SET DOC_TYPE = (
        SELECT CASE WHEN k <> '' AND length(k) <= 40 AND k NOT GLOB '*[^A-Za-z0-9_ -]*' THEN upper(k) END
        FROM (SELECT trim(NEW.DOC_TYPE, char(32, 9, 10, 13, 12, 11)) AS k))
    WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = NEW.DOCUMENT_ID;
END;

-- Chunks of documents re-typed before this version while the worker had not caught up: in step now.
UPDATE RAG_CHUNK SET DOC_TYPE = (
    SELECT CASE WHEN k <> '' AND length(k) <= 40 AND k NOT GLOB '*[^A-Za-z0-9_ -]*' THEN upper(k) END
    FROM (SELECT trim(d.DOC_TYPE, char(32, 9, 10, 13, 12, 11)) AS k FROM DOCUMENTS d
          WHERE d.DOCUMENT_ID = RAG_CHUNK.SOURCE_ID))
WHERE SOURCE_TYPE = 'doc';

-- 2. Erasure is a job (DESIGN.md): one row per erased employee, written in the transaction that deletes
--    them and outliving them (no foreign key), so a stopped erasure can be finished or re-proved
--    (`ragctl erase-employee ID --resume`, or the same DELETE again). STEP is the last step done
--    (app.rag.erasure.STEPS). REPORT and OUTCOME are JSON with ids, counts, labels and fingerprints, never
--    the erased text. HELD keeps the person's strings, sealed (app.rag.erasure.seal), until the proof has
--    passed; the last step sets it to NULL. Ids are never reused (V5), so one row per employee id.
CREATE TABLE ERASURE_JOBS (
    EMPLOYEE_ID   INTEGER PRIMARY KEY,
    STEP          TEXT NOT NULL CHECK (STEP IN ('delete', 'reindex', 'redact', 'purge', 'compact', 'prove', 'forget')),
    DOCUMENTS     TEXT CHECK (DOCUMENTS IN ('delete', 'reassign')),
    REPORT        TEXT NOT NULL,
    OUTCOME       TEXT NOT NULL DEFAULT '{}',
    VERDICT       TEXT CHECK (VERDICT IN ('proven', 'not proven')),
    HELD          BLOB,
    STARTED_AT    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now')),
    UPDATED_AT    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now'))
);
