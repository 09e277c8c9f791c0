"""Turn a source record into chunks that fit the embedding model's window and Oracle's VARCHAR2.

Both bounds are hard: MiniLM silently truncates past its token window (text there would be
unsearchable), and Oracle's ``VECTOR_EMBEDDING`` input is a VARCHAR2 (4000 bytes with the
default MAX_STRING_SIZE=STANDARD), so the limit is counted in UTF-8 bytes, not characters.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

from app.domain import ChunkWrite, DocSource, SourceRecord, SprintSource, TaskSource
from app.rag.scope import doc_type_key
from app.rag.templates import body_sections, header_line

TokenCounter = Callable[[str], int]

MAX_TOKENS = 254  # MiniLM max_seq_length 256 minus [CLS] and [SEP]
MAX_BYTES = 4000  # VARCHAR2(4000 BYTE): RAG_CHUNK.CONTENT in Oracle


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
) -> list[ChunkWrite]:
    """Chunks of one entity, each starting with the entity's header line."""
    source_type, source_id, owner, project_id, sprint_id, doc_type = _identity(record)
    texts = pack(header_line(record), body_sections(record), count_tokens, max_tokens, max_bytes)
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


def pack(
    header: str,
    units: Iterable[str],
    count_tokens: TokenCounter,
    max_tokens: int = MAX_TOKENS,
    max_bytes: int = MAX_BYTES,
) -> list[str]:
    """Greedily pack units after the header; a unit too big on its own is split further.

    WordPiece counts are additive over whitespace-joined text, so each piece is counted once.
    """
    header = _fit(header, count_tokens, max_tokens // 2, max_bytes // 2)
    head_tokens, head_bytes = count_tokens(header), _bytes(header)
    room_tokens, room_bytes = max_tokens - head_tokens, max_bytes - head_bytes - 1
    chunks: list[str] = []
    current: list[str] = []
    used_tokens = used_bytes = 0
    for unit in units:
        for piece in _split_to_fit(unit, count_tokens, room_tokens, room_bytes):
            tokens, size = count_tokens(piece), _bytes(piece) + 1  # +1: the joining newline
            if current and (used_tokens + tokens > room_tokens or used_bytes + size > room_bytes):
                chunks.append("\n".join([header, *current]))
                current, used_tokens, used_bytes = [], 0, 0
            current.append(piece)
            used_tokens += tokens
            used_bytes += size
    chunks.append("\n".join([header, *current]))
    return chunks


# Coarsest boundary first: lines, then sentences, then words; each with the text that rejoins it.
_BOUNDARIES = (
    (re.compile(r"\n+"), "\n"),
    (re.compile(r"(?<=[.!?;])\s+"), " "),
    (re.compile(r"\s+"), " "),
)


def _split_to_fit(unit: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int) -> list[str]:
    """Split a unit at line, sentence, then word boundaries until every piece fits."""
    if count_tokens(unit) <= max_tokens and _bytes(unit) <= max_bytes:
        return [unit]
    for pattern, joiner in _BOUNDARIES:
        parts = [p for p in pattern.split(unit) if p.strip()]
        if len(parts) > 1:
            return _regroup(parts, joiner, count_tokens, max_tokens, max_bytes)
    return _hard_split(unit, count_tokens, max_tokens, max_bytes)


def _regroup(
    parts: list[str], joiner: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int
) -> list[str]:
    pieces: list[str] = []
    current = ""
    for part in parts:
        for sub in _split_to_fit(part, count_tokens, max_tokens, max_bytes):
            joined = f"{current}{joiner}{sub}" if current else sub
            if current and (count_tokens(joined) > max_tokens or _bytes(joined) > max_bytes):
                pieces.append(current)
                joined = sub
            current = joined
    if current:
        pieces.append(current)
    return pieces


def _hard_split(word: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int) -> list[str]:
    """Last resort for one enormous 'word' (a URL, a base64 blob): cut by characters."""
    pieces: list[str] = []
    while word:
        end = len(word)
        while end > 1 and (count_tokens(word[:end]) > max_tokens or _bytes(word[:end]) > max_bytes):
            end = max(1, end * 3 // 4)
        pieces.append(word[:end])
        word = word[end:]
    return pieces


def _fit(text: str, count_tokens: TokenCounter, max_tokens: int, max_bytes: int) -> str:
    """A header longer than half the window is cut: it is repeated in every chunk."""
    return text if count_tokens(text) <= max_tokens and _bytes(text) <= max_bytes else (
        _hard_split(text, count_tokens, max_tokens, max_bytes)[0]
    )


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _identity(record: SourceRecord) -> tuple:
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
