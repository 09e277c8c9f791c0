-- source: FACTS.md §10 (plain aggregate) — the newest queue row when an import's page begins (issue 33)

SELECT NVL(MAX(DIRTY_ID), 0) FROM RAG_DIRTY
