-- source: FACTS.md §9 (connect check)

SELECT 1 FROM dual
