-- source: FACTS.md §10 (plain INSERT; fires COMMENTS_RAG_DIRTY_TRG)

INSERT INTO COMMENTS (TASK_ID, AUTHOR_ID, BODY) VALUES (:task_id, :author_id, :body)
