-- Issue 31, the same change as migrations/sqlite/V14: an answer computed from a typed tracker query stores that
-- query as compact JSON (app.domain.MAX_QUERY_BYTES keeps it inside 4000 bytes, as V13's RETRIEVED), so a follow-up
-- edits it. Plain DDL (FACTS.md §10): ALTER TABLE ... ADD (column) as V13; it commits implicitly.
ALTER TABLE MESSAGES ADD (TRACKER_QUERY VARCHAR2(4000 BYTE));
