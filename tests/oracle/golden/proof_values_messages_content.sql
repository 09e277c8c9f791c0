-- source: FACTS.md §10 (plain SELECT) + the LIKE shape of proof_count

SELECT CONTENT FROM MESSAGES
WHERE UPPER(CONTENT) LIKE UPPER(:pattern) ESCAPE '\'
