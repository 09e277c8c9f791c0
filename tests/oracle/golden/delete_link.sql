-- source: FACTS.md §10 (plain DELETE by key)

DELETE FROM TASK_LINKS WHERE LINK_ID = :link_id
