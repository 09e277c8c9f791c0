-- source: FACTS.md §4 (a USER_* catalogue read, as USER_INDEXES; the view: Oracle Reference USER_CONSTRAINTS) + REVIEW-3 U5

SELECT TABLE_NAME FROM USER_CONSTRAINTS WHERE CONSTRAINT_NAME = :constraint_name
