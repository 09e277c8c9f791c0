-- source: FACTS.md §10 (identity key; RETURNING INTO [PYDOC])

INSERT INTO TASKS (TITLE, PROJECT_ID, SPRINT_ID, ASSIGNEE_ID) VALUES (:title, :project_id, :sprint_id, :assignee_id)
RETURNING TASK_ID INTO :new_id
