"""Turn a source record into chunks that fit the embedding model's window and Oracle's VARCHAR2.

Both bounds are hard: MiniLM silently truncates past its token window (text there would be
unsearchable), and Oracle's ``VECTOR_EMBEDDING`` input is a VARCHAR2 (4000 bytes with the
default MAX_STRING_SIZE=STANDARD), so the limit is counted in UTF-8 bytes, not characters.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from app.domain import ChunkWrite
from app.records_model import DocSource, SourceRecord, SprintSource, TaskSource
from app.rag.scope import doc_type_key
from app.rag.templates import body_sections, header_line

TokenCounter = Callable[[str], int]

MAX_TOKENS = 254  # MiniLM max_seq_length 256 minus [CLS] and [SEP]
MAX_BYTES = 4000  # VARCHAR2(4000 BYTE): RAG_CHUNK.CONTENT in Oracle
# The most of one entity's text that is indexed (~200 chunks of prose). Chunking is linear and
# takes well under a second at this size (docs/BENCHMARKS.md); embedding is what costs (~5-10 s
# here), so a row written past the API's limits by another client, or a task with hundreds of
# comments, indexes its first MAX_INDEXED_CHARS characters instead of holding up the queue.
MAX_INDEXED_CHARS = 200_000


def content_hash(text: str, owner: int | None = None, project_id: int | None = None,
                 sprint_id: int | None = None, doc_type: str | None = None) -> str:
    """SHA-256 of the chunk text and the access/scope metadata stored beside it.

    The metadata is part of the hash so that re-assigning a document (same text, new owner) is
    not skipped as unchanged: a skipped chunk would keep its old owner, and the old owner would
    keep seeing it. The doc type likewise (a re-typed document must move between doc-type
    scopes); it joins the key only when set, so chunks without one keep the hashes they had.
    """
    meta = f"{owner}|{project_id}|{sprint_id}" + ("" if doc_type is None else f"|{doc_type}")
    key = f"{meta}\n{text}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def chunk_record(
    record: SourceRecord,
    count_tokens: TokenCounter,
    max_tokens: int = MAX_TOKENS,
    max_bytes: int = MAX_BYTES,
    max_chars: int = MAX_INDEXED_CHARS,
) -> list[ChunkWrite]:
    """Chunks of one entity, each starting with the entity's header line (text past
    ``max_chars`` is left out: see ``unindexed_chars``)."""
    source_type, source_id, owner, project_id, sprint_id, doc_type = identity(record)
    sections = _cap(body_sections(record), max_chars)
    texts = pack(header_line(record), sections, count_tokens, max_tokens, max_bytes)
    return [
        ChunkWrite(
            source_type=source_type,
            source_id=source_id,
            chunk_ix=ix,
            owner_employee_id=owner,
            project_id=project_id,
            sprint_id=sprint_id,
            content=text,
            content_hash=content_hash(text, owner, project_id, sprint_id, doc_type),
            doc_type=doc_type,
        )
        for ix, text in enumerate(texts)
    ]


def unindexed_chars(record: SourceRecord, max_chars: int = MAX_INDEXED_CHARS) -> int:
    """How many characters of the entity's text ``chunk_record`` leaves out (0 for any row the
    API accepts, except a task whose comments add up past the cap)."""
    return max(0, sum(len(section) for section in body_sections(record)) - max_chars)


def _cap(sections: list[str], max_chars: int) -> list[str]:
    """The sections up to ``max_chars`` characters in all, the last one cut if need be."""
    kept: list[str] = []
    left = max_chars
    for section in sections:
        if left <= 0:
            break
        kept.append(section[:left])
        left -= len(section)
    return kept


def pack(
    header: str,
    units: Iterable[str],
    count_tokens: TokenCounter,
    max_tokens: int = MAX_TOKENS,
    max_bytes: int = MAX_BYTES,
) -> list[str]:
    """Greedily pack units after the header; a unit too big on its own is split further.

    Every piece is counted once and a chunk's count is the sum of its pieces': pieces are only
    ever joined by a space or a newline, and BERT's WordPiece (normalizer and pre-tokenizer) cuts
    at whitespace, so counts add up exactly there (tests/unit/test_chunking.py proves it on real
    text). Re-counting a growing chunk on every word made chunking quadratic.
    """
    count_tokens = _remembering(count_tokens)
    header = _fit(header, count_tokens, max_tokens // 2, max_bytes // 2)
    head_tokens, head_bytes = count_tokens(header), _bytes(header)
    room_tokens, room_bytes = max_tokens - head_tokens, max_bytes - head_bytes - 1
    chunks: list[str] = []
    current: list[str] = []
    used_tokens = used_bytes = 0
    for unit in units:
        for piece in _split_to_fit(unit, count_tokens, room_tokens, room_bytes):
            size = piece.size + 1  # +1: the joining newline
            if current and (piece.glued or used_tokens + piece.tokens > room_tokens
                            or used_bytes + size > room_bytes):
                chunks.append("\n".join([header, *current]))
                current, used_tokens, used_bytes = [], 0, 0
            current.append(piece.text)
            used_tokens += piece.tokens
            used_bytes += size
    chunks.append("\n".join([header, *current]))
    return chunks


class _Piece(NamedTuple):
    text: str
    tokens: int
    size: int  # UTF-8 bytes
    glued: bool = False  # the rest of a word cut in two: never joined to its first part by a separator


# Coarsest boundary first: lines, then sentences, then words; each with the text that rejoins it.
_BOUNDARIES = (
    (re.compile(r"\n+"), "\n"),
    (re.compile(r"(?<=[.!?;])\s+"), " "),
    (re.compile(r"\s+"), " "),
)


def _split_to_fit(
    unit: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int, level: int = 0
) -> list[_Piece]:
    """Split a unit at line, sentence, then word boundaries until every piece fits.

    ``level`` skips the boundaries a part was already cut at (it contains none of them), and a
    unit over the byte bound is split without being counted, so each character is counted at most
    once per level.
    """
    size = _bytes(unit)
    if size <= max_bytes:
        tokens = count_tokens(unit)
        if tokens <= max_tokens:
            return [_Piece(unit, tokens, size)]
    for ix in range(level, len(_BOUNDARIES)):
        pattern, joiner = _BOUNDARIES[ix]
        parts = [p for p in pattern.split(unit) if p.strip()]
        if len(parts) > 1:
            return _regroup(parts, joiner, count_tokens, max_tokens, max_bytes, ix + 1)
    return _hard_split(unit, count_tokens, max_tokens, max_bytes)


def _regroup(
    parts: list[str], joiner: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int, level: int
) -> list[_Piece]:
    """Greedily rejoin the (further split) parts into pieces that fit, summing counted pieces."""
    pieces: list[_Piece] = []
    group: list[str] = []
    tokens = size = 0
    glued = False
    for part in parts:
        for sub in _split_to_fit(part, count_tokens, max_tokens, max_bytes, level):
            if group and (sub.glued or tokens + sub.tokens > max_tokens or size + len(joiner) + sub.size > max_bytes):
                pieces.append(_Piece(joiner.join(group), tokens, size, glued))
                group = []
            if group:
                group.append(sub.text)
                tokens, size = tokens + sub.tokens, size + len(joiner) + sub.size
            else:
                group, tokens, size, glued = [sub.text], sub.tokens, sub.size, sub.glued
    if group:
        pieces.append(_Piece(joiner.join(group), tokens, size, glued))
    return pieces


def _hard_split(word: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int) -> list[_Piece]:
    """Last resort for one enormous 'word' (a URL, a base64 blob, CJK text): cut by characters.

    Each piece is cut from a window of at most ``max_bytes`` characters, so the work per piece is
    bounded and the whole split is linear in the word's length.
    """
    pieces: list[_Piece] = []
    start, hint = 0, None
    while start < len(word):
        full = start + _chars_within(word, start, max_bytes)
        # After a token-bound piece, try a window as long as it first: on dense text (CJK: a
        # word piece per character) the whole byte window is five times too long to count.
        end = full if hint is None else min(full, start + hint)
        tokens = count_tokens(word[start:end])
        if end < full and tokens < max_tokens * 9 // 10:  # the text got sparser: grow in proportion
            end = start + min(full - start, (end - start) * max_tokens // max(tokens, 1))
            tokens = count_tokens(word[start:end])
        while tokens > max_tokens and end - start > 1:
            # Shrink in proportion to the excess (one step on uniform text), by 5% at least.
            length = end - start
            end = start + max(1, min(length * 19 // 20, length * max_tokens // tokens))
            tokens = count_tokens(word[start:end])
        hint = end - start if end < full else None
        text = word[start:end]
        pieces.append(_Piece(text, tokens, _bytes(text), glued=bool(pieces)))
        start = end
    return pieces


def _chars_within(text: str, start: int, max_bytes: int) -> int:
    """How many characters from ``start`` fit in ``max_bytes`` UTF-8 bytes (at least one)."""
    window = text[start : start + max_bytes]  # a character is at least one byte
    encoded = window.encode("utf-8")
    if len(encoded) <= max_bytes:
        return len(window)
    # Decoding the cut bytes drops the one character the cut split in two.
    return max(1, len(encoded[:max_bytes].decode("utf-8", "ignore")))


def _fit(text: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int) -> str:
    """A header longer than half the window is cut: it is repeated in every chunk."""
    if _bytes(text) <= max_bytes and count_tokens(text) <= max_tokens:
        return text
    return _hard_split(text[:max_bytes], count_tokens, max_tokens, max_bytes)[0].text  # a piece is <= max_bytes chars


def _remembering(count_tokens: TokenCounter, longest: int = 32) -> TokenCounter:
    """Count each distinct short string (a word) once per entity: words repeat, and a tokenizer
    call costs ~10 µs whatever its length."""
    known: dict[str, int] = {}

    def count(text: str) -> int:
        if len(text) > longest:
            return count_tokens(text)
        if text not in known:
            known[text] = count_tokens(text)
        return known[text]

    return count


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def identity(record: SourceRecord) -> tuple:
    """(source_type, source_id, owner, project_id, sprint_id, doc_type) copied onto every chunk."""
    match record:
        case TaskSource():
            return "task", record.task_id, record.assignee_id, record.project_id, record.sprint_id, None
        case SprintSource():
            return "sprint", record.sprint_id, None, record.project_id, record.sprint_id, None
        case DocSource():
            return ("doc", record.document_id, record.owner_employee_id, record.project_id, None,
                    doc_type_key(record.doc_type))
        case _:
            return "project", record.project_id, None, record.project_id, None, None
