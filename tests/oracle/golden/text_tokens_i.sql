-- source: FACTS.md §8B + REVIEW-2 W9 (DR$<index>$I.TOKEN_TEXT, uppercase tokens; read after the FULL optimize)

SELECT DISTINCT TOKEN_TEXT FROM DR$RAG_CHUNK_TEXT_IDX$I WHERE TOKEN_TEXT IN (UPPER(:w0), UPPER(:w1))
