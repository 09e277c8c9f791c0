"""Erasure of an employee, as plain data: the person's strings (what the job searches for and redacts),
how the job holds them while it runs, what it changed, and how the proof's findings become a verdict.
No I/O; the engines fill these records and app/services/erasure.py runs the steps.

What counts as the person's string is precise (issue 20): their full name, email and Telegram id, matched
as whole words (erasing one "Ana Silva" must leave "Ana Silvana" and every other Ana alone), and the texts
they wrote or owned that are long enough to be theirs alone (comments, deleted documents, their own
conversation titles and messages), each whole and by its sentences. A text shorter than MIN_TEXT_CHARS could be
anyone's words: it is not searched, and the proof says so. A lone first or last name is searched in conversations
only (issue 34: a manager's own question "what is Zqx working on?" and its title keep no one's name), as whole
words, unless another employee has the same name: then a lone one may be theirs, and the proof says so. In the
tracker's own data a lone name stays (a colleague's comment that says "ask Zqx" is that colleague's).

The proof never prints an erased string: each is named by what it was (``label``) and a short SHA-256
fingerprint, so the proof's own output is not one more copy of the erased data.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from app.domain import MAX_QUERY_BYTES

DocumentsPolicy = Literal["delete", "reassign"]

# The job's steps, in order (DESIGN.md, "Erasure is a job"). A job row records the last step done.
STEPS = ("delete", "reindex", "redact", "purge", "compact", "prove", "forget")
Step = Literal["delete", "reindex", "redact", "purge", "compact", "prove", "forget"]
REDACTED = "[erased]"  # what a quoted copy in someone else's conversation becomes
# Where other people's data quotes a person, on both engines (table, key, column, the most characters the
# column holds or None): their conversations' messages and titles, the LLM-written project summaries and
# the queue's error texts. Never the tracker's own tables. LAST_ERROR holds 4000 bytes on Oracle: 1000
# characters fit whatever they are. Identifiers spliced into SQL only from here (both engines' erasure statements).
REDACT_PLACES = (("MESSAGES", "MESSAGE_ID", "CONTENT", None), ("MESSAGES", "MESSAGE_ID", "TRACKER_QUERY", None),
                 ("CONVERSATIONS", "CONVERSATION_ID", "TITLE", 400),
                 ("PROJECTS", "PROJECT_ID", "AUTO_SUMMARY", None), ("RAG_DIRTY", "DIRTY_ID", "LAST_ERROR", 1000))
# A stored typed query (JSON, MESSAGES.TRACKER_QUERY) may hold a name as a text predicate's word. "[erased]" inside a
# JSON string keeps the JSON valid; one that would no longer fit its column (domain.MAX_QUERY_BYTES) is dropped
# instead of cut (a cut JSON would not read back): the turn then has no query to edit, as an oversized one.
JSON_PLACES = {("MESSAGES", "TRACKER_QUERY"): MAX_QUERY_BYTES}
# Where a string scoped to conversations (a lone name) is redacted and searched: every stored message and title.
CONVERSATION_TABLES = frozenset({"CONVERSATIONS", "MESSAGES"})
MIN_NAME_CHARS = 2  # a one-letter "name" (an initial) is anyone's

# Shorter strings ("Li", "42") occur by chance in any database file and prove nothing.
MIN_PROOF_CHARS = 4
# A text shorter than this ("LGTM", "Fixed.") could be anyone's: it is neither searched nor redacted.
MIN_TEXT_CHARS = 24
# A long text is also searched for by its pieces: the chunker splits it across chunks, so no one
# chunk holds the whole text while each still holds some of its sentences.
PIECE_MIN_CHARS = MIN_TEXT_CHARS
PIECE_MAX_CHARS = 160  # longer sentences are cut at words into pieces of about this size
NEEDLE_CHARS = PIECE_MAX_CHARS  # the prefix a SQL filter looks for (a row holding the string holds it)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class PersonString:
    """One string of the erased person: what it was (``label``), and whether it counts only as whole
    words (``bounded``: names, email, Telegram id) or anywhere (their own long texts)."""

    label: str
    value: str
    bounded: bool = False
    conversations_only: bool = False  # a lone name: redacted and searched in CONVERSATION_TABLES only

    def applies_to(self, table: str) -> bool:
        """Whether this string is redacted and searched in ``table``."""
        return not self.conversations_only or table in CONVERSATION_TABLES

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.value.encode("utf-8")).hexdigest()[:12]

    @property
    def needle(self) -> str:
        """What a SQL filter looks for: a prefix short enough for any bind, held by every true match."""
        return self.value[:NEEDLE_CHARS]

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        escaped = re.escape(self.value)
        return re.compile(rf"(?<!\w){escaped}(?!\w)" if self.bounded else escaped, re.IGNORECASE)

    def count_in(self, text: str | bytes | None) -> int:
        """Occurrences in a column value (a BLOB is read as UTF-8)."""
        if text is None:
            return 0
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return len(self.pattern.findall(str(text)))

    def count_bytes(self, data, needle: bytes) -> int:
        """Occurrences of ``needle`` (this string's exact or case-folded UTF-8) in raw bytes (``bytes`` or an
        mmap) that count as this string: all of them, or for a bounded string those not inside a longer word."""
        count, at = 0, data.find(needle)
        while at != -1:
            if not self.bounded or _whole_word(data, at, at + len(needle)):
                count += 1
            at = data.find(needle, at + 1)
        return count


_WORD_CHAR = re.compile(r"\w")


def _whole_word(data, start: int, end: int) -> bool:
    """No letter or digit right before ``start`` or right after ``end`` (decoding the bytes around them)."""
    before = data[max(0, start - 4):start].decode("utf-8", "ignore")[-1:]
    after = data[end:end + 4].decode("utf-8", "ignore")[:1]
    return not _WORD_CHAR.match(before) and not _WORD_CHAR.match(after)


@dataclass(frozen=True)
class Skipped:
    """A string of the person the job does not search for, and why (the proof lists it)."""

    label: str
    reason: str


@dataclass(frozen=True)
class ErasureReport:
    """What the delete step changed, in its one transaction (read before the deletes). Ids and counts only."""

    employee_id: int
    comments_deleted: int
    documents_deleted: tuple[int, ...]
    documents_reassigned: tuple[int, ...]
    reassigned_to: int | None
    tasks_unassigned: tuple[int, ...]
    tasks_reindexed: tuple[int, ...]  # assigned, reported or resolved tasks and tasks that showed the deleted comments
    conversations_deleted: int = 0  # the employee's conversations, with their messages
    messages_deleted: int = 0
    tasks_cleared: tuple[int, ...] = ()  # tasks they reported or resolved: REPORTER_ID / RESOLVED_BY_ID cleared

    def to_json(self) -> str:
        return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in vars(self).items()})

    @classmethod
    def from_json(cls, text: str) -> ErasureReport:
        data = json.loads(text)
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


def build_report(
    employee_id: int,
    comments: list[tuple],  # COMMENT_ID, TASK_ID, BODY
    documents: list[tuple],  # DOCUMENT_ID, TITLE, BODY
    tasks: list[int],  # assigned TASK_IDs
    policy: DocumentsPolicy | None,
    reassign_to: int | None,
    conversations: int = 0,
    messages: int = 0,  # every message of their conversations (both roles)
    cleared: Sequence[int] = (),  # TASK_IDs they reported or resolved
) -> ErasureReport:
    doc_ids = tuple(int(d[0]) for d in documents)
    return ErasureReport(
        employee_id=employee_id,
        comments_deleted=len(comments),
        documents_deleted=doc_ids if policy == "delete" else (),
        documents_reassigned=doc_ids if policy == "reassign" else (),
        reassigned_to=reassign_to if policy == "reassign" and doc_ids else None,
        tasks_unassigned=tuple(int(t) for t in tasks),
        tasks_reindexed=tuple(sorted({int(t) for t in (*tasks, *cleared)} | {int(c[1]) for c in comments})),
        conversations_deleted=int(conversations),
        messages_deleted=int(messages),
        tasks_cleared=tuple(int(t) for t in cleared),
    )


def person_strings(
    employee: tuple,  # FIRST_NAME, LAST_NAME, EMAIL, TELEGRAM_ID, EXTERNAL_ID (an imported person's tracker id)
    comments: list[tuple],  # COMMENT_ID, TASK_ID, BODY
    documents: list[tuple],  # DOCUMENT_ID, TITLE, BODY
    policy: DocumentsPolicy | None,
    conversations: list[tuple] = (),  # CONVERSATION_ID, TITLE
    user_messages: list[tuple] = (),  # MESSAGE_ID, CONTENT: what the employee typed
    shared_names: frozenset[str] = frozenset(),  # casefolded first/last names another employee also has
) -> tuple[list[PersonString], list[Skipped]]:
    """The strings the job searches for and redacts, and those it leaves alone with the reason.

    Assistant answers in the employee's conversations are deleted with them but not searched for: they
    quote the tracker's chunk text, which legitimately stays in the chunks."""
    first, last, email, telegram, external = (str(v).strip() if v is not None else "" for v in (*employee, None)[:5])
    found: list[PersonString] = []
    skipped: list[Skipped] = []
    if first and last:
        found.append(PersonString("full name", f"{first} {last}", bounded=True))
    found_names, skipped_names = lone_names(first, last, shared_names)
    found += found_names
    skipped += skipped_names
    for label, value in (("email", email), ("telegram id", telegram), ("tracker id", external)):
        if len(value) >= MIN_PROOF_CHARS:
            found.append(PersonString(label, value, bounded=True))
        elif value:
            skipped.append(Skipped(label, f"shorter than {MIN_PROOF_CHARS} characters: found by chance anywhere"))
    texts = [(f"comment #{int(cid)} body", body) for cid, _, body in comments]
    if policy == "delete":
        for did, title, body in documents:
            texts += [(f"document #{int(did)} title", title), (f"document #{int(did)} body", body)]
    texts += [(f"conversation #{int(cid)} title", title) for cid, title in conversations]
    texts += [(f"message #{int(mid)} content", content) for mid, content in user_messages]
    for label, value in texts:
        value = (value or "").strip()
        if len(value) < MIN_TEXT_CHARS:
            if value:
                skipped.append(Skipped(label, f"shorter than {MIN_TEXT_CHARS} characters: could be anyone's words"))
            continue
        found.append(PersonString(label, value))
        if len(value) > PIECE_MAX_CHARS:
            found += [PersonString(f"{label} (part {n})", piece) for n, piece in enumerate(pieces(value), 1)]
    return _distinct(found), skipped


