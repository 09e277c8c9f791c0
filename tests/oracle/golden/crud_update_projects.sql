-- source: FACTS.md §10 (plain UPDATE by key)

UPDATE PROJECTS SET NAME = :v_name, STATUS = :v_status WHERE PROJECT_ID = :row_id
