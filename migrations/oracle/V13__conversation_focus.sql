-- What each assistant turn rested on (app/services/chat.py), so a conversation keeps its topic and its
-- memory follows the access rule: FOCUS is the anchor the conversation is about after this turn (the
-- first entity the answer was grounded in, or the earlier focus for a follow-up; NULL: none); RETRIEVED
-- the JSON array of [source_type, source_id, chunk_ix] the turn was given (retrieval hits, looked-up
-- entities, tool results; the best 64, which fit 4000 bytes: tests/conformance/test_conversations.py);
-- RAG_SCOPE the scope retrieval applied; LLM_ERROR why the LLM's answer was not used (NULL when it was,
-- or none is configured). CITATIONS already holds the anchors the answer cited. Anchors and ids only:
-- no personal text (erasure redacts CONTENT and TITLE). User rows and older rows keep NULLs.
ALTER TABLE MESSAGES ADD (FOCUS VARCHAR2(40 BYTE), RETRIEVED VARCHAR2(4000 BYTE), RAG_SCOPE VARCHAR2(20 BYTE), LLM_ERROR VARCHAR2(20 BYTE));