def lone_names(first: str, last: str, shared_names: frozenset[str]) -> tuple[list[PersonString], list[Skipped]]:
    """The first and last name alone, as whole words in conversations only; a name another employee has too is
    left alone (in "ask Zorbalina" it may be hers), and so is an initial."""
    found: list[PersonString] = []
    skipped: list[Skipped] = []
    for label, value in (("first name", first), ("last name", last)):
        if not value:
            continue
        if value.casefold() in shared_names:
            skipped.append(Skipped(label, "another employee has the same name: alone it may be theirs, so it is "
                                          "searched as part of the full name only"))
        elif len(value) < MIN_NAME_CHARS:
            skipped.append(Skipped(label, f"shorter than {MIN_NAME_CHARS} characters: anyone's initial"))
        else:
            found.append(PersonString(label, value, bounded=True, conversations_only=True))
            skipped.append(Skipped(f"{label} outside conversations", "alone, anyone may share it: searched and "
                                   "redacted in stored messages and conversation titles only"))
    return found, skipped


def shared_names(first: str | None, last: str | None, namesakes: list[tuple]) -> frozenset[str]:
    """Which of the person's first and last names (casefolded) another employee has as a first or last name, from
    the rows ERASE_NAMESAKES found (FIRST_NAME, LAST_NAME; a database's UPPER may fold less than casefold)."""
    theirs = {str(n).strip().casefold() for row in namesakes for n in row if n is not None}
    return frozenset(n.strip().casefold() for n in (first, last) if n and n.strip().casefold() in theirs)


