-- source: FACTS.md §10 (identity keys) + RETURNING INTO an out variable [PYDOC]

INSERT INTO TASKS (TITLE, STATUS, PROJECT_ID) VALUES (:v_title, :v_status, :v_project_id) RETURNING TASK_ID INTO :new_id
