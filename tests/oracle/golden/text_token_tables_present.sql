-- source: FACTS.md §4 (USER_TABLES, as version_table_exists) + REVIEW-2 W9 (DR$<index>$I / $G)

SELECT TABLE_NAME FROM USER_TABLES WHERE TABLE_NAME IN (:g_table, :i_table) ORDER BY TABLE_NAME
