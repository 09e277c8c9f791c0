"""The question kinds by meaning (app/rag/intents.py) with the real MiniLM, over paraphrases that are NOT
among its examples (tests/data/intent_paraphrases.json, also read by scripts/bench_intents.py): how well
the kinds generalise, in English and in Spanish. A kind left unclear is not wrong (the turn goes to
retrieval, or a rule catches it: tests/unit/test_intent_routing.py); a wrong kind is, and is bounded tightly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.rag import intents, terms

PARAPHRASES = [(p["question"], p["kind"]) for p in json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "intent_paraphrases.json").read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def matrix(embedder):
    texts, _ = intents.example_texts()
    return np.asarray(embedder.embed(texts), dtype=np.float32)


def verdicts(embedder, matrix, lang):
    _, labels = intents.example_texts()
    asked = [(q, kind) for q, kind in PARAPHRASES if (terms.is_spanish(q)) == (lang == "es")]
    vectors = embedder.embed([q for q, _ in asked])
    return [(q, kind, intents.classify(v, matrix, labels)) for (q, kind), v in zip(asked, vectors)]


def test_the_paraphrases_are_not_examples():
    examples = {terms.fold(e) for kind in intents.EXAMPLES.values() for e in kind}
    assert not [q for q, _ in PARAPHRASES if terms.fold(q) in examples]


# MiniLM (all-MiniLM-L6-v2) learned little Spanish: its Spanish kinds are weaker, and the rules carry more.
@pytest.mark.parametrize("lang, right_at_least, wrong_at_most", [("en", 0.70, 1), ("es", 0.45, 3)])
def test_kinds_generalise_to_paraphrases(embedder, matrix, lang, right_at_least, wrong_at_most):
    got = verdicts(embedder, matrix, lang)
    right = [q for q, kind, found in got if found == kind]
    wrong = [(q, kind, found) for q, kind, found in got if found is not None and found != kind]
    assert len(right) / len(got) >= right_at_least, [(q, k, f) for q, k, f in got if f != k]
    assert len(wrong) <= wrong_at_most, wrong  # a wrong kind routes a question elsewhere: rare


def test_an_unclear_question_has_no_kind(embedder, matrix):
    _, labels = intents.example_texts()
    vector = embedder.embed(["zebra"])[0]
    assert intents.classify(vector, matrix, labels, margin=1.0) is None  # no kind beats the others by that much
    assert intents.classify(vector, matrix, labels, min_similarity=1.01) is None


def test_classify_takes_the_kind_of_the_nearest_examples():
    labels = ["work", "work", "free", "free"]
    matrix = np.eye(4, dtype=np.float32)
    assert intents.classify(np.array([1, 1, 0, 0], dtype=np.float32) / np.sqrt(2), matrix, labels) == "work"
    assert intents.classify(np.array([0, 0, 1, 1], dtype=np.float32) / np.sqrt(2), matrix, labels) == "free"
    # halfway between the two kinds: no margin, no kind
    assert intents.classify(np.full(4, 0.5, dtype=np.float32), matrix, labels) is None
