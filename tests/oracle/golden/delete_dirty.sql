-- source: FACTS.md §6 (delete claimed rows by key, executemany) + §11.7 (guard empty batches)

DELETE FROM RAG_DIRTY WHERE DIRTY_ID = :dirty_id
