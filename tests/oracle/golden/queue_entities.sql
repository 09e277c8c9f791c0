-- source: FACTS.md §10 (GROUP BY in an inline view under a plain COUNT, as tracker_statements' group query)

SELECT COUNT(*) FROM (SELECT SOURCE_TYPE, SOURCE_ID FROM RAG_DIRTY GROUP BY SOURCE_TYPE, SOURCE_ID)
