-- source: FACTS.md §10 (plain INSERT with named binds)

INSERT INTO RAG_SCHEMA_VERSION (VERSION, DESCRIPTION) VALUES (:version_no, :version_desc)
