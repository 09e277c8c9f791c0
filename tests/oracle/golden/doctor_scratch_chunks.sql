-- source: FACTS.md §1 (VECTOR fetched as array('f')) + REVIEW-3 U2 (the upsert probe's two scratch chunks)

SELECT CHUNK_IX, EMBEDDING FROM RAG_CHUNK WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id
ORDER BY CHUNK_IX
