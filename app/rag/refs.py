"""Entities named by id in a question or an answer: "task 107", "TASK #107", "#107", "tarea 107",
"doc 6", "documento 6", "sprint 3", "[DOC #6]"; and the tracker keys a question names ("PAY-1210",
"octo/repo#123"), which only the database can tell from look-alikes ("COVID-19"). Pure: no I/O.

An entity reference is ``(source_type, source_id)`` with the source types of the chunk index; its
anchor is the text every chunk of it starts with and every answer cites ("[TASK #107]").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from app.domain import MAX_ID, SourceType

EntityRef = tuple[SourceType, int]
ANCHOR_PREFIX: dict[str, str] = {"task": "TASK", "sprint": "SPRINT", "project": "PROJECT", "doc": "DOC"}
_TYPE_OF_PREFIX = {prefix: source_type for source_type, prefix in ANCHOR_PREFIX.items()}

# The words people put before an id, English and Spanish, singular and plural.
_TYPE_WORDS: dict[str, SourceType] = {
    **dict.fromkeys(("task", "tasks", "ticket", "tickets", "issue", "issues", "tarea", "tareas"), "task"),
    **dict.fromkeys(("sprint", "sprints", "iteration", "iteración", "iteracion"), "sprint"),
    **dict.fromkeys(("project", "projects", "proyecto", "proyectos"), "project"),
    **dict.fromkeys(("doc", "docs", "document", "documents", "documento", "documentos"), "doc"),
}
_WORDS = "|".join(sorted(_TYPE_WORDS, key=len, reverse=True))
_MENTION = re.compile(
    r"\[(?P<anchor>TASK|SPRINT|PROJECT|DOC)\s*#\s*(?P<anchor_id>\d{1,19})\]"  # an anchor, as cited
    rf"|\b(?P<word>{_WORDS})\s*(?:#|n[º°o]\.?|no\.|number|número|numero)?\s*(?P<word_id>\d{{1,19}})\b"
    r"|(?<![\w#&])#(?P<bare_id>\d{1,19})\b"  # "#107" alone: a task, as trackers number them
    # A number alone after the article of "la tarea" or a preposition that asks about one thing ("¿cómo va
    # la 112?", "status of 75?", "deadline for 120?", "who's on 39?"), where the question ends or says how it
    # is doing, or by whom: a task. Followed by a unit or a date ("in 3 days", "la 5 de enero"), or a year ("the roadmap for
    # 2026?", "el plan de 2025"), it is not one: "task 2026" or "#2026" still is.
    r"|(?<![\w-])(?:la|of|for|on|has|de|is|doing|what's|whats)\s+(?!(?:19|20)\d\d\b)(?P<said_id>\d{1,19})"
    r"(?=\s*(?:[?!.,:;)](?!\d)|$)|\s+(?:estimated|going|done|finished|due|about|at|worth|in points|en puntos|"
    r"by whom|by who|from whom|from anyone|from anybody|por quien|por quienes)\b)",
    re.IGNORECASE,
)


def anchor(ref: EntityRef) -> str:
    return f"[{ANCHOR_PREFIX[ref[0]]} #{ref[1]}]"


def ref_of(anchor_text: str) -> EntityRef | None:
    """The entity an anchor such as "[TASK #12]" names (None for anything else)."""
    match = re.fullmatch(r"\[(TASK|SPRINT|PROJECT|DOC) #(\d{1,19})\]", anchor_text.strip())
    if not match or not 0 < int(match.group(2)) <= MAX_ID:
        return None
    return _TYPE_OF_PREFIX[match.group(1)], int(match.group(2))


def mentions(text: str, masked: Sequence[tuple[int, int]] = ()) -> list[EntityRef]:
    """Entities the text names by id, in order of first mention, each once. Spans in ``masked`` (a
    sprint or project *name* that ends in a number, "Payments Sprint 2") are not read as ids."""
    found: list[EntityRef] = []
    for match in _MENTION.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in masked):
            continue
        if match.group("anchor"):
            ref: EntityRef = (_TYPE_OF_PREFIX[match.group("anchor").upper()], int(match.group("anchor_id")))
        elif match.group("word"):
            ref = (_TYPE_WORDS[match.group("word").lower()], int(match.group("word_id")))
        else:
            ref = ("task", int(match.group("bare_id") or match.group("said_id")))
        if 0 < ref[1] <= MAX_ID and ref not in found:
            found.append(ref)
    return found


def mention_spans(text: str, masked: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Where ``mentions`` found its ids (to tell what else a question says)."""
    return [(m.start(), m.end()) for m in _MENTION.finditer(text)
            if not any(s < m.end() and m.start() < e for s, e in masked)]


def anchors_in(text: str) -> list[EntityRef]:
    """The entities an answer cites with anchors, in order, each once."""
    refs = (ref_of(m.group(0)) for m in re.finditer(r"\[(?:TASK|SPRINT|PROJECT|DOC) #\d{1,19}\]", text))
    return list(dict.fromkeys(r for r in refs if r is not None))


def unique(refs: Iterable[EntityRef]) -> list[EntityRef]:
    return list(dict.fromkeys(refs))


# An imported task's key (TASKS.EXTERNAL_KEY): a Jira key as Jira writes it (an upper-case project key of 2+
# characters, a dash, the issue number) or a GitHub issue "owner/repo#123" (GitHub's owner and repository name
# characters). Look-alikes ("COVID-19", "ISO-8601") are keys of no task: resolution decides, not this pattern.
_KEY = re.compile(
    r"(?<![\w/.-])(?P<jira>[A-Z][A-Z0-9_]+-[0-9]{1,18})(?![\w-])"
    r"|(?<![\w.-])(?P<github>[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}#[0-9]{1,19})(?![\w#])"
)
MAX_KEYS = 10  # keys read from one question: a lookup, not a bulk query


def key_mentions(text: str) -> list[str]:
    """The tracker keys the text names, in order of first mention, each once (at most MAX_KEYS)."""
    return list(dict.fromkeys(m.group(0) for m in _KEY.finditer(text)))[:MAX_KEYS]


def key_spans(text: str) -> list[tuple[int, int]]:
    """Where ``key_mentions`` found its keys (so "octo/repo#123" is not also read as task #123)."""
    return [(m.start(), m.end()) for m in _KEY.finditer(text)]
