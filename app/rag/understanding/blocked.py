"""What says a task is held up, in one place: the words an answer quotes (app/rag/comment_answers.py) and the
``blocked`` predicate of the typed tracker query (both engines) read the same list. Pure: no I/O.

Blocked, a blocker, waiting on something. Not "it blocks X" / "bloquea" (the other way round), nor "pendiente de
revisión" (awaiting review is not blocked). A word counts whole: not inside a longer word or a hyphenated one
("unblocked", "stuck-up" do not say so). The benchmark's truth restates the list on its own
(app/evals/conversation_truth.BLOCKED_WORDS), so a change here shows there.
"""

from __future__ import annotations

import re

BLOCKED_WORDS = ("blocked", "blocker", "blockers", "bloqueado", "bloqueada", "bloqueados", "bloqueadas", "bloqueo",
                 "bloqueos", "waiting on", "waiting for", "stuck", "on hold", "depends on", "esperando", "atascado",
                 "atascada", "atascados", "atascadas", "trabado", "trabada", "trabados", "trabadas", "depende de")
BLOCKED_STATUS = "BLOCKED"  # a tracker's own status for it (imported trackers have one)
# The longest first, so an alternation never stops at a shorter word of the list inside a longer one.
_ALTERNATION = sorted(BLOCKED_WORDS, key=lambda w: (-len(w), w))

# Python's form (comment_answers quotes the sentences it finds; the SQLite engine registers it as a function).
BLOCKING = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in _ALTERNATION) + r")(?![\w-])",
                      re.IGNORECASE)


def says_blocked(text: str | None) -> bool:
    return bool(text) and BLOCKING.search(text) is not None  # type: ignore[arg-type]


def posix_pattern() -> str:
    """The same words as a POSIX extended regular expression (Oracle's REGEXP_LIKE, with match parameter 'i'):
    no look-behind there, so the word's edges are a character that is not a letter, digit, '_' or '-', or the
    text's start or end. Every word is letters and spaces only (checked), so none needs escaping."""
    if not all(re.fullmatch(r"[a-z ]+", w) for w in BLOCKED_WORDS):
        raise ValueError("a blocked word must be lower-case letters and spaces")
    pattern = "(^|[^[:alnum:]_-])(" + "|".join(_ALTERNATION) + ")($|[^[:alnum:]_-])"
    if len(pattern.encode()) > 512:  # REGEXP_LIKE's pattern is at most 512 bytes [DOC sqlrf REGEXP_LIKE]
        raise ValueError("the blocked words' pattern is over 512 bytes")
    return pattern
