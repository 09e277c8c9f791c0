"""FTS5's own Porter stemmer (the ``porter`` tokenizer of SQLite's fts5_tokenize.c), as a pure function.

Why not a PyPI stemmer: FTS5's porter is its own reading of the 1980 algorithm (its *o, its "y is
a vowel after a consonant", step 1b's double-consonant rule), runs on UTF-8 *bytes* (every
non-ASCII byte is a consonant) and leaves tokens under 3 or over 64 bytes alone; NLTK and Snowball
differ from it on real words. This module follows fts5_tokenize.c rule by rule so the in-memory
lexical index and RAG_FTS produce the same terms (tests/sqlite/test_fts_tokens.py checks it).
"""

from __future__ import annotations

from functools import lru_cache

MAX_TOKEN_BYTES = 64  # FTS5_PORTER_MAX_TOKEN: longer tokens (in bytes) pass through unstemmed
_VOWELS = frozenset(b"aeiou")
_Y = ord("y")


def _is_vowel(c: int, y_is_vowel: bool) -> bool:
    return c in _VOWELS or (y_is_vowel and c == _Y)


def _gobble_vc(stem: bytes, prev_consonant: bool) -> int:
    """Length of the first vowel run + following consonant in ``stem`` (0 if there is none)."""
    cons = prev_consonant
    i, n = 0, len(stem)
    while i < n:
        cons = not _is_vowel(stem[i], cons)
        if not cons:
            break
        i += 1
    i += 1
    while i < n:
        cons = not _is_vowel(stem[i], cons)
        if cons:
            return i + 1
        i += 1
    return 0


def _m_gt0(stem: bytes) -> bool:
    return _gobble_vc(stem, False) > 0


def _m_gt1(stem: bytes) -> bool:
    n = _gobble_vc(stem, False)
    return bool(n and _gobble_vc(stem[n:], True))


def _m_eq1(stem: bytes) -> bool:
    n = _gobble_vc(stem, False)
    return bool(n and not _gobble_vc(stem[n:], True))


def _o_star(stem: bytes) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y."""
    if stem[-1] in b"wxy":
        return False
    mask, cons = 0, False
    for c in stem:
        cons = not _is_vowel(c, cons)
        mask = (mask << 1) + cons
    return (mask & 7) == 5


def _m_gt1_s_or_t(stem: bytes) -> bool:
    return stem[-1] in b"st" and _m_gt1(stem)


def _has_vowel(stem: bytes) -> bool:
    return any(_is_vowel(c, i > 0) for i, c in enumerate(stem))


# Each step: (suffix, condition on the stem, replacement), in FTS5's order. As in its generated
# switch, only the first suffix that ends the word (with a non-empty stem) is tried.
_STEP2 = (
    (b"ational", _m_gt0, b"ate"), (b"tional", _m_gt0, b"tion"), (b"enci", _m_gt0, b"ence"),
    (b"anci", _m_gt0, b"ance"), (b"izer", _m_gt0, b"ize"), (b"logi", _m_gt0, b"log"),
    (b"bli", _m_gt0, b"ble"), (b"alli", _m_gt0, b"al"), (b"entli", _m_gt0, b"ent"),
    (b"eli", _m_gt0, b"e"), (b"ousli", _m_gt0, b"ous"), (b"ization", _m_gt0, b"ize"),
    (b"ation", _m_gt0, b"ate"), (b"ator", _m_gt0, b"ate"), (b"alism", _m_gt0, b"al"),
    (b"iveness", _m_gt0, b"ive"), (b"fulness", _m_gt0, b"ful"), (b"ousness", _m_gt0, b"ous"),
    (b"aliti", _m_gt0, b"al"), (b"iviti", _m_gt0, b"ive"), (b"biliti", _m_gt0, b"ble"),
)
_STEP3 = (
    (b"ical", _m_gt0, b"ic"), (b"ness", _m_gt0, b""), (b"icate", _m_gt0, b"ic"), (b"iciti", _m_gt0, b"ic"),
    (b"ful", _m_gt0, b""), (b"ative", _m_gt0, b""), (b"alize", _m_gt0, b"al"),
)
_STEP4 = tuple((s, _m_gt1, b"") for s in (
    b"al", b"ance", b"ence", b"er", b"ic", b"able", b"ible", b"ant", b"ement", b"ment", b"ent")) + (
    (b"ion", _m_gt1_s_or_t, b""),) + tuple((s, _m_gt1, b"") for s in (
    b"ou", b"ism", b"ate", b"iti", b"ous", b"ive", b"ize"))


def _second_last(w: bytes) -> int:
    # A 1-byte word ("aed" -> "a"): FTS5 reads the byte before its buffer, in practice 0.
    return w[-2] if len(w) > 1 else 0


def _apply(word: bytes, rules) -> bytes:
    """The first rule whose suffix ends the word (same second-to-last letter group as FTS5's switch)."""
    key = _second_last(word)
    for suffix, condition, replacement in rules:
        if suffix[-2] == key and len(word) > len(suffix) and word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if condition(stem) else word
    return word


def _step1a(w: bytes) -> bytes:
    if w[-1] == ord("s"):
        if w[-2] == ord("e"):
            if (len(w) > 4 and w[-4:-2] == b"ss") or (len(w) > 3 and w[-3] == ord("i")):
                return w[:-2]
            return w[:-1]
        if w[-2] != ord("s"):
            return w[:-1]
    return w


def _step1b(w: bytes) -> tuple[bytes, bool]:
    """Returns the word and whether -ed/-ing was removed (which triggers the clean-up)."""
    if len(w) > 3 and w.endswith(b"eed"):
        return (w[:-1], False) if _m_gt0(w[:-3]) else (w, False)
    for suffix in (b"ed", b"ing"):
        if suffix[-2] == _second_last(w) and len(w) > len(suffix) and w.endswith(suffix):
            stem = w[: -len(suffix)]
            return (stem, True) if _has_vowel(stem) else (w, False)
    return w, False


def _step1b_cleanup(w: bytes) -> bytes:
    for suffix, replacement in ((b"at", b"ate"), (b"bl", b"ble"), (b"iz", b"ize")):
        if len(w) > 2 and w.endswith(suffix):
            return w[:-2] + replacement
    c = w[-1]
    if not _is_vowel(c, False) and c not in b"lsz" and c == _second_last(w):
        return w[:-1]
    if _m_eq1(w) and _o_star(w):
        return w + b"e"
    return w


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """The term FTS5's porter tokenizer stores for a token its base tokenizer produced."""
    w = token.encode("utf-8", "surrogateescape")
    if len(w) > MAX_TOKEN_BYTES or len(w) < 3:
        return token
    w = _step1a(w)
    w, removed = _step1b(w)
    if removed:
        w = _step1b_cleanup(w)
    if w[-1] == _Y and _has_vowel(w[:-1]):
        w = w[:-1] + b"i"
    w = _apply(w, _STEP2)
    w = _apply(w, _STEP3)
    w = _apply(w, _STEP4)
    if w[-1] == ord("e") and (_m_gt1(w[:-1]) or (_m_eq1(w[:-1]) and not _o_star(w[:-1]))):
        w = w[:-1]
    if len(w) > 1 and w[-1] == ord("l") and w[-2] == ord("l") and _m_gt1(w[:-1]):
        w = w[:-1]
    return w.decode("utf-8", "surrogateescape")
