-- source: FACTS.md §10 (plain DELETE)

DELETE FROM RAG_CHUNK WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id AND CHUNK_IX >= :from_ix
