-- source: FACTS.md §1 (cursor.description[i].vector_dimensions) [PYDOC]

SELECT EMBEDDING FROM RAG_CHUNK WHERE 1 = 0
