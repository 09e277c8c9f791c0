-- source: FACTS.md §10 (plain SELECT) + REVIEW-2 U8, the redact_candidates shape on a CLOB

SELECT DOCUMENT_ID, BODY FROM DOCUMENTS
WHERE UPPER(BODY) LIKE UPPER(:pattern) ESCAPE '\'
