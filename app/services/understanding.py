"""The question's kind by meaning (app/rag/intents.py) with the engine's own model: the labelled examples
are embedded once per process for each kind of engine and model (the same model makes the same vectors
in every engine of a kind; the in-process MiniLM takes well under a second, measured in
docs/BENCHMARKS.md), at the API's start-up (``warm``) so no turn's deadline pays for it. Then each
question costs one embedding — which retrieval reuses when it searches for the question itself — and
one small matrix product."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

import numpy as np

from app.engines.base import Engine
from app.rag import intents
from app.rag.intents import Intent

log = logging.getLogger(__name__)

_examples: dict[tuple[str, str], np.ndarray] = {}  # (engine class, model name) -> the examples' vectors
_lock = threading.Lock()


@dataclass(frozen=True)
class Understood:
    intent: Intent | None
    vector: np.ndarray | None  # the question's embedding (None when the model could not make one)


def example_matrix(engine: Engine) -> np.ndarray:
    """The examples' vectors for this engine's model, embedded on first use and kept for the process."""
    key = (type(engine).__name__, engine.model_name)
    with _lock:
        cached = _examples.get(key)
        if cached is None:
            texts, _ = intents.example_texts()
            cached = np.asarray(engine.embed_texts(texts), dtype=np.float32)  # one batch, one connection
            _examples[key] = cached
    return cached


def warm(engine: Engine) -> None:
    """Embed the examples now (start-up), not in the first question's turn; a model that cannot load
    yet is left to the first question, which then routes by rules only if it still cannot."""
    try:
        example_matrix(engine)
    except Exception as exc:  # noqa: BLE001 (start-up goes on: search reports a missing model itself)
        log.warning("could not embed the question kinds' examples at start-up (%s)", type(exc).__name__)


def understand(engine: Engine, question: str) -> Understood:
    """The question's kind and vector. A model that fails here leaves the kind unknown (the rules and
    retrieval still answer, and retrieval reports the failure itself)."""
    try:
        vector = np.asarray(engine.embed_query(question), dtype=np.float32)
        matrix = example_matrix(engine)
    except Exception as exc:  # noqa: BLE001 (any model failure means: no kind by meaning this turn)
        log.warning("could not embed the question for its kind (%s): routing by rules only", type(exc).__name__)
        return Understood(None, None)
    return Understood(intents.classify(vector, matrix, intents.example_texts()[1]), vector)
