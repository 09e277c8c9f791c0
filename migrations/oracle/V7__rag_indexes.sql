-- Search indexes on RAG_CHUNK.
-- IVF vector index (FACTS.md §4, DOC ivf syntax). Created on an empty table it is valid and accepts DML
-- (FACTS.md §4, langchain-oracledb tests), but its centroids only mean something after
-- `ragctl oracle rebuild-index` following the first bulk load (docs/ORACLE.md). The query metric
-- (VECTOR_DISTANCE ... COSINE) must equal the index metric or the index is silently unused (FACTS.md §11.9).
CREATE VECTOR INDEX RAG_CHUNK_EMB_IDX ON RAG_CHUNK (EMBEDDING) ORGANIZATION NEIGHBOR PARTITIONS DISTANCE COSINE WITH TARGET ACCURACY 90;

-- Oracle Text index for the lexical arm of hybrid search (FACTS.md §8B: CREATE SEARCH INDEX, DOC ccref
-- + real-DB code). Not transactional: 23ai-created indexes use automatic background maintenance, and the
-- engine also runs CTX_DDL.SYNC_INDEX after each indexing batch commits.
CREATE SEARCH INDEX RAG_CHUNK_TEXT_IDX ON RAG_CHUNK (CONTENT);
