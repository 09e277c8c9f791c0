-- source: FACTS.md §11.6 (str into a CLOB or VARCHAR2 by UPDATE) + §10

UPDATE PROJECTS SET AUTO_SUMMARY = :redacted WHERE PROJECT_ID = :row_id
