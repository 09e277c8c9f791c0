-- source: FACTS.md §10 (plain SELECT) + the LIKE shape of proof_count

SELECT CONTENT FROM RAG_CHUNK
WHERE UPPER(CONTENT) LIKE UPPER(:pattern) ESCAPE '\'
