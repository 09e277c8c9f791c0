-- Issue 20, the same two changes as migrations/sqlite/V10: a document's type moves with the writer, and an
-- erasure records its progress.
--
-- 1. DOC_TYPE at once (DESIGN.md, Write path 5), like owner and project in V9: V9's DOCUMENTS_RAG_ACCESS_TRG is
--    replaced with DOC_TYPE in its UPDATE OF list and in its SET. Chunks store the type's normal form
--    (app.rag.scope.doc_type_key): trimmed of ASCII blanks, 1-40 of letters, digits, space, '_' or '-',
--    upper-cased; anything else is NULL. Shapes, each a documented SQL function in a V9-shaped trigger UPDATE:
--    LTRIM/RTRIM(char, set) strip the characters of set [DOC sqlrf LTRIM, RTRIM]; TRANSLATE(k, '#<allowed>', '#')
--    removes every allowed character, so it is NULL exactly when k has no other [DOC 12.2 sqlrf TRANSLATE: "To
--    remove all characters in from_string, concatenate another character to the beginning of from_string and
--    specify this character as the to_string"; an empty result is NULL]; LENGTH counts characters; UPPER folds the
--    ASCII letters that are all that is left. A NULL or blank type gives NULL (LENGTH(NULL) <= 40 is not true).
--    tests/oracle/test_oracle_migrate.py pins this text; tests/conformance/test_access_at_once.py runs it (Oracle leg).
--    ORA-04091 (FACTS.md §10): the trigger still changes only RAG_CHUNK and reads only :OLD/:NEW.
-- PL/SQL blocks end with a line holding a single '/' (app/engines/oracle/migrate.py).

CREATE OR REPLACE TRIGGER DOCUMENTS_RAG_ACCESS_TRG
AFTER UPDATE OF DOCUMENT_ID, OWNER_EMPLOYEE_ID, PROJECT_ID, DOC_TYPE OR DELETE ON DOCUMENTS
FOR EACH ROW
BEGIN
    IF DELETING OR :OLD.DOCUMENT_ID <> :NEW.DOCUMENT_ID THEN
        DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = :OLD.DOCUMENT_ID;
    END IF;
    IF UPDATING THEN
        UPDATE RAG_CHUNK
           SET OWNER_EMPLOYEE_ID = :NEW.OWNER_EMPLOYEE_ID, PROJECT_ID = :NEW.PROJECT_ID,
               DOC_TYPE = CASE
                   WHEN LENGTH(LTRIM(RTRIM(:NEW.DOC_TYPE, ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                     ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13))) <= 40
                    AND TRANSLATE(LTRIM(RTRIM(:NEW.DOC_TYPE, ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                        ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                  '#ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ -', '#') IS NULL
                   THEN UPPER(LTRIM(RTRIM(:NEW.DOC_TYPE, ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                    ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)))
               END
         WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = :NEW.DOCUMENT_ID;
    END IF;
END;
/

-- Chunks of documents re-typed before this version while the worker had not caught up: in step now. The same
-- expression over the document's current row, in a correlated UPDATE (FACTS.md §10: plain DML).
UPDATE RAG_CHUNK c
   SET DOC_TYPE = (
       SELECT CASE
                  WHEN LENGTH(LTRIM(RTRIM(d.DOC_TYPE, ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                    ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13))) <= 40
                   AND TRANSLATE(LTRIM(RTRIM(d.DOC_TYPE, ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                       ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                 '#ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ -', '#') IS NULL
                  THEN UPPER(LTRIM(RTRIM(d.DOC_TYPE, ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)),
                                   ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)))
              END
       FROM DOCUMENTS d WHERE d.DOCUMENT_ID = c.SOURCE_ID)
 WHERE c.SOURCE_TYPE = 'doc';

-- 2. Erasure is a job (DESIGN.md): one row per erased employee, written in the transaction that deletes them and
--    outliving them (no foreign key), as migrations/sqlite/V10 says. REPORT and OUTCOME are JSON text (ids,
--    counts, labels, fingerprints; never the erased text) in CLOBs: str binds straight into them, and HELD (the
--    sealed strings, dropped by the last step) is a BLOB taking a bytes bind (FACTS.md §11.6, PYDOC lob_data.rst).
--    Plain DDL like V10 (FACTS.md §10); it commits implicitly.
CREATE TABLE ERASURE_JOBS (
    EMPLOYEE_ID NUMBER(19) CONSTRAINT ERASURE_JOBS_PK PRIMARY KEY,
    STEP        VARCHAR2(16) NOT NULL CONSTRAINT ERASURE_JOBS_STEP_CK
                CHECK (STEP IN ('delete', 'reindex', 'redact', 'purge', 'compact', 'prove', 'forget')),
    DOCUMENTS   VARCHAR2(16) CONSTRAINT ERASURE_JOBS_DOCUMENTS_CK CHECK (DOCUMENTS IN ('delete', 'reassign')),
    REPORT      CLOB NOT NULL,
    OUTCOME     CLOB NOT NULL,
    VERDICT     VARCHAR2(16) CONSTRAINT ERASURE_JOBS_VERDICT_CK CHECK (VERDICT IN ('proven', 'not proven')),
    HELD        BLOB,
    STARTED_AT  TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL,
    UPDATED_AT  TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL
);
