-- source: FACTS.md §1 (VECTOR fetched as array('f')) [PYDOC]

SELECT EMBEDDING FROM RAG_CHUNK WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id AND CHUNK_IX = 0
