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
              lang: str | None = None) -> str:
    def similarity(sentences: Sequence[str]) -> list[float]:
        vectors = np.asarray(engine.embed_texts(sentences), dtype=np.float32)
        return (vectors @ np.asarray(engine.embed_query(question), dtype=np.float32)).tolist()

    return extractive.extractive_answer(question, hits, max_distance, similarity, lang)