def _distinct(strings: list[PersonString]) -> list[PersonString]:
    """Each value once (case-insensitively: every search ignores case); one searched everywhere wins a tie, then a
    bounded one."""
    seen: dict[str, PersonString] = {}
    for s in strings:
        key = s.value.casefold()
        rank = (not s.conversations_only, s.bounded)
        if key not in seen or rank > (not seen[key].conversations_only, seen[key].bounded):
            seen[key] = s
    return list(seen.values())


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


def redact(text: str, strings: list[PersonString], max_chars: int | None = None) -> tuple[str, int]:
    """``text`` with every occurrence of the person's strings replaced by REDACTED (longest first, so a
    whole text goes at once rather than sentence by sentence), cut to ``max_chars`` if the markers made it
    longer than its column holds; and how many were replaced."""
    total = 0
    for s in sorted(strings, key=lambda s: len(s.value), reverse=True):
        text, n = s.pattern.subn(REDACTED, text)
        total += n
    return (text[:max_chars] if max_chars else text), total


def redact_place(table: str, column: str, text: str, strings: list[PersonString],
                 max_chars: int | None = None) -> tuple[str | None, int]:
    """``redact`` for one REDACT_PLACES column: a JSON column whose redacted text outgrew it becomes None."""
    redacted, count = redact(text, strings, max_chars)
    limit = JSON_PLACES.get((table, column))
    if limit is not None and len(redacted.encode("utf-8")) > limit:
        return None, count
    return redacted, count


