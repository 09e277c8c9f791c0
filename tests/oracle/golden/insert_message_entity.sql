-- source: FACTS.md §10 (plain INSERT of bound values) + §6 (executemany; §11.7 the caller skips an empty batch)

INSERT INTO MESSAGE_ENTITIES (MESSAGE_ID, SOURCE_TYPE, SOURCE_ID) VALUES (:message_id, :source_type, :source_id)
