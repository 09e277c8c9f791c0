-- source: FACTS.md §10 (plain SELECT; COUNT(CASE WHEN ... THEN 1 END) as in queue_status) — bound LIKE pattern

SELECT COUNT(CASE WHEN UPPER(BODY) LIKE UPPER(:pattern) ESCAPE '\' THEN 1 END)
FROM COMMENTS
