-- source: FACTS.md §11.6 (str into a CLOB or VARCHAR2 by UPDATE) + §10

UPDATE RAG_DIRTY SET LAST_ERROR = :redacted WHERE DIRTY_ID = :row_id
