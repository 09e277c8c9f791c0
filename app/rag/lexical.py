"""Which words of a question the lexical arm searches for: one rule for both engines (issue 10 item 4).

Pure: no I/O. SQLite's FTS5 query and Oracle's Text query are both built from ``query_terms``, so
the same question asks both engines for the same terms; each engine only adds its own quoting.
A term is a run of letters and digits: ``_`` and every other non-word character split terms, which
keeps wildcard and operator characters (``_ % - { } "``) out of the query altogether.
"""

from __future__ import annotations

import re

from app.rag.terms import STOP, WORD, fold

MAX_TERMS = 32
# Oracle Text keeps at most 255 bytes of a token (FACTS.md §12.4); no real word is that long, so a
# longer "word" is noise on both engines and is dropped rather than truncated into a different term.
MAX_TERM_BYTES = 255
# The whole query stays a short VARCHAR2 bind on Oracle: each term costs its bytes plus 9 of quoting
# ("{" "}" " ACCUM "), and 32 long CJK terms would pass 8,000 bytes. Same budget on both engines.
MAX_QUERY_BYTES = 3000
_QUOTING_BYTES = 9
_PART = re.compile(r"[^\W_]+", re.UNICODE)


def _is_stop(word: str) -> bool:
    low = word.lower()
    return low in STOP or fold(low) in STOP


def query_terms(text: str | None) -> list[str]:
    """The question's searchable terms, in order, each once (case-insensitively), at most MAX_TERMS
    and MAX_QUERY_BYTES together.

    English and Spanish stop words are dropped: BM25 gives them almost no weight, and each one
    still costs a posting-list scan. Stop words are tested on the whole word first ("it's",
    "what's") and then on each part of a hyphenated or apostrophe word.
    """
    terms: list[str] = []
    seen: set[str] = set()
    budget = MAX_QUERY_BYTES
    for word in WORD.findall(text or ""):
        if _is_stop(word):
            continue
        for part in _PART.findall(word):
            low = part.lower()
            size = len(part.encode("utf-8"))
            if _is_stop(part) or low in seen or size > MAX_TERM_BYTES:
                continue
            budget -= size + _QUOTING_BYTES
            if budget < 0:
                return terms
            seen.add(low)
            terms.append(part)
            if len(terms) == MAX_TERMS:
                return terms
    return terms
