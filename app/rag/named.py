"""A task or document asked for by its title — «Engineering onboarding guide», "summarise the 1:1 notes Ana /
Maria", "how is the task Investigate crash in the checkout page going?" — found among the retrieved (so visible)
records before any sentence is chosen. Pure: no I/O.

1. **Held word for word.** A retrieved task's or document's title that the question holds (folded: case,
   accents and punctuation aside; at least MIN_TITLE words) is the record asked for; the longest such title
   wins ("… (part 2)" over the title it extends).
2. **Set off as a title.** Otherwise a phrase the question marks as a title — in quotes («», "", “”) or a run
   of at least MIN_SPAN words opening with a capitalised word that is neither the question's first word nor
   a person's name — is matched to the retrieved titles: one holding every content word of the phrase and
   at least MATCH of its own is the record asked for.
3. **Named, and nothing visible is about it.** When no retrieved record holds every content word of that
   phrase, nothing the asker may see is about it: the answer says so first, naming the phrase. Only visible
   records are compared, so a hidden record and a missing one read the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from app.domain import SearchHit
from app.rag import terms
from app.rag.prompting import ANCHOR

MIN_TITLE = 2  # a one-word title ("Onboarding") is a word many questions use, not a name
MIN_SPAN = 3  # "the Android build" is a topic; "Investigate crash in the checkout page" names something
MATCH = 0.8  # of a title's content words the phrase must hold to name it (not "Android build module" for
# "Refactor the Android build module": a topic the free-text answer lists every record of)

_ALNUM = re.compile(r"[^\W_]+")  # "1:1", "1-1" and "1 1" are the same two words
_QUOTED = re.compile(r"«([^»]+)»|\"([^\"]+)\"|“([^”]+)”")
_TITLECASE = re.compile(r"^[A-ZÁÉÍÓÚÑ][a-záéíóúñü]")
# Words that close a question around a title rather than belong to it: "what does X say?", "how is X going?".
_TRAILING = frozenset(terms.fold(w) for w in """say says said going about mean means contain contains dice
dicen va""".split())


@dataclass(frozen=True)
class Named:
    """The record the question names (``hit``), or the phrase it names that no visible record is about."""

    hit: SearchHit | None = None
    phrase: str = ""


def named(question: str, hits: Sequence[SearchHit],
          people: Callable[[], Collection[str]] = tuple) -> Named | None:
    """What the question names by title, if anything (``people``: the team's names, folded, which a
    capitalised phrase may not open with; asked for only when the question holds such a phrase)."""
    titled = [(h, _title(h)) for h in hits if h.source_type in ("task", "doc")]
    asked = _folded(question)
    held = [(len(t), h) for h, t in titled if len(t) >= MIN_TITLE and _contains(asked, t)]
    if held:
        return Named(hit=max(held, key=lambda n: n[0])[1])
    phrase = title_phrase(question, people)
    if phrase is None:
        return None
    wanted = _content(_folded(phrase))
    if not wanted:
        return None
    for hit, title in titled:
        own = _content(title)
        if wanted <= own and len(wanted & own) >= MATCH * len(own):
            return Named(hit=hit)
    if any(wanted <= _stems(h.content) for h in hits):
        return None  # a visible record is about it, if by no title: the free-text answer reads it
    return Named(phrase=phrase)


def title_phrase(question: str, people: Callable[[], Collection[str]] = tuple) -> str | None:
    """The phrase set off as a title: quoted, or a capitalised run (see the module docstring)."""
    quoted = _QUOTED.search(question)
    if quoted:
        return next(g for g in quoted.groups() if g is not None).strip() or None
    words = terms.words(question)
    for start in range(1, len(words)):
        word = words[start]
        if _TITLECASE.match(word) and terms.fold(word) not in people():
            run = words[start:]
            while run and terms.fold(run[-1]) in _TRAILING:
                run = run[:-1]
            if len(run) < MIN_SPAN:
                return None
            return _span_text(question, run)
    return None


def _span_text(question: str, run: Sequence[str]) -> str:
    """The run as the question wrote it (its punctuation kept: "Personal notes: warehouse cost ideas")."""
    begin = question.find(run[0])
    end = question.rfind(run[-1]) + len(run[-1])
    return question[begin:end].strip() if 0 <= begin < end else " ".join(run)


def _title(hit: SearchHit) -> list[str]:
    first = hit.content.strip().split("\n", 1)[0]
    return _folded(ANCHOR.sub("", first, count=1)) if ANCHOR.match(first) else []


def _folded(text: str) -> list[str]:
    return _ALNUM.findall(terms.fold(text))


def _contains(words: Sequence[str], part: Sequence[str]) -> bool:
    n = len(part)
    return any(list(words[i:i + n]) == list(part) for i in range(len(words) - n + 1))


def _content(words: Sequence[str]) -> set[str]:
    return {terms.stem(w) for w in words if w not in terms.STOP and len(w) > 1}


def _stems(text: str) -> set[str]:
    return {terms.stem(w) for w in terms.words(text)}
