import hashlib

import pytest

from app.records_model import CommentSource, DocSource, TaskSource
from app.embedding.tokens import count_tokens
from app.rag.chunking import MAX_BYTES, MAX_TOKENS, chunk_record, content_hash, pack


def words(n, word="login"):
    return " ".join([word] * n)


def test_short_entity_is_one_chunk_with_sha256():
    doc = DocSource(1, "Runbook", "Restart the worker.", None, None, "WIKI")
    [chunk] = chunk_record(doc, count_tokens)
    assert chunk.content == "[DOC #1] Runbook\nRestart the worker."
    assert chunk.content_hash == content_hash(chunk.content, None, None, None, "WIKI")
    assert len(chunk.content_hash) == 64
    assert (chunk.source_type, chunk.source_id, chunk.chunk_ix, chunk.doc_type) == ("doc", 1, 0, "WIKI")


def test_long_document_splits_at_paragraphs_and_repeats_header():
    paragraphs = [f"Paragraph {i}. " + words(60, f"topic{i}") for i in range(12)]
    doc = DocSource(2, "Architecture", "\n\n".join(paragraphs), 7, 3, "WIKI")
    chunks = chunk_record(doc, count_tokens)
    assert len(chunks) > 1
    for ix, chunk in enumerate(chunks):
        assert chunk.chunk_ix == ix
        assert chunk.content.startswith("[DOC #2] Architecture\n")
        assert count_tokens(chunk.content) <= MAX_TOKENS
        assert len(chunk.content.encode()) <= MAX_BYTES
        assert (chunk.owner_employee_id, chunk.project_id) == (3, 7)
    # Every paragraph survives whole, in order, in exactly one chunk (none was cut).
    joined = "\n".join(c.content.split("\n", 1)[1] for c in chunks)
    assert joined.split("\n") == paragraphs


def test_no_text_is_lost_when_a_single_unit_exceeds_the_window():
    body = " ".join(f"w{i}" for i in range(3000))
    doc = DocSource(3, "Dump", body, None, None, None)
    chunks = chunk_record(doc, count_tokens)
    rebuilt = " ".join(c.content.split("\n", 1)[1] for c in chunks)
    assert rebuilt.split() == body.split()
    assert all(count_tokens(c.content) <= MAX_TOKENS for c in chunks)


@pytest.mark.parametrize("char", ["ñ", "漢", "🙂"])
def test_byte_bound_holds_for_multibyte_text(char):
    # A byte limit small enough to bind before the token limit.
    chunks = pack("[DOC #4] x", [char * 3000], count_tokens, max_tokens=10_000, max_bytes=500)
    assert all(len(c.encode()) <= 500 for c in chunks)
    assert "".join(c.split("\n", 1)[1] for c in chunks) == char * 3000


def test_task_comments_split_at_comment_boundaries():
    comments = tuple(CommentSource(f"comment {i}: " + words(40, "deploy")) for i in range(15))
    task = TaskSource(7, "Deploy", None, None, None, None, None, None, 4, "Leo", "Diaz", None, None,
                      None, "short", comments)
    chunks = chunk_record(task, count_tokens)
    assert len(chunks) > 1
    bodies = [line for c in chunks for line in c.content.split("\n")[1:] if line.startswith("- ")]
    assert bodies == [f"- {c.body}" for c in comments]
    assert all(c.owner_employee_id == 4 for c in chunks)


def test_hash_covers_text_and_access_metadata():
    def digest(doc):
        return chunk_record(doc, count_tokens)[0].content_hash

    a = DocSource(5, "T", "same body", None, None, None)
    assert digest(a) != digest(DocSource(5, "T", "other body", None, None, None))
    # Same text, new owner or project: must be re-written, or the old owner keeps seeing it.
    assert digest(a) != digest(DocSource(5, "T", "same body", None, 9, None))
    assert digest(a) != digest(DocSource(5, "T", "same body", 9, None, None))
    # Same text, new doc type: must be re-written, or it stays in its old doc-type scope.
    wiki = DocSource(5, "T", "same body", None, None, "WIKI")
    assert digest(a) != digest(wiki) != digest(DocSource(5, "T", "same body", None, None, "MEETING_NOTES"))
    assert digest(wiki) == digest(DocSource(5, "T", "same body", None, None, " wiki "))  # one normal form


def test_doc_chunks_carry_the_normalised_doc_type_and_others_none():
    doc = chunk_record(DocSource(5, "T", "body", None, None, "meeting notes"), count_tokens)
    assert [c.doc_type for c in doc] == ["MEETING NOTES"]
    # A type no scope can name is stored as no type (and fits the column whatever it was).
    for odd in ("", "   ", "x" * 41, "Notas de reunión", "straße"):
        assert chunk_record(DocSource(5, "T", "body", None, None, odd), count_tokens)[0].doc_type is None
    task = TaskSource(7, "Deploy", None, None, None, None, None, None, 4, "Leo", "Diaz", None, None,
                      None, "short")
    (chunk,) = chunk_record(task, count_tokens)
    assert chunk.doc_type is None
    # Chunks without a doc type keep the hash they had before doc types existed.
    assert chunk.content_hash == hashlib.sha256(f"4|None|None\n{chunk.content}".encode()).hexdigest()
