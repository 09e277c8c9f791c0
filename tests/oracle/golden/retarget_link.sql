-- source: FACTS.md §10 (plain UPDATE by key)

UPDATE TASK_LINKS SET TARGET_TASK_ID = :target_task_id WHERE LINK_ID = :link_id
