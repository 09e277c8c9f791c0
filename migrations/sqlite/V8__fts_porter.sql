-- The lexical index stems English words (porter over unicode61): "running" finds "runs", "tumour"
-- finds "tumours"; on SciFact it lifts BM25 alone and hybrid (docs/bench/scifact_eval.json).
-- Oracle Text does not stem here (docs/ORACLE.md). FTS5 cannot change a table's tokenizer, so RAG_FTS is recreated under
-- the same name and refilled from RAG_CHUNK with FTS5's 'rebuild' (external content,
-- https://sqlite.org/fts5.html#the_rebuild_command). RAG_CHUNK's triggers name RAG_FTS and keep
-- working: SQLite resolves a trigger body's tables when it fires.
DROP TABLE RAG_FTS;

CREATE VIRTUAL TABLE RAG_FTS USING fts5(
    CONTENT,
    content = 'RAG_CHUNK',
    content_rowid = 'CHUNK_ID',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO RAG_FTS (RAG_FTS) VALUES ('rebuild');

-- A new epoch makes every running process reload its in-memory lexical index, which reads the
-- tokenizer (stemmed or not) from RAG_FTS's definition at each full load.
UPDATE RAG_META SET VALUE = VALUE + 1 WHERE KEY = 'epoch';
