"""Text embedders: the in-process ONNX MiniLM used by the SQLite engine (Oracle embeds in-database)."""

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
