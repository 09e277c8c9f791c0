-- The document type on chunks, for the doc-type scope (DESIGN.md, Read path -> Scope); the same change
-- as migrations/sqlite/V4. Only document chunks carry one: app/rag/chunking.py copies the document's
-- DOC_TYPE in its normal form (app.rag.scope.doc_type_key: upper-case ASCII letters, digits, space,
-- '_' or '-', at most 40), so 40 bytes always hold it. Plain DDL (FACTS.md §10); it commits implicitly.
ALTER TABLE RAG_CHUNK ADD (DOC_TYPE VARCHAR2(40));

-- Chunks written before this version have no DOC_TYPE: re-index their typed documents, so the worker
-- writes the type (the content hash now covers it, so these chunks are not skipped as unchanged).
-- Documents without chunks are the backfill's job. Plain INSERT ... SELECT into the queue (FACTS.md §10).
INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)
SELECT 'doc', d.DOCUMENT_ID, 'UPSERT' FROM DOCUMENTS d
WHERE d.DOC_TYPE IS NOT NULL
  AND EXISTS (SELECT 1 FROM RAG_CHUNK c WHERE c.SOURCE_TYPE = 'doc' AND c.SOURCE_ID = d.DOCUMENT_ID);
