"""The folded question and the spans of it already understood: what every step of the reader shares. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from app.rag import terms


@dataclass
class Spans:
    """A folded question (terms.fold) and the spans understood so far: a span is taken once."""

    text: str
    taken: list[tuple[int, int]] = field(default_factory=list)

    def free(self, span: tuple[int, int]) -> bool:
        return all(span[1] <= s or span[0] >= e for s, e in self.taken)

    def take(self, span: tuple[int, int]) -> bool:
        if not self.free(span):
            return False
        self.taken.append(span)
        return True

    def find(self, phrases: Iterable[str] | Mapping[str, object]) -> list[tuple[str, tuple[int, int]]]:
        """Each free place a phrase is said (longest phrases first), taken; (phrase, span) in text order."""
        found = []
        for phrase in sorted(phrases, key=len, reverse=True):
            for match in re.finditer(phrase_pattern(phrase), self.text):
                if self.take(match.span()):
                    found.append((phrase, match.span()))
        return sorted(found, key=lambda f: f[1])

    def find_pattern(self, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
        """Each free place a pattern matches (a verb said in any of its forms: "arreglaron", "corrigió"), taken."""
        return [m.span() for m in pattern.finditer(self.text) if self.take(m.span())]

    def first(self, phrases: Iterable[str] | Mapping[str, object]) -> str | None:
        found = self.find(phrases)
        return found[0][0] if found else None

    def says(self, phrases: Iterable[str]) -> bool:
        """Whether any phrase is said anywhere (taken or not): a look, not a take."""
        return any(re.search(phrase_pattern(p), self.text) for p in phrases)

    def before(self, span: tuple[int, int], phrases: Iterable[str], gap: int = 1) -> bool:
        """Whether a phrase ends at most ``gap`` words before ``span`` ("reported by <name>")."""
        head = self.text[:span[0]]
        return any(re.search(phrase_pattern(p) + r"(?:\s+[\w'.-]+){0," + str(gap - 1) + r"}\s*$", head)
                   for p in phrases)

    def after(self, span: tuple[int, int], phrases: Iterable[str], gap: int = 1) -> bool:
        """Whether a phrase starts at most ``gap`` words after ``span`` ("<name> reported")."""
        tail = self.text[span[1]:]
        return any(re.match(r"^(?:['\u2019]s)?(?:\s+[\w'.-]+){0," + str(gap - 1) + r"}\s+" + phrase_pattern(p), tail)
                   for p in phrases)

    def unknown(self, known: frozenset[str], always: frozenset[str] = frozenset()) -> list[str]:
        """The words outside every taken span that carry meaning (not stop words, not ``known``; ``always``: a
        negation, whose dropping would answer the opposite)."""
        return [w for w in terms.words(blanked(self.text, self.taken)) if w in always or not (
            terms.is_stop(w) or w in known or terms.uncontracted(w) in known or len(w) < 2 and not w.isdigit())]

    def after_greetings(self) -> str:
        """The text from its first word that no greeting or thanks took."""
        free = self.free_words()
        return self.text[free[0].start():] if free else ""

    def free_words(self) -> list[re.Match[str]]:
        """Each word no step has taken, in text order."""
        return [m for m in _WORD.finditer(self.text) if self.free(m.span())]


_WORD = re.compile(r"[\w'-]+")


def blanked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """The text with ``spans`` blanked (same length, so every other offset stays)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def phrase_pattern(phrase: str) -> str:
    return rf"(?<![\w-]){re.escape(phrase)}(?![\w-])"
