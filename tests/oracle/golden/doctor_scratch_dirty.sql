-- source: FACTS.md §10 (plain SELECT; scratch rows have negative SOURCE_IDs)

SELECT DIRTY_ID FROM RAG_DIRTY WHERE SOURCE_ID < 0 ORDER BY DIRTY_ID
