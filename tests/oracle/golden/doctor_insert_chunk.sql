-- source: FACTS.md §10 (plain INSERT; EMBEDDING left NULL)

INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, OWNER_EMPLOYEE_ID, PROJECT_ID, SPRINT_ID, CONTENT,
                       CONTENT_HASH)
VALUES (:source_type, :source_id, 0, :owner_employee_id, :project_id, :sprint_id, :content, :content_hash)
