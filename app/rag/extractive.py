"""The answer without an LLM: quote what in each relevant hit matches the question, or say "I don't know".

Pure: no I/O. A hit is relevant when its cosine distance to the question is at most the calibrated
RAG_ANSWER_MAX_DISTANCE (README, "Honest answers") and it shares a topic word with the question. From each relevant entity the answer quotes the
lines and sentences that share key terms with the question (the "Assignee:" line for "who is
assigned…", a "Blocked until…" comment for "what blocks…"), labelled with the entity's title and
anchor, so the anchors it carries are exactly the citations.
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
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'¿¡(]?[A-ZÁÉÍÓÚÑ0-9])")


def language(question: str) -> str:
    return "es" if terms.is_spanish(question) else "en"


def relevant(question: str, hits: Sequence[SearchHit], max_distance: float) -> list[SearchHit]:
    """Hits to answer from (best first, as ranked): close enough to the question by cosine distance,
    and sharing at least one of its topic words (MiniLM puts short off-topic Spanish questions close
    to Spanish chunks; a shared word is what rules them out, see README "Honest answers")."""
    topic = terms.topic_stems(question)
    return [h for h in hits if h.distance <= max_distance and shares_topic(h.content, topic)]


def shares_topic(content: str, topic: set[str]) -> bool:
    return not topic.isdisjoint(terms.stem(w) for w in terms.words(content))


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
        items.append(_item(hit, label, wanted, units_per_item))
        if len(items) == max_items:
            break
    if not items:
        return I_DONT_KNOW[lang]
    return LEAD[lang] + "\n" + "\n".join(items)


def _item(hit: SearchHit, label: str, wanted: set[str], limit: int) -> str:
    lines = [line.strip() for line in hit.content.splitlines() if line.strip()]
    has_header = bool(lines) and ANCHOR.match(lines[0]) is not None
    title = ANCHOR.sub("", lines[0], count=1).strip() if has_header else ""
    quotes = matching_units(lines[1:] if has_header else lines, wanted, limit)
    parts = [p for p in (title, "; ".join(quotes)) if p]
    return f"- {': '.join(parts)} {label}" if parts else f"- {label}"


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
