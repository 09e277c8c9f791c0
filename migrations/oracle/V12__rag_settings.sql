-- Choices `ragctl oracle doctor` proved on this database, read by the service without re-probing.
-- One row per setting; today only UPSERT_FORM: 'merge_using' (the MERGE with VECTOR_EMBEDDING in its
-- USING select) or 'two_step' (SELECT VECTOR_EMBEDDING ... FROM dual, then MERGE with an array('f')
-- bind), see app/engines/oracle/indexing.py. No row: the MERGE form. Plain DDL (FACTS.md §10).
CREATE TABLE RAG_SETTINGS (
    SETTING_KEY   VARCHAR2(64) CONSTRAINT RAG_SETTINGS_PK PRIMARY KEY,
    SETTING_VALUE VARCHAR2(400) NOT NULL,
    UPDATED_AT    TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL
);
