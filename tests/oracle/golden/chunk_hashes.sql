-- source: FACTS.md §10 (plain SELECT with named binds)

SELECT SOURCE_ID, CHUNK_IX, CONTENT_HASH FROM RAG_CHUNK
WHERE SOURCE_TYPE = :source_type AND SOURCE_ID IN (:id0, :id1)
