-- source: FACTS.md §10 (plain SELECT by key)

SELECT CURSOR_VALUE FROM SYNC_CURSORS WHERE SOURCE = :source_name
