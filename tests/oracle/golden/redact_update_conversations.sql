-- source: FACTS.md §11.6 (str into a CLOB or VARCHAR2 by UPDATE) + §10

UPDATE CONVERSATIONS SET TITLE = :redacted WHERE CONVERSATION_ID = :row_id
