-- source: FACTS.md §4 (USER_* dictionary views) + REVIEW-3 U5 (is the object a rerun meets the migration's own?)

SELECT COLUMN_NAME FROM USER_TAB_COLUMNS WHERE TABLE_NAME = :table_name
