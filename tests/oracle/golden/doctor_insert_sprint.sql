-- source: FACTS.md §10 (identity key; RETURNING INTO [PYDOC]) + REVIEW-2 U3

INSERT INTO SPRINTS (NAME, PROJECT_ID) VALUES (:sprint_name, :project_id) RETURNING SPRINT_ID INTO :new_id
