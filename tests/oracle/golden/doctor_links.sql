-- source: FACTS.md §10 (plain SELECT) — the scratch tasks' links (REVIEW-4 §4.1)

SELECT LINK_ID, TASK_ID, TARGET_TASK_ID FROM TASK_LINKS WHERE TASK_ID IN (:task_a, :task_b) ORDER BY LINK_ID
