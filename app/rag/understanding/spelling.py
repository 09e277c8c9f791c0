"""A word typed one slip away from a word the reader knows is that word ("sprnt", "prevous", "compnent",
"unasigned", "abiertsa"): two letters swapped, or one left out. Pure: no I/O.

The words it corrects to are the glossary's own (app/rag/understanding/glossary.py, phrases.py and the words the
reader knows that ask nothing, said.KNOWN), never a value of the data: a name or a label is matched as written
(lexicon.py). A word is left alone when the reader knows it, when it is short, when it holds a digit or a hyphen (a
version, a label), when it is one of the data's own words, when the known word is the same with an ending more
or less ("close" is no slip of "closed"), or when more than one known word is one slip away.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable

from app.rag import terms
from app.rag.understanding import glossary, phrases
from app.rag.understanding.lexicon import Lexicon
from app.rag.understanding.said import KNOWN

_LETTERS = string.ascii_lowercase + "ñ"
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?", re.UNICODE)
MIN_SLIPPED = 5  # a shorter word has too many neighbours ("bot" / "bug"); a swap of two letters needs 4


def corrected(question: str, data_words: frozenset[str]) -> str:
    """The question with each slipped word replaced by the one known word it is one slip away from."""
    def fix(match: re.Match[str]) -> str:
        word = match.group()
        folded = terms.fold(word)
        if folded in _vocabulary() or folded in data_words or terms.is_stop(folded) or not folded.isalpha() \
                or _touches_a_name(question, match) or len(folded) < 4:  # not a contraction ("haven't")
            return word
        for near in _near(folded):  # two letters swapped first: the commonest slip
            known = {k for k in near & _vocabulary() if not _another_form(folded, k)}
            if known:
                return known.pop() if len(known) == 1 else word
        return word
    return _WORD.sub(fix, question)


def data_words(lexicon: Lexicon) -> frozenset[str]:
    """The folded words of the data's values and names, which are never corrected."""
    names = [*(v for values in lexicon.values.values() for v in values), *(p.name for p in lexicon.projects),
             *(p.external_key or "" for p in lexicon.projects), *(s.name for s in lexicon.sprints),
             *(p.name for p in lexicon.people), *(p.external_id or "" for p in lexicon.people)]
    return frozenset(w for name in names for w in re.findall(r"[^\W_]+", terms.fold(name)))


def _another_form(word: str, known: str) -> bool:
    """"close" and "closed", "list" and "lists": a word and the known one with an ending more or less are two
    forms of a word, not a slip."""
    return known.startswith(word) or word.startswith(known)


def _touches_a_name(question: str, match: re.Match[str]) -> bool:
    """A word joined to a version or a label ("v2.1", "storage-engine") is part of it."""
    return question[match.end():match.end() + 1] in "-.0123456789_" and match.end() < len(question) \
        or match.start() > 0 and question[match.start() - 1] in "-._"


def _near(word: str) -> tuple[set[str], ...]:
    """The words one slip from ``word``: two letters swapped; then (five letters or more) one letter left out, not
    the first ("parece" is no slip of "aparece").
    Not a letter added or replaced: those are mostly another real word ("writing" / "waiting", "curro" / "curso",
    "cerrando" / "cerrado"), which only a dictionary could tell from a slip."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swapped = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    if len(word) < MIN_SLIPPED:
        return (swapped,)
    return swapped, {a + c + b for a, b in splits[1:] for c in _LETTERS}  # a first letter is seldom left out


@functools.cache
def _vocabulary() -> frozenset[str]:
    """Every word of the glossary's and the phrases' constants (strings, patterns, and the keys and values of their
    tables), and the words the reader knows; words of four letters or more."""
    found: set[str] = set(KNOWN)
    for module in (glossary, phrases):
        for name, value in vars(module).items():
            if name.lstrip("_").isupper():  # the module's tables, not its docstring or imports
                found.update(_words_in(value))
    return frozenset(w for w in found if len(w) >= 4 and w.isalpha() and not terms.is_stop(w))


def _words_in(value: object) -> Iterable[str]:
    if isinstance(value, re.Pattern):  # a pattern's words are known too ("sin importar el estado")
        value = value.pattern
    if isinstance(value, str):
        yield from re.findall(r"[a-zñ]+", terms.fold(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _words_in(key)
            yield from _words_in(item)
    elif isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            yield from _words_in(item)
