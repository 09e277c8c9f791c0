-- source: FACTS.md §8B + REVIEW-3 U3 (a sample of the $I table's word tokens: are they upper-cased, as the proof's UPPER lookup assumes?)

SELECT COUNT(*), COUNT(CASE WHEN TOKEN_TEXT <> UPPER(TOKEN_TEXT) THEN 1 END)
FROM (SELECT TOKEN_TEXT FROM DR$RAG_CHUNK_TEXT_IDX$I WHERE TOKEN_TYPE = 0 AND ROWNUM <= :max_rows)
