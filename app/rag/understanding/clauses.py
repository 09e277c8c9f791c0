"""A message's clauses, and which of them only tell the asker's situation. Pure: no I/O.

People write a question inside a story: "I'm preparing the release notes and before I start I need to know what is
still open for 1.0.0, can you list them?", "Alex says they're overloaded; how many open issues are on their plate?",
"¿qué sigue abierto en la 1.9.0? Estoy cerrando el milestone". The clause that asks is read whole; a clause that
does not ask and holds words the reader does not understand is the situation around it: the values of the data it
names (a version, a component, a person) still count, its other words ask nothing (app/rag/understanding/reader.py).
"""

from __future__ import annotations

import re

from app.rag import terms
from app.rag.understanding import glossary as g

# Where a clause ends: a sentence's mark, a dash between words, a comma, an ellipsis, an opening ¿ or ¡.
# Not a comma between two states said of the same tasks ("the number of open, unowned tickets").
_BOUNDARY = re.compile(r"[.!?;:]+(?=\s|$)|\s[-\u2014\u2013]+\s|(?<!\bopen)(?<!\bunresolved)(?<!\bpending)(?<!\babiertas)"
                       r"(?<!\babiertos)(?<!\bpendientes),\s|\.{2,}|[¿¡]")
# What a clause that asks opens with, besides a question word: a request ("can you …", "give me …", "necesito …").
_REQUESTS = frozenset(terms.fold(w) for w in (
    "can", "could", "would", "will", "please", "pls", "plz", "give", "show", "list", "pull", "find", "get", "fetch",
    "tell", "count", "let", "remind", "help", "is", "share", "provide", "send",
    "are", "does", "do", "did", "any", "anything", "puedes", "podes", "podrias", "podeis", "me", "dame", "dime",
    "decime", "decis", "pasame", "pasa", "muestrame", "muestra", "ensename", "listame", "lista", "necesito",
    "quiero", "quisiera", "hay", "cuantas", "cuantos", "cuanto", "cuanta", "i wonder", "wondering", "curious",
    "i'm curious", "im curious", "me pregunto"))
# "I need the count …", "I'd like to see …", "quiero ver …" ask; "I need to cover for Oscar" tells.
_WANTS = re.compile(r"^(?:(?:i|we)\s?)?(?:need|want|'d like|d like|would like|necesito|quiero|quisiera|me gustaria)"
                    r"(?! to (?!know|see|check|find|get|have|list|count|hear)\b)(?! (?:hacer|cubrir|terminar)\b)")
# A question asked inside a clause that opens otherwise ("… and before I start I need to know what is still open");
# not "que", which inside a clause is mostly "that" ("parece que se quedan atascadas").
_EMBEDDED = re.compile(r"(?<![\w'-])(?:what|which|how many|how much|who|when|where|cual|cuales|cuantos|cuantas|"
                       r"quien|quienes|donde|cuando|(?:i|we) (?:need|want|'d like|would like)|necesito|quiero)(?![\w'-])")
# Words a clause may open with before what it asks ("so which …", "and how many …", "y cuántas …").
_LEADING = frozenset(("so", "and", "but", "then", "also", "ok", "okay", "now", "y", "pero", "entonces", "pues",
                      "tambien", "ahora", "bueno", "just", "oh", "ah", "well"))


def clauses(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, asks) of each clause of the folded text: asks when it opens with a question word or a request,
    or is a question (¿ before it, ? after it)."""
    found, start = [], 0
    for mark in [*_BOUNDARY.finditer(text), None]:
        end = mark.start() if mark is not None else len(text)
        if text[start:end].strip():
            questioned = mark is not None and "?" in mark.group() or text[:start].rstrip().endswith("\u00bf")
            asks = questioned or _opens_asking(text[start:end])
            embedded = None if asks else next((m for m in _EMBEDDED.finditer(text, start + 1, end)
                                               if _opens_asking(text[m.start():end])), None)
            if embedded is not None:  # the clause tells, then asks
                found.extend([(start, embedded.start(), False), (embedded.start(), end, True)])
            else:
                found.append((start, end, asks))
        start = mark.end() if mark is not None else len(text)
    return found


def situation(text: str, unknown: list[str], original: str = "", topics: tuple[str, ...] = ()) -> list[tuple[int, int]]:
    """The clauses of the folded text that only tell the asker's situation: they do not ask, another clause does,
    and they hold a word the reader did not understand — none written as a name ("Won't Fix in Portal — how many
    issues?": a value the asker cannot see, which the question must keep). Empty when the message is one clause
    or none asks. When no clause opens as a question ("for the standup: open tickets in Sprint 4 pls"), a clause
    whose every word is unknown or small is the situation, the others ask. ``original``: the question as typed,
    aligned with ``text``; ``topics``: words read as names."""
    parts, strange = clauses(text), set(unknown)
    if not any(asks for *_, asks in parts):
        parts = [(start, end, not _only_unknown(text[start:end], strange) and not _purpose(text, start, end))
                 for start, end, _ in parts]
    if len(parts) < 2 or all(asks for *_, asks in parts) or not any(asks for *_, asks in parts):
        return []
    return [(start, end) for start, end, asks in parts
            if not asks and (strange & set(terms.words(text[start:end])) or _REASON.match(text[start:end]))
            and not _names_unknown(original[start:end] if len(original) == len(text) else "", strange | set(topics))]


def _purpose(text: str, start: int, end: int) -> bool:
    """A clause that says what the asker asks for, set off by a colon or a dash ("For the sprint review: …", "para
    la revisión de mañana: …"): its date is the meeting's, not the question's."""
    return bool(_PURPOSE.match(text[start:end])) and bool(re.match(r"\s*(?::|[-\u2014\u2013]\s)", text[end:]))


_PURPOSE = re.compile(r"\s*(?:for|para|to|before|ahead of|prior to|antes de|de cara a)\s")


def _only_unknown(clause: str, unknown: set[str]) -> bool:
    said = [w for w in terms.words(clause) if not terms.is_stop(w)]
    return bool(said) and set(said) <= unknown


def gives_reason(text: str) -> bool:
    """Whether a clause after the first says why the asker asks ("…, q la release es el viernes", "…, because the
    release is on Friday"): its date or state is the asker's, not the question's."""
    return any(not asks and _REASON.match(text[start:end]) for start, end, asks in clauses(text)[1:])


# A clause that gives the reason for asking opens with its conjunction.
_REASON = re.compile(r"\s*(?:because|since|cause|'cause|cos|coz|as|porque|pq|q|que|ya que|pues|dado que)\s")


def _names_unknown(clause: str, unknown: set[str]) -> bool:
    """Whether a word the reader did not know is written as a name inside the clause (capitalised, not its first
    word, not an acronym such as "PM")."""
    words = re.findall(r"[\w'\u2019-]+", clause)[1:]
    return any(w[0].isupper() and not w.isupper() and terms.fold(w) in unknown for w in words)


def _opens_asking(clause: str) -> bool:
    words = [w for w in terms.words(clause) if w not in _LEADING and w not in g.PLEASANTRIES]
    if not words:
        return False
    return words[0] in g.ASKING_WORDS or words[0] in _REQUESTS or " ".join(words[:2]) in _REQUESTS \
        or bool(_WANTS.match(" ".join(words)))
