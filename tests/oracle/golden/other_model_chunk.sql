-- source: FACTS.md §10 (plain SELECT, ROWNUM = 1) — a chunk left of another model (V15 EMBEDDING_MODEL)

SELECT COUNT(*) FROM RAG_CHUNK WHERE NVL(EMBEDDING_MODEL, :legacy_model) <> :embedding_model AND ROWNUM = 1
