-- source: FACTS.md §10 (plain aggregate)

SELECT COUNT(*) FROM RAG_DIRTY
WHERE SOURCE_TYPE = :source_type AND SOURCE_ID = :source_id AND ACTION = :dirty_action
