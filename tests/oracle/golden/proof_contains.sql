-- source: FACTS.md §8B (CONTAINS(col, :q) > 0 over the search index) + §10 (plain predicate, bound pattern)

SELECT COUNT(*) FROM RAG_CHUNK
WHERE CONTAINS(CONTENT, :tq) > 0 AND UPPER(CONTENT) LIKE UPPER(:pattern) ESCAPE '\'
