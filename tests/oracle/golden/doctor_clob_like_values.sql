-- source: FACTS.md §10 (plain SELECT) + REVIEW-2 U8, the proof_values shape on a CLOB

SELECT BODY FROM DOCUMENTS
WHERE UPPER(BODY) LIKE UPPER(:pattern) ESCAPE '\'
