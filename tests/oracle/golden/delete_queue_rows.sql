-- source: FACTS.md §10 (plain DELETE by primary key, an IN list)

DELETE FROM RAG_DIRTY WHERE DIRTY_ID IN (:id0, :id1)
