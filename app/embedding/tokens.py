"""Word-piece counting for chunking, without loading an ONNX model.

all-MiniLM-L6-v2 (in-process) and Oracle's all_MiniLM_L12_v2 share BERT's uncased WordPiece
vocabulary, so this one counter bounds chunks for both engines.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

TOKENIZER_PATH = Path(__file__).parent / "minilm" / "tokenizer.json"


@lru_cache(maxsize=1)
def _tokenizer():
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """Word pieces in ``text``, special tokens excluded."""
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def count_tokens_many(texts: list[str]) -> list[int]:
    """Word pieces in each text, special tokens excluded. One batch call, which (unlike ``encode``) lets go
    of the GIL while it works, so a thread counting a long text does not stall the event loop."""
    return [len(e.ids) for e in _tokenizer().encode_batch(texts, add_special_tokens=False)] if texts else []