# --- holding the strings while the job runs ------------------------------------------------------

def seal(strings: list[PersonString], key: bytes) -> bytes:
    """The strings as the job row holds them until the proof passed: the key, then their JSON XORed with
    a SHA-256 keystream. Not secrecy (the key is beside it): the proof reads the raw bytes of the
    database for each string, and must not find the job's own copy while it still needs it."""
    plain = json.dumps([[s.label, s.value, s.bounded, s.conversations_only] for s in strings]).encode("utf-8")
    return key + _xor(plain, key)


def unseal(held: bytes) -> list[PersonString]:
    """The sealed strings (a job sealed before issue 34 holds three fields each: searched everywhere)."""
    key, body = held[:KEY_BYTES], held[KEY_BYTES:]
    return [PersonString(label, value, bool(bounded), bool(rest and rest[0]))
            for label, value, bounded, *rest in json.loads(_xor(body, key))]


KEY_BYTES = 32


def _xor(data: bytes, key: bytes) -> bytes:
    stream = b"".join(hashlib.sha256(key + n.to_bytes(8, "big")).digest() for n in range(len(data) // 32 + 1))
    size = len(data)
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream[:size], "big")).to_bytes(size, "big")


# --- what the steps found --------------------------------------------------------------------------

@dataclass(frozen=True)
class PurgeStep:
    """One physical clean-up step (FTS optimize, checkpoint, VACUUM, forgetting the held strings, ...)."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class Redaction:
    """Copies of the person's strings replaced in one column of other people's data."""

    where: str  # TABLE.COLUMN
    rows: int
    copies: int


@dataclass(frozen=True)
class ProofLine:
    """One search for one erased string in one place.

    ``source`` places hold the tracker's own data (source tables, the schema): a string found
    there is still present legitimately (a colleague's comment that names the person), and its
    copies in chunks, indexes and files are derived from it. ``bytes`` is what a raw-bytes search found.
    """

    label: str
    fingerprint: str
    where: str
    found: bool
    source: bool = False
    detail: str = ""
    bytes: int = 0


@dataclass
class StringVerdict:
    label: str
    fingerprint: str
    verdict: Literal["erased", "still present legitimately", "FOUND"]
    where: list[str] = field(default_factory=list)


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
    or FOUND (found only where it should be gone: chunks, indexes, queue, conversations, raw files)."""
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


def bytes_left(lines: list[ProofLine], judged: list[StringVerdict]) -> int:
    """Bytes of the person's strings the raw-bytes searches found, not counting strings still present
    legitimately in the tracker's own data (whose bytes are that data's)."""
    legit = {v.fingerprint for v in judged if v.verdict == "still present legitimately"}
    return sum(line.bytes for line in lines if line.fingerprint not in legit)


# --- the job row ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ErasureJob:
    """The progress row of one erasure (ERASURE_JOBS), which outlives the employee."""

    employee_id: int
    step: Step  # the last step done
    documents: DocumentsPolicy | None
    report: ErasureReport
    outcome: dict  # what each step found (JSON: labels, fingerprints, counts; never the erased text)
    verdict: Literal["proven", "not proven"] | None
    held: bytes | None  # the sealed strings; None once forgotten
    started_at: str
    updated_at: str

    @property
    def finished(self) -> bool:
        return self.step == STEPS[-1]


def job_from_row(row: tuple) -> ErasureJob:
    """EMPLOYEE_ID, STEP, DOCUMENTS, REPORT, OUTCOME, VERDICT, HELD, STARTED_AT, UPDATED_AT (either engine)."""
    employee_id, step, documents, report, outcome, verdict, held, started, updated = row
    return ErasureJob(int(employee_id), step, documents, ErasureReport.from_json(report), json.loads(outcome or "{}"),
                      verdict, bytes(held) if held is not None else None, _text(started), _text(updated))


def _text(moment) -> str:
    return moment.isoformat(timespec="milliseconds") if hasattr(moment, "isoformat") else str(moment)


def first_outcome(strings: list[PersonString], skipped: list[Skipped]) -> str:
    """The OUTCOME a job starts with: which strings it searches for (by label and fingerprint) and which not."""
    return json.dumps({
        "searched": [{"label": s.label, "fingerprint": s.fingerprint, "chars": len(s.value), "whole_words": s.bounded,
                      **({"where": "conversations"} if s.conversations_only else {})} for s in strings],
        "not_searched": [{"label": s.label, "reason": s.reason} for s in skipped],
    })
