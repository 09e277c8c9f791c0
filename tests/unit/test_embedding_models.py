"""The embedding-model registry and the model-aware chunk hash (pure)."""

from __future__ import annotations

import re

from app.embedding.models import MINILM, MODELS, MULTILINGUAL_E5_SMALL, model_digest
from app.rag.chunking import content_hash


def test_every_packaged_model_fits_the_sqlite_vector_table_and_says_how_it_is_used():
    assert set(MODELS) == {MINILM.name, MULTILINGUAL_E5_SMALL.name}
    for spec in MODELS.values():
        assert spec.dimensions == 384 and spec.pooling == "mean" and spec.max_tokens >= 256
    assert (MULTILINGUAL_E5_SMALL.query_prefix, MULTILINGUAL_E5_SMALL.passage_prefix) == ("query: ", "passage: ")
    assert MULTILINGUAL_E5_SMALL.extra == "multilingual" and MINILM.extra is None


def test_the_chunk_hash_names_the_model_except_for_the_two_original_ones():
    digest = content_hash("[TASK #1] Fix login bug")
    assert model_digest(MINILM.name, digest) == digest  # hashes stored before models were a setting still match
    assert model_digest("ALL_MINILM_L12_V2", digest) == digest  # Oracle's default in-database model
    salted = {model_digest(m, digest) for m in (MULTILINGUAL_E5_SMALL.name, "MULTILINGUAL_E5_SMALL")}
    assert len(salted) == 2 and digest not in salted
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in salted)  # fits Oracle's CONTENT_HASH VARCHAR2(64)
