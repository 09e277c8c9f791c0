"""Text embedders run in-process by the SQLite engine (Oracle embeds in-database): models.py names them."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class EmbeddingError(RuntimeError):
    """The embedding model failed; the queue rows that needed it stay queued."""


class Embedder(Protocol):
    model_name: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 matrix, one row per text."""
        ...

    def count_tokens(self, text: str) -> int:
        """Word pieces in ``text`` without the special tokens."""
        ...

    # A model trained with query/passage prefixes (e5) also has ``embed_query(text) -> vector``;
    # ``embed`` is then for passages. The engine uses ``embed_query`` when it is there.


def load_embedder(name: str) -> Embedder:
    """The in-process model RAG_EMBEDDING_MODEL names (imported only now: loading one is slow)."""
    from app.embedding.models import MULTILINGUAL_E5_SMALL, model_spec

    if model_spec(name) is MULTILINGUAL_E5_SMALL:
        from app.embedding.nano_e5 import MultilingualE5Embedder

        return MultilingualE5Embedder()
    from app.embedding.onnx_minilm import MiniLMEmbedder

    return MiniLMEmbedder()
