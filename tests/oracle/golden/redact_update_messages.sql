-- source: FACTS.md §11.6 (str into a CLOB or VARCHAR2 by UPDATE) + §10

UPDATE MESSAGES SET CONTENT = :redacted WHERE MESSAGE_ID = :row_id
