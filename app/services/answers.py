"""The answer composed from the records when no LLM speaks (or its reply was refused): a record card for an
entity asked for (app/rag/cards.py), the tracker answer, or whole sentences of the retrieved records chosen
by meaning (app/rag/extractive.py). This module does the one piece of I/O the choice needs: embedding the
question and the candidate sentences with the engine's own model, at most extractive.MAX_CHOSEN of them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.domain import SearchHit
from app.engines.base import Engine
from app.rag import extractive


def free_text(engine: Engine, question: str, hits: Sequence[SearchHit], max_distance: float,
              lang: str | None = None, question_vector: np.ndarray | None = None,
              not_about: str | None = None) -> str:
    """``question_vector``: the question's embedding when retrieval already made it (not made twice);
    ``not_about``: what the question names that nothing visible is about (said first)."""
    def similarity(sentences: Sequence[str]) -> list[float]:
        vectors = np.asarray(engine.embed_texts(sentences), dtype=np.float32)
        wanted = question_vector if question_vector is not None else engine.embed_query(question)
        return (vectors @ np.asarray(wanted, dtype=np.float32)).tolist()

    return extractive.extractive_answer(question, hits, max_distance, similarity, lang, not_about)
