-- source: FACTS.md §10 (plain INSERT; LINK_ID from the identity column, V16)

INSERT INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID)
VALUES (:task_id, :link_type, :target_key, :target_task_id)
