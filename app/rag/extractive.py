"""The answer without an LLM to a free-text question: whole sentences of the relevant records, chosen by
meaning, or an honest "nothing you can see is about …". Pure: no I/O (the similarity of sentences to the
question is a function the services layer passes in: app/services/answers.py embeds them).

1. **Relevant** hits (the gate): sharing a topic word with the question and either within the calibrated
   cosine distance RAG_ANSWER_MAX_DISTANCE (docs/CHAT.md, "Honest answers") or the lexical arm's first hit
   holding every topic word — or the entity the question means (``meant``: its best sentence close in
   meaning and clear of every other's; a Spanish question by its English gloss), whatever words it shares.
   None: "I don't know". A record holds a word when it has the word or its equivalent in the other language
   (app/rag/bilingual.py: "release" holds "lanzamiento").
2. **Coverage.** The question's topic words that some retrieved (so visible) hit uses are the ones the data
   knows; the question is covered when one relevant hit holds all of them (a question joining topics with
   "and", "or", "y", a comma: each part by some hit). A word no visible hit uses ("summarise", "escribir")
   cannot be checked by itself; but when such words are at least as many as the known ones ("la
   integración con blockchain"), the known ones are not what is asked about, and nothing visible covers it.
   The meant entity covers a part its words do not when it is MEANT_OVER_WORDS close and no visible hit
   holds more of the part's words; hits covering an English question by some of its words only, far from it
   in meaning (MEANT_FLOOR), name its topic, not what it asks. When no hit covers it, the answer says so first — "Nothing you can see is about the weekly mobile sync;
   the closest: …" — and, computed only from what the asker sees, it reads the same whether the thing
   asked for is hidden or does not exist. So does a title the question names that no visible record is
   about (``not_about``, app/rag/named.py).
3. **Items.** The hits about the question (covering it, one per entity), those whose title holds most of
   its topic words first: "the refund flow" lists every refund-flow task retrieved, "the release plan" the
   release document rather than the sprints whose goal mentions a release. At most MAX_ITEMS.
4. **Sentences by meaning.** From each item, the sentences (description, comments, a document's paragraphs,
   a sprint's goal) closest in meaning to the question: within MARGIN of the item's best and above FLOOR,
   at most PER_ITEM, in text order — always whole; a document of at most WHOLE_DOC sentences is quoted whole.
   A task keeps its status line (status, assignee, due date, and any field the question names) beside them,
   and when the question asks what blocks it, the comments that say so instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.domain import SearchHit
from app.rag.understanding.glossary import PLEASANTRIES
from app.rag import bilingual, cards, task_questions, terms
from app.rag.prompting import ANCHOR, anchor
from app.rag.templates import LINK_LABELS

I_DONT_KNOW = {
    "en": "I don't know: nothing you are allowed to see answers this question closely enough.",
    "es": "No lo sé: nada de lo que puedes ver responde a esta pregunta con suficiente precisión.",
}
LEAD = {"en": "From what you can see:", "es": "Según lo que puedes ver:"}
NOT_ABOUT = {"en": "Nothing you can see is about {topic}; the closest:",
             "es": "Nada de lo que puedes ver trata de {topic}; lo más cercano:"}
# The same lead in the LLM's context, without the question's words: the context holds only records and what
# was computed from them, never the asker's words dressed as evidence (the model has the question itself).
NOT_COVERED = {"en": "Nothing you can see is about what was asked; the closest:",
               "es": "Nada de lo que puedes ver trata de lo que se pregunta; lo más cercano:"}
MORE = {"en": "…and {n} more ({total} in all).", "es": "…y {n} más ({total} en total)."}
MAX_ITEMS = 8  # entities an answer lists (retrieval's top-k is 8 by default)
CLOSEST_ITEMS = 3  # what "the closest" shows when nothing covers the question
PER_ITEM = 3  # sentences quoted per entity
MARGIN = 0.25  # a sentence is kept within this cosine similarity of its entity's best one...
FLOOR = 0.15  # ...and above this one
WHOLE_DOC = 4  # a document of at most this many sentences is its own best summary ("summarise the release plan")
MAX_CHOSEN = 32  # sentences whose meaning is measured per answer: the bound on what it costs (docs/BENCHMARKS.md)
# An entity whose best sentence is this close in meaning to the question (cosine; for a Spanish question, its
# English gloss, app/rag/bilingual.py) and closer by MEANT_MARGIN than every other entity's best is what the
# question asks about, sharing a word or not ("payments are down" and "For a payments outage, …"). Calibrated
# on document questions against questions nothing answers, hidden documents' askers included (docs/CHAT.md,
# "Honest answers"): the closest of those came to 0.433, the farthest answered ones at 0.45.
MEANT = 0.44
MEANT_MARGIN = 0.1
_TASK_ANCHOR = "[TASK #"
MEANT_OVER_WORDS = 0.55  # closer still to cover what the words do not ("refunds instant": no record says instant)
MEANT_FLOOR = 0.35  # below it, hits holding only some of an English question's words name its topic, no more

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'¿¡(]?[A-ZÁÉÍÓÚÑ0-9])")
# Task template lines that are fields, not sentences (app/rag/templates.py).
# A task chunk's field lines (app/rag/templates.py): facts a card states, never sentences to quote as an answer's
# content (a real tracker's fields among them: "Reporter: Chen Wei" is not what the login bug is about).
_FIELD_LINE = re.compile(r"^(?:Status|Project|Assignee|Story points|Estimated hours|Due|Comments|Dates|Reporter|"
                         r"Created|Resolution|Labels|Fix versions|Affects versions|Components|Environment|Parent|"
                         + "|".join(label for _, label in LINK_LABELS) + r"):")
# Words that only ask how much or what to do: they name nothing, not even for the gate (which still wants
# the "agree" of "what did we agree with Maria?" in the lexical arm's first hit).
_FUNCTION = frozenset(terms.stem(w) for w in """
cuanto cuanta cuantos cuantas necesita necesitan necesito hago hace hacen hacemos
""".split())
# Words that ask rather than name what is asked about: they say nothing about coverage.
_ASKING = _FUNCTION | frozenset(terms.stem(w) for w in """
decide decided decides decision decisions agreed happen happened happening say said summarise summarize summary
overview explain tell know wrong plan plans going
decidio decidieron decidimos decidido acordo acordamos acordado paso resumen resume resumir explica explicame
debemos deberiamos debo tenemos hacer
often frequently usually normally typically menudo frecuencia frecuentemente suele suelen normalmente
""".split())
_ARTICLES = frozenset("the a an el la los las un una".split())
# Where a question joins two topics: each part must be covered on its own.
_JOINED = re.compile(r"\b(?:and|or|y|o|e|vs|versus|as well as|además de|ademas de)\b|[,;/&]", re.IGNORECASE)

Similarity = Callable[[Sequence[str]], Sequence[float]]  # sentences -> cosine similarity to the question
Meaning = Mapping[str, float]  # an entity's anchor -> its best sentence's cosine similarity to the question


NO_EVIDENCE = 2.0  # the largest cosine distance: what the gate says of a hit sharing no topic word


def relevant(question: str, hits: Sequence[SearchHit], max_distance: float,
             meaning: Meaning | None = None) -> list[SearchHit]:
    """Hits to answer from (best first, as ranked): sharing a topic word with the question (MiniLM puts
    short off-topic Spanish questions close to Spanish chunks; a shared word rules them out, docs/CHAT.md
    "Honest answers"), and close by cosine distance or the lexical arm's first hit holding every topic word
    — or a sibling of the best of those: a lexical hit whose title holds the two or more topic words the best
    one's title holds ("Fix login bug on the nightly ETL" beside "Add unit tests for the nightly ETL", however
    far a short informal question's embedding puts it). With ``meaning``, also the entity the question means
    (``meant``), whatever words it shares."""
    topic = _gate_topic(question)
    by_meaning = meant(meaning)
    passed = [h for h in hits if _gate_distance(h, topic) <= max_distance or anchor(h) == by_meaning]
    named = topic & _stems(_title(passed[0].content)) if passed else set()
    if len(named) < 2:
        return passed
    return [h for h in hits if h in passed or h.lexical_rank is not None and named <= _stems(_title(h.content))]


def meant(meaning: Meaning | None) -> str | None:
    """The anchor of the entity the question means: its best sentence at least MEANT close to the question
    and MEANT_MARGIN closer than any other entity's (None: none stands out, the words decide). Never a task:
    a task is a named thing asked for by its title's words ("Accessibility audit of the cost report" is not
    "Design review for the cost report", however close in meaning), its description a line many tasks
    share; what meaning finds is a statement of a document, a sprint's goal or a project's description."""
    ranked = sorted((meaning or {}).items(), key=lambda kv: kv[1], reverse=True)
    if not ranked or ranked[0][1] < MEANT or ranked[0][0].startswith(_TASK_ANCHOR):
        return None
    return ranked[0][0] if len(ranked) == 1 or ranked[0][1] - ranked[1][1] >= MEANT_MARGIN else None


def gate_distance(question: str, hits: Sequence[SearchHit]) -> float:
    """The smallest distance the gate sees among the hits: 0 for the lexical arm's first hit holding every
    topic word (answered at any threshold), NO_EVIDENCE when none shares a topic word. Calibration reads it."""
    topic = _gate_topic(question)
    return min((_gate_distance(h, topic) for h in hits), default=NO_EVIDENCE)


def _gate_topic(question: str) -> set[str]:
    """The topic words the gate checks: not the words that only ask ("¿cuántas … necesita …?"), unless that is all."""
    topic = terms.topic_stems(question)
    return topic - _FUNCTION or topic


def _gate_distance(hit: SearchHit, topic: set[str]) -> float:
    stems = _stems(hit.content)
    if topic.isdisjoint(stems):
        return NO_EVIDENCE
    held = len(topic & stems)
    # The lexical arm's first hit holding every topic word — or all but one of three or more: a generic word
    # ("sistema" of "si se cae el sistema de pagos") no record repeats — is evidence at any distance.
    return 0.0 if hit.lexical_rank == 1 and topic and held >= len(topic) - (len(topic) >= 3) else hit.distance




@dataclass(frozen=True)
class Item:
    """One entity of the answer: its anchor and title, its status line, and the sentences to choose among."""

    anchor: str
    title: str
    facts: tuple[str, ...]
    sentences: tuple[str, ...]
    whole: bool = False  # a short document (at most WHOLE_DOC sentences): quoted whole, nothing to choose
    pinned: tuple[str, ...] = ()  # quoted whatever their meaning: what blocks a task, when that is asked


@dataclass(frozen=True)
class Plan:
    lang: str
    covered: bool
    topic: str  # the question's words from its first topic word ("the weekly mobile sync")
    items: tuple[Item, ...]
    more: int = 0  # entities about the question beyond MAX_ITEMS


def extractive_answer(question: str, hits: Sequence[SearchHit], max_distance: float,
                      similarity: Similarity | None = None, lang: str | None = None,
                      not_about: str | None = None, meaning: Meaning | None = None) -> str:
    """The whole offline answer to a free-text question (``similarity``: None picks each entity's first
    sentences, as when nothing can be embedded; ``lang``: the asker's language when ``question`` is a
    rewritten search query, which may be in another; ``not_about``: a title the question names that no
    visible record is about, app/rag/named.py — said first, whatever the hits cover; ``meaning``: each
    entity's closeness in meaning to the question, ``meant``)."""
    planned = plan(question, hits, max_distance, lang, not_about, meaning)
    if planned is None:
        return I_DONT_KNOW[lang or terms.language(question)]
    wanted = to_measure(planned)
    scores = dict(zip(wanted, similarity([planned.items[i].sentences[j] for i, j in wanted]))) \
        if similarity is not None and wanted else {}
    return compose(planned, scores)


def plan(question: str, hits: Sequence[SearchHit], max_distance: float, lang: str | None = None,
         not_about: str | None = None, meaning: Meaning | None = None) -> Plan | None:
    """What the answer will say (None: nothing relevant, "I don't know"). A question joining topics ("the
    refund flow and the checkout page") is covered when each of its parts is, each by some hit. The entity
    the question means (``meant``) covers a part no hit covers by its words, unless another retrieved hit
    holds more of the part's words (then the words say the question is about something else)."""
    lang = lang or terms.language(question)
    fields = cards.asked_fields(question)
    relevant_hits = one_per_entity(relevant(question, hits, max_distance, meaning))
    by_meaning = meant(meaning)
    meant_hit = next((h for h in relevant_hits if anchor(h) == by_meaning), None)
    if not relevant_hits:
        return None
    if not_about:
        return Plan(lang, False, not_about, tuple(_item(h, lang, fields) for h in relevant_hits[:CLOSEST_ITEMS]))
    visible = {s for h in hits for s in _stems(h.content)}
    asks_for_tasks = task_questions.might_be(question)
    parts = [(part, terms.topic_stems(part) - _ASKING) for part in _JOINED.split(question)]
    parts = [(part, topic) for part, topic in parts if topic] or [(question, terms.topic_stems(question))]
    chosen: list[SearchHit] = []
    for part, topic in parts:
        known = topic & visible
        # Outnumbered by words no visible record uses ("la integración con blockchain"), the words the data
        # knows are not what the part is about: nothing visible is. Not in a question asking for tasks, whose
        # other words are filters ("how many tasks are still open?"), not a topic.
        unknown = set() if asks_for_tasks else topic - visible
        about = [h for h in relevant_hits if known <= _stems(h.content) or _first_in_both(h, known)] \
            if len(known) > len(unknown) else []
        if not about and meant_hit is not None and _means(meant_hit, meaning, known, hits):
            about = [meant_hit]
        elif about and unknown and _far_in_meaning(about, meaning, question):
            about = []
        if not about:
            closest = tuple(_item(h, lang, fields) for h in relevant_hits[:CLOSEST_ITEMS])
            return Plan(lang, False, _topic_phrase(part, topic), closest)
        by_title = [len(known & _stems(_title(h.content))) for h in about]
        chosen += [h for h, n in zip(about, by_title) if n == max(by_title)]
    chosen = [h for h in relevant_hits if h in chosen]  # one list, in rank order
    items = tuple(_item(h, lang, fields) for h in chosen[:MAX_ITEMS])
    return Plan(lang, True, _topic_phrase(question, set().union(*(t for _, t in parts))), items,
                max(0, len(chosen) - MAX_ITEMS))


def _means(hit: SearchHit, meaning: Meaning, known: set[str], hits: Sequence[SearchHit]) -> bool:
    """Whether the meant entity covers a part its words do not. Its meaning overrules words there — known
    words it lacks, which other visible records hold, or words no visible record uses outnumbering the
    known ones — so it must be MEANT_OVER_WORDS close ("the weekly mobile sync" asked by someone who may not
    see its notes is not the 1:1 notes' "offline sync design", 0.51, while mobile records hold "mobile"),
    and no retrieved (so visible) hit may hold more of the part's known words."""
    held = len(known & _stems(hit.content))
    return meaning[anchor(hit)] >= MEANT_OVER_WORDS and not any(len(known & _stems(h.content)) > held for h in hits)


def _far_in_meaning(about: Sequence[SearchHit], meaning: Meaning | None, question: str) -> bool:
    """Whether the hits the known words cover are all far in meaning from an English question that has words
    no visible record uses: they name its topic, not what it asks ("is offline mode still on schedule?" and
    a project "with offline mode"). Measured only English to English (a gloss against a Spanish record says
    little)."""
    if not meaning or terms.is_spanish(question):
        return False
    english = [meaning[anchor(h)] for h in about if anchor(h) in meaning and not terms.is_spanish(h.content)]
    return len(english) == len(about) and max(english) < MEANT_FLOOR


def uncovered(question: str, hits: Sequence[SearchHit], max_distance: float,
              meaning: Meaning | None = None) -> str | None:
    """The question's topic when relevant hits exist but none covers it (what an LLM is told to say first)."""
    planned = plan(question, hits, max_distance, meaning=meaning)
    return planned.topic if planned is not None and not planned.covered else None


def may_be_cut(question: str, hits: Sequence[SearchHit], max_distance: float, top_k: int) -> bool:
    """Whether the answer lists several records about the question from a full top-k: more of them may lie
    beyond it ("anything on the Android build?" names nine tasks), so retrieval is asked for more."""
    planned = plan(question, hits, max_distance)
    return planned is not None and planned.covered and len(planned.items) > 1 and len(hits) >= top_k


def to_measure(planned: Plan, cap: int = MAX_CHOSEN) -> list[tuple[int, int]]:
    """(item, sentence) pairs whose meaning decides what is quoted: every sentence of an item that has more
    than one, best items first, at most ``cap``."""
    pairs = [(i, j) for i, item in enumerate(planned.items)
             if len(item.sentences) > 1 and not item.whole and not item.pinned for j in range(len(item.sentences))]
    return pairs[:cap]


def compose(planned: Plan, scores: dict[tuple[int, int], float]) -> str:
    lead = LEAD[planned.lang] if planned.covered else NOT_ABOUT[planned.lang].format(topic=planned.topic)
    lines = [lead, *(_render(item, choose(item, i, scores)) for i, item in enumerate(planned.items))]
    if planned.more:
        lines.append(MORE[planned.lang].format(n=planned.more, total=len(planned.items) + planned.more))
    return "\n".join(lines)


def choose(item: Item, index: int, scores: dict[tuple[int, int], float]) -> list[str]:
    """The item's sentences within MARGIN of its best and above FLOOR (at most PER_ITEM, in text order);
    unmeasured, its first sentence; a short document, all of them."""
    if item.whole:
        return list(item.sentences)
    if item.pinned:
        return list(item.pinned)
    measured = {j: scores[(index, j)] for j in range(len(item.sentences)) if (index, j) in scores}
    if not measured:
        return list(item.sentences[:1])
    best = max(measured.values())
    keep = sorted(j for j, score in measured.items() if score >= max(best - MARGIN, FLOOR))
    keep = sorted(sorted(keep, key=lambda j: -measured[j])[:PER_ITEM]) or [max(measured, key=measured.get)]
    return [item.sentences[j] for j in keep]


def _render(item: Item, sentences: Sequence[str]) -> str:
    facts = "; ".join(item.facts)
    said = " ".join(sentences)
    body = " — ".join(p for p in (facts, said) if p)
    return f"- {item.title} {item.anchor}" + (f": {body}" if body else "")


def _first_in_both(hit: SearchHit, known: set[str]) -> bool:
    """Both arms' first hit holding all but one of three or more known words is about the question: "what
    should a new developer run after cloning the monorepo?" is the onboarding guide's "Clone the monorepo,
    run make run", though it never says "new"."""
    return hit.vector_rank == 1 and hit.lexical_rank == 1 and len(known) >= 3 and \
        len(known - _stems(hit.content)) <= 1


def one_per_entity(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """The first (best) chunk of each entity speaks for it."""
    first: dict[str, SearchHit] = {}
    for hit in hits:
        first.setdefault(anchor(hit), hit)
    return list(first.values())


def _item(hit: SearchHit, lang: str, fields: Sequence[str]) -> Item:
    lines = [line.strip() for line in hit.content.splitlines() if line.strip()]
    title = _title(hit.content)
    body = lines[1:] if lines and ANCHOR.match(lines[0]) else lines
    facts: tuple[str, ...] = ()
    if hit.source_type == "task":
        facts = _task_facts(body, cards.LABELS[lang], fields)
    sentences = tuple(u for line in body if not _FIELD_LINE.match(line) for u in _sentences(line))
    pinned = tuple(u for u in sentences if cards.blocks(u)) if "blockers" in fields else ()
    return Item(anchor(hit), title, facts, sentences, hit.source_type == "doc" and len(sentences) <= WHOLE_DOC,
                pinned)


def _task_facts(body: Sequence[str], label: dict[str, str], fields: Sequence[str]) -> tuple[str, ...]:
    """Status, assignee and due date from a task chunk's field lines, and any other field the question names."""
    values: dict[str, str] = {}
    for line in body:
        for part in line.split(" | "):
            name, _, value = part.partition(": ")
            key = _TEMPLATE_FIELDS.get(name)
            if key and value:
                values.setdefault(key, value)
    wanted = ["status", "assignee", "due", *(f for f in fields if f in ("priority", "sprint", "points", "hours"))]
    return tuple(f"{label[k]}: {values[k]}" for k in dict.fromkeys(wanted) if k in values)


_TEMPLATE_FIELDS = {"Status": "status", "Priority": "priority", "Sprint": "sprint", "Assignee": "assignee",
                    "Due": "due", "Story points": "points", "Estimated hours": "hours"}


def _title(content: str) -> str:
    first = content.strip().split("\n", 1)[0]
    return ANCHOR.sub("", first, count=1).strip() if ANCHOR.match(first) else ""


def _stems(text: str) -> set[str]:
    """A record's stems with their equivalents in the other language (app/rag/bilingual.py): a record
    saying "release" holds the "lanzamiento" of a Spanish question."""
    return bilingual.widen(terms.text_stems(text))


def _topic_phrase(question: str, topic: set[str]) -> str:
    """The question from its first topic word on, with the article before it ("the weekly mobile sync")."""
    words = terms.words(question)
    start = next((i for i, w in enumerate(words) if terms.stem(w) in topic and not _opens_nothing(w)), None)
    if start is None:
        return " ".join(words)
    if start and terms.fold(words[start - 1]) in _ARTICLES:
        start -= 1
    return " ".join(words[start:])


# Words a question opens with that name no topic: a greeting ("hola, …"), a word that only asks ("supposed to",
# "meant to"): the topic phrase starts after them (issue 31, point 5: "…is about hola").
_OPENERS = frozenset(terms.fold(w) for w in (*PLEASANTRIES, "supposed", "meant", "expected", "able", "allowed",
                                             "need", "needs", "should", "would", "could", "must", "quick",
                                             "question", "pregunta", "wondering", "curious"))


def _opens_nothing(word: str) -> bool:
    folded = terms.fold(word)
    return folded in _OPENERS or terms.stem(folded) in _ASKING


def sentences_of(hit: SearchHit) -> tuple[str, ...]:
    """The sentences of a hit an answer may quote (what its meaning is measured by)."""
    return _item(hit, "en", ()).sentences


def _sentences(line: str) -> list[str]:
    line = line.removeprefix("- ").removeprefix("Description: ").removeprefix("Goal: ").strip()
    if line.endswith(":") and len(line) < 20:
        return []  # a section heading says nothing by itself
    return [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
