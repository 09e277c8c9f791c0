-- source: FACTS.md §8B (CONTAINS(col, :q) > 0 over the search index) + §12.4 / REVIEW-2 U2 (a {braced} term)

SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTAINS(CONTENT, :tq) > 0
