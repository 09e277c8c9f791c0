-- Issue 31: the conversation keeps the query. Each answer computed from a typed tracker query
-- (app/rag/understanding/query.py) stores that query as compact JSON, so a follow-up that names only part of a
-- question ("and Ana's?", "how many of those are critical?") edits it. Ids, the tracker's own values and dates:
-- no personal text (people are ids). NULL for user turns, answers of other kinds and older rows.
ALTER TABLE MESSAGES ADD COLUMN TRACKER_QUERY TEXT;
