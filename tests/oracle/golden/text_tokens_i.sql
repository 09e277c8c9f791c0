-- source: FACTS.md §8B + REVIEW-2 W9 (DR$<index>$I.TOKEN_TEXT, uppercase tokens; read after the FULL optimize) + REVIEW-3 U3 (word tokens: TOKEN_TYPE 0)

SELECT DISTINCT TOKEN_TEXT FROM DR$RAG_CHUNK_TEXT_IDX$I WHERE TOKEN_TYPE = 0 AND TOKEN_TEXT IN (UPPER(:w0), UPPER(:w1))
