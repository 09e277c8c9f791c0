-- source: FACTS.md §10 (plain predicate; an uncorrelated IN subquery [DOC sqlrf "IN Condition"]) + §3 (a short FETCH APPROX falls back to FETCH EXACT)
SOURCE_TYPE = 'task' AND SOURCE_ID NOT IN (SELECT TASK_ID FROM TASKS WHERE RESTRICTED = 1)
