"""Erasure of an employee, as plain data: what was erased, which strings the proof searches for,
and how the proof's findings become a verdict. No I/O; the engines fill these records.

The proof never prints an erased string: each is named by what it was (``label``) and a short
SHA-256 fingerprint, so the proof's own output is not one more copy of the erased data.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal

DocumentsPolicy = Literal["delete", "reassign"]

# Shorter strings ("Li", "42") occur by chance in any database file and prove nothing.
MIN_PROOF_CHARS = 4
# A long text is also searched for by its pieces: the chunker splits it across chunks, so no one
# chunk holds the whole text while each still holds some of its sentences.
PIECE_MIN_CHARS = 24  # long enough to be this text's own, not a phrase anyone might write
PIECE_MAX_CHARS = 160  # longer sentences are cut at words into pieces of about this size
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class ErasedText:
    """One string that belonged only to the erased employee, and what it was."""

    label: str  # e.g. "email", "comment #12 body", "document #3 title"
    value: str

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.value.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class ErasureReport:
    """What the engine changed in its one erasure transaction (read before the deletes)."""

    employee_id: int
    comments_deleted: int
    documents_deleted: tuple[int, ...]
    documents_reassigned: tuple[int, ...]
    reassigned_to: int | None
    tasks_unassigned: tuple[int, ...]
    tasks_reindexed: tuple[int, ...]  # assigned tasks and tasks that showed the deleted comments
    texts: tuple[ErasedText, ...]  # candidates for the proof; see proof_texts()
    conversations_deleted: int = 0  # the employee's conversations, with their messages
    messages_deleted: int = 0


def build_report(
    employee_id: int,
    employee: tuple,  # FIRST_NAME, LAST_NAME, EMAIL, TELEGRAM_ID
    comments: list[tuple],  # COMMENT_ID, TASK_ID, BODY
    documents: list[tuple],  # DOCUMENT_ID, TITLE, BODY
    tasks: list[int],  # assigned TASK_IDs
    policy: DocumentsPolicy | None,
    reassign_to: int | None,
    conversations: list[tuple] = (),  # CONVERSATION_ID, TITLE
    user_messages: list[tuple] = (),  # MESSAGE_ID, CONTENT: what the employee typed
    messages: int = 0,  # every message of their conversations (both roles)
) -> ErasureReport:
    """The report both engines return, from the rows they read before deleting.

    The proof looks for the conversation titles and the employee's own messages. Assistant answers
    are deleted too but not searched for: they quote the tracker's chunk text, which legitimately
    stays in the chunks (a search would report those copies as failures)."""
    first, last, email, telegram = employee
    texts = [ErasedText("first name", first or ""), ErasedText("last name", last or ""),
             ErasedText("email", email or ""), ErasedText("telegram id", str(telegram or ""))]
    texts += [ErasedText(f"comment #{int(cid)} body", body or "") for cid, _, body in comments]
    if policy == "delete":
        for did, title, body in documents:
            texts += [ErasedText(f"document #{int(did)} title", title or ""),
                      ErasedText(f"document #{int(did)} body", body or "")]
    texts += [ErasedText(f"conversation #{int(cid)} title", title or "") for cid, title in conversations]
    texts += [ErasedText(f"message #{int(mid)} content", content or "") for mid, content in user_messages]
    doc_ids = tuple(int(d[0]) for d in documents)
    return ErasureReport(
        employee_id=employee_id,
        comments_deleted=len(comments),
        documents_deleted=doc_ids if policy == "delete" else (),
        documents_reassigned=doc_ids if policy == "reassign" else (),
        reassigned_to=reassign_to if policy == "reassign" and doc_ids else None,
        tasks_unassigned=tuple(int(t) for t in tasks),
        tasks_reindexed=tuple(sorted({int(t) for t in tasks} | {int(c[1]) for c in comments})),
        texts=tuple(texts),
        conversations_deleted=len(conversations),
        messages_deleted=int(messages),
    )


@dataclass(frozen=True)
class PurgeStep:
    """One physical clean-up step after the deletes (FTS optimize, checkpoint, VACUUM, ...)."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class ProofLine:
    """One search for one erased string in one place.

    ``source`` places hold the tracker's own data (source tables, the schema): a string found
    there is still present legitimately (another employee's first name, a word in a wiki page),
    and its copies in chunks, indexes and files are derived from it.
    """

    label: str
    fingerprint: str
    where: str
    found: bool
    source: bool = False
    detail: str = ""


@dataclass
class StringVerdict:
    label: str
    fingerprint: str
    verdict: Literal["erased", "still present legitimately", "FOUND"]
    where: list[str] = field(default_factory=list)


def proof_texts(texts: tuple[ErasedText, ...] | list[ErasedText]) -> list[ErasedText]:
    """The strings worth searching for: stripped, at least MIN_PROOF_CHARS long, each value once;
    a text longer than a piece also by its pieces (sentences, long ones cut at words)."""
    seen: set[str] = set()
    out: list[ErasedText] = []
    for text in texts:
        value = (text.value or "").strip()
        candidates = [(text.label, value)]
        if len(value) > PIECE_MAX_CHARS:
            candidates += [(f"{text.label} (part {n})", piece) for n, piece in enumerate(pieces(value), 1)]
        for label, candidate in candidates:
            if len(candidate) >= MIN_PROOF_CHARS and candidate not in seen:
                seen.add(candidate)
                out.append(ErasedText(label, candidate))
    return out


def pieces(value: str) -> list[str]:
    """Sentences and lines of ``value``, long ones cut at words; only pieces of PIECE_MIN_CHARS or more."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(value):
        words_left = sentence.split()
        while words_left:
            piece: list[str] = []
            while words_left and (not piece or len(" ".join(piece + words_left[:1])) <= PIECE_MAX_CHARS):
                piece.append(words_left.pop(0))
            text = " ".join(piece)
            if len(text) >= PIECE_MIN_CHARS:
                out.append(text)
    return out


def like_pattern(value: str) -> str:
    r"""``%value%`` for ``LIKE ... ESCAPE '\'``: the value's own %, _ and \ match literally."""
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


_WORD = re.compile(r"[^\W_]+")  # letters and digits: "_" and "%" are CONTAINS wildcards


def words(value: str, limit: int = 8, min_chars: int = 3) -> list[str]:
    """The longest distinct words of a string, for lexical-index checks (FTS5 MATCH, CONTAINS)."""
    distinct = list(dict.fromkeys(w for w in _WORD.findall(value) if len(w) >= min_chars))
    return sorted(distinct, key=len, reverse=True)[:limit]


def verdicts(lines: list[ProofLine]) -> list[StringVerdict]:
    """Per string: erased (found nowhere), still present legitimately (found in a source place),
    or FOUND (found only where it should be gone: chunks, indexes, queue, raw files)."""
    by_string: dict[str, StringVerdict] = {}
    legit: set[str] = set()
    for line in lines:
        entry = by_string.setdefault(line.fingerprint, StringVerdict(line.label, line.fingerprint, "erased"))
        if line.found:
            entry.where.append(line.where + (f" ({line.detail})" if line.detail else ""))
            if line.source:
                legit.add(line.fingerprint)
    for key, entry in by_string.items():
        if entry.where:
            entry.verdict = "still present legitimately" if key in legit else "FOUND"
    return list(by_string.values())
