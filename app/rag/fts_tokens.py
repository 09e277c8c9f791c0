"""SQLite FTS5's ``unicode61 remove_diacritics 2`` tokenizer (optionally under ``porter``), in pure Python.

The in-memory lexical index must see exactly the terms RAG_FTS stores, or its BM25 would drift
from FTS5's. The rules (fts5_tokenize.c): a token starts at a token character (categories
L*, N*, Co in SQLite's own Unicode tables) and continues through token characters and
diacritics; each character is folded to lower case without its diacritics, dropped diacritics
vanish. The tables come from the bundled SQLite (scripts/gen_unicode61.py), not unicodedata.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.rag import porter as _porter
from app.rag.unicode61_data import DIACRITIC_RANGES, FOLD_PAIRS, TOKEN_RANGES

MAX_TOKEN_BYTES = 32768  # FTS5_MAX_TOKEN_SIZE: a longer token is stored truncated to this many bytes


def _char_class(ranges) -> str:
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


_TOKEN = re.compile(f"[{_char_class(TOKEN_RANGES)}][{_char_class(TOKEN_RANGES)}{_char_class(DIACRITIC_RANGES)}]*")
_ASCII_TOKEN = re.compile("[0-9a-z]+")
_FOLD = {FOLD_PAIRS[i]: (FOLD_PAIRS[i + 1] or None) for i in range(0, len(FOLD_PAIRS), 2)}


def _truncate(token: str) -> str:
    raw = token.encode("utf-8", "surrogateescape")
    if len(raw) <= MAX_TOKEN_BYTES:
        return token
    return raw[:MAX_TOKEN_BYTES].decode("utf-8", "surrogateescape")


def tokenize(text: str, porter: bool = False) -> list[str]:
    """The terms FTS5 indexes for ``text``, in order (duplicates kept: they are term frequencies);
    ``porter``: as the tokenizer 'porter unicode61 remove_diacritics 2'."""
    # Folding first is the same as folding each token: the tables fold token characters to token
    # characters (idempotently) and drop only diacritics (tests/sqlite/test_fts_tokens.py checks).
    if text.isascii():
        tokens = _ASCII_TOKEN.findall(text.lower())
    else:
        tokens = _TOKEN.findall(text.translate(_FOLD))
    if len(text) * 4 > MAX_TOKEN_BYTES:  # only a text this long can hold an over-long token
        tokens = [_truncate(t) for t in tokens]
    if porter:
        stem = _porter.stem
        tokens = [stem(t) for t in tokens]
    return tokens


def query_terms(words: Sequence[str], limit: int, porter: bool = False) -> list[str]:
    """The index terms of a query's words, in order, at most ``limit``: a word FTS5 would read as a
    phrase of several tokens ("foo_bar") counts as each of its tokens."""
    return [t for w in words for t in tokenize(w, porter)][:limit]
