-- source: FACTS.md §10 (plain aggregate, as ERASE_COUNT_MESSAGES; LENGTH of a VARCHAR2 counts characters) over the searches' access predicate

SELECT COUNT(*), AVG(LENGTH(CONTENT)) FROM RAG_CHUNK
