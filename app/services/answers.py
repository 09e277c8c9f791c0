"""The answer composed from the records when no LLM speaks (or its reply was refused): a record card for an
entity asked for (app/rag/cards.py), the tracker answer, or whole sentences of the retrieved records chosen
by meaning (app/rag/extractive.py). This module does the one piece of I/O the choice needs: embedding the
question and the candidate sentences with the engine's own model, at most extractive.MAX_CHOSEN of them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.domain import SearchHit
from app.engines.base import Engine
from app.rag import bilingual, extractive, terms
from app.rag.prompting import anchor


class SentenceVectors:
    """The sentences embedded in one turn, each once: the entities' closeness and the choice of what to quote
    measure many of the same sentences."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._made: dict[str, np.ndarray] = {}

    def of(self, sentences: Sequence[str]) -> np.ndarray:
        new = [s for s in dict.fromkeys(sentences) if s not in self._made]
        if new:
            self._made.update(zip(new, np.asarray(self._engine.embed_texts(new), dtype=np.float32)))
        return np.stack([self._made[s] for s in sentences])


def free_text(engine: Engine, question: str, hits: Sequence[SearchHit], max_distance: float,
              lang: str | None = None, question_vector: np.ndarray | None = None,
              not_about: str | None = None, meaning: extractive.Meaning | None = None,
              vectors: SentenceVectors | None = None) -> str:
    """``question_vector``: the question's embedding when retrieval already made it (not made twice);
    ``not_about``: what the question names that nothing visible is about (said first); ``meaning``: each
    retrieved entity's closeness to the question (``closeness``); ``vectors``: the turn's sentences embedded
    so far."""
    made = vectors or SentenceVectors(engine)

    def similarity(sentences: Sequence[str]) -> list[float]:
        wanted = question_vector if question_vector is not None else engine.embed_query(question)
        return (made.of(sentences) @ np.asarray(wanted, dtype=np.float32)).tolist()

    return extractive.extractive_answer(question, hits, max_distance, similarity, lang, not_about, meaning)


def closeness(engine: Engine, question: str, hits: Sequence[SearchHit],
              question_vector: np.ndarray | None = None, vectors: SentenceVectors | None = None) -> dict[str, float]:
    """Each retrieved entity's best sentence's cosine similarity to the question (its first chunk's
    sentences, at most extractive.MAX_CHOSEN in all): what extractive.meant reads. A Spanish question is
    compared by its English gloss (app/rag/bilingual.py), the embedded model knowing English only; one with
    no word the glossary knows is compared by nothing (the words decide)."""
    gloss = bilingual.gloss(question)
    if gloss is None and terms.is_spanish(question):
        return {}
    pairs = [(anchor(h), s) for h in extractive.one_per_entity(hits)
             for s in (extractive.sentences_of(h) or (h.content,))]
    pairs = pairs[:extractive.MAX_CHOSEN]
    if not pairs:
        return {}
    wanted = engine.embed_query(gloss) if gloss is not None else \
        (question_vector if question_vector is not None else engine.embed_query(question))
    scores = (vectors or SentenceVectors(engine)).of([s for _, s in pairs]) @ np.asarray(wanted, dtype=np.float32)
    best: dict[str, float] = {}
    for (a, _), score in zip(pairs, scores.tolist()):
        best[a] = max(best.get(a, -1.0), score)
    return best
