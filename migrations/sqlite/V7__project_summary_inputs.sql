-- The fingerprint of what a project's auto-summary was made from (app/rag/summaries.py: a hash of the
-- name and description, and one of its most recent tasks' titles and statuses). The summary job compares
-- it with the current inputs to tell a project edit (regenerate now) from task edits (at most once per
-- RAG_SUMMARY_TASK_INTERVAL_S) without reading RAG_DIRTY, which the summary write itself fills.
-- NULL: no summary yet, or one written without a fingerprint (the job regenerates it).
ALTER TABLE PROJECTS ADD COLUMN AUTO_SUMMARY_INPUTS TEXT;
