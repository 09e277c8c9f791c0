-- source: FACTS.md §10 (plain INSERT into the queue; identity + ENQUEUED_AT defaults)

INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION) VALUES (:source_type, :source_id, 'UPSERT')
