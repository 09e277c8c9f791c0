-- source: FACTS.md §8B (COUNT(*) ... CONTAINS(col, :q) > 0, as PROOF_CONTAINS) + §12.4 (the term in braces) + the access predicate

SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTAINS(CONTENT, :tq) > 0
