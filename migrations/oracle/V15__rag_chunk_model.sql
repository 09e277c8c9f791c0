-- Which in-database model embedded each chunk: the Oracle engine's half of the model mark that the embedded
-- engine keeps in RAG_META and its chunk hashes (app/rag/model_mark.py, app/engines/oracle/model_mark.py). The
-- mark itself is two RAG_SETTINGS rows (EMBEDDING_MODEL, EMBEDDING_MODEL_TARGET); this column lets the write
-- that re-embeds the last old chunk see that it was the last, so a swap ends in that transaction. The MERGE
-- sets it from the process's RAG_ORACLE_MODEL_NAME (a plain identifier: at most 128 ASCII characters). NULL:
-- written before this version, i.e. by the model the index was built with then (taken to be the default
-- ALL_MINILM_L12_V2 when no mark is stored). Plain DDL (FACTS.md §10); it commits implicitly.
ALTER TABLE RAG_CHUNK ADD (EMBEDDING_MODEL VARCHAR2(128));
