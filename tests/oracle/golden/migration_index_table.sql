-- source: FACTS.md §4 (USER_INDEXES) + REVIEW-3 U5 (is the index a rerun meets the migration's own?)

SELECT TABLE_NAME FROM USER_INDEXES WHERE INDEX_NAME = :index_name
