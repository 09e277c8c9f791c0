"""The answer without an LLM: quote what in each relevant hit (or each entity asked for) matches the
question, or say "I don't know". Pure: no I/O.

A retrieved hit is evidence when it shares a topic word with the question and either its cosine distance
is at most the calibrated RAG_ANSWER_MAX_DISTANCE (docs/CHAT.md, "Honest answers") or the lexical arm ranked it
first and it holds every topic word of the question (a right keyword hit whose vector is far: "my 1:1
with Maria"). From each relevant entity the answer quotes the lines and sentences that share key terms
with the question (the "Assignee:" line for "who is assigned…", a "Blocked until…" comment for "what
blocks…"), labelled with the entity's title and anchor, so the anchors it carries are exactly the
citations. An entity asked for by id (or the conversation's focus) is quoted the same way; when the
question asks for nothing it has, its main fields are shown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain import SearchHit
from app.rag import terms
from app.rag.prompting import ANCHOR, anchor

I_DONT_KNOW = {
    "en": "I don't know: nothing you are allowed to see answers this question closely enough.",
    "es": "No lo sé: nada de lo que puedes ver responde a esta pregunta con suficiente precisión.",
}
LEAD = {"en": "From what you can see:", "es": "Según lo que puedes ver:"}
NOT_FOUND = {"en": "I can't find {what} among what you can see.",
             "es": "No encuentro {what} entre lo que puedes ver."}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'¿¡(]?[A-ZÁÉÍÓÚÑ0-9])")
# The lines that say most about an entity when the question asks for nothing in particular.
_MAIN_FIELDS = ("Status:", "Assignee:", "Due:", "Dates:", "Goal:", "Description:")


def language(question: str) -> str:
    return "es" if terms.is_spanish(question) else "en"


NO_EVIDENCE = 2.0  # the largest cosine distance: what the gate says of a hit sharing no topic word


def relevant(question: str, hits: Sequence[SearchHit], max_distance: float) -> list[SearchHit]:
    """Hits to answer from (best first, as ranked): sharing a topic word with the question (MiniLM puts
    short off-topic Spanish questions close to Spanish chunks; a shared word rules them out, docs/CHAT.md
    "Honest answers"), and close by cosine distance or the lexical arm's first hit holding every topic word."""
    topic = terms.topic_stems(question)
    return [h for h in hits if _gate_distance(h, topic) <= max_distance]


def gate_distance(question: str, hits: Sequence[SearchHit]) -> float:
    """The smallest distance the gate sees among the hits: 0 for the lexical arm's first hit holding every
    topic word (answered at any threshold), NO_EVIDENCE when none shares a topic word. Calibration reads it."""
    topic = terms.topic_stems(question)
    return min((_gate_distance(h, topic) for h in hits), default=NO_EVIDENCE)


def _gate_distance(hit: SearchHit, topic: set[str]) -> float:
    stems = {terms.stem(w) for w in terms.words(hit.content)}
    if topic.isdisjoint(stems):
        return NO_EVIDENCE
    return 0.0 if hit.lexical_rank == 1 and topic and topic <= stems else hit.distance


def extractive_answer(question: str, hits: Sequence[SearchHit], max_distance: float,
                      max_items: int = 3, units_per_item: int = 3) -> str:
    """Quotes from the best relevant entities, or "I don't know" in the question's language."""
    lang = language(question)
    wanted = terms.question_stems(question)
    items: list[str] = []
    seen: set[str] = set()
    for hit in relevant(question, hits, max_distance):
        label = anchor(hit)
        if label in seen:
            continue  # a second chunk of the same entity: the first (best) one speaks for it
        seen.add(label)
        items.append(_item(hit.content, label, wanted, units_per_item))
        if len(items) == max_items:
            break
    if not items:
        return I_DONT_KNOW[lang]
    return LEAD[lang] + "\n" + "\n".join(items)


def entity_answer(question: str, entities: Sequence[SearchHit], missing: Sequence[str] = (),
                  units_per_item: int = 3) -> str:
    """What the question asks of each entity it names (or of the conversation's focus): the matching
    lines, or the entity's main fields; ``missing`` ("task #107") were not found among what the asker
    may see — a hidden entity and a missing one read the same."""
    lang = language(question)
    wanted = terms.question_stems(question) - _id_words(question)
    items = [_item(e.content, anchor(e), wanted, units_per_item, fallback=True) for e in entities]
    gone = [NOT_FOUND[lang].format(what=what) for what in missing]
    if not items:
        return " ".join(gone)
    return "\n".join([LEAD[lang], *items, *gone])


def _id_words(question: str) -> set[str]:
    """Stems of the id and its type word ("task 107"): every line of the entity names neither."""
    return {terms.stem(w) for w in terms.words(question)
            if w.isdigit() or terms.fold(w) in ("task", "tasks", "tarea", "tareas", "doc", "document", "documento",
                                                "sprint", "project", "proyecto")}


def _item(content: str, label: str, wanted: set[str], limit: int, fallback: bool = False) -> str:
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    has_header = bool(lines) and ANCHOR.match(lines[0]) is not None
    title = ANCHOR.sub("", lines[0], count=1).strip() if has_header else ""
    body = lines[1:] if has_header else lines
    quotes = matching_units(body, wanted, limit)
    if not quotes and fallback:
        quotes = _main_fields(body)
    parts = [p for p in (title, "; ".join(quotes)) if p]
    return f"- {': '.join(parts)} {label}" if parts else f"- {label}"


def _main_fields(lines: Sequence[str]) -> list[str]:
    fields = [line for line in lines if line.startswith(_MAIN_FIELDS)]
    if fields:
        return [f if len(f) <= 200 else f[:199] + "…" for f in fields[:4]]
    first = next((u for line in lines for u in _sentences(line)), "")  # a document: its first sentence
    return [first[:300]] if first else []


def matching_units(lines: Sequence[str], wanted: set[str], limit: int) -> list[str]:
    """The sentences/lines sharing most stems with the question (at most `limit`, in text order)."""
    units = [u for line in lines for u in _sentences(line)]
    scored = []
    for ix, unit in enumerate(units):
        overlap = len(wanted & {terms.stem(w) for w in terms.words(unit)})
        if overlap:
            scored.append((-overlap, ix))
    keep = sorted(ix for _, ix in sorted(scored)[:limit])
    return [units[ix] for ix in keep]


def _sentences(line: str) -> list[str]:
    line = line.removeprefix("- ").strip()
    if line.endswith(":") and len(line) < 20:
        return []  # a section heading ("Comments:") says nothing by itself
    return [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
