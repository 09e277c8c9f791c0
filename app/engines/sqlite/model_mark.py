"""Which embedding model made the stored vectors, and the swap to another one (SQLite).

Two RAG_META rows (text values; RAG_META's VALUE column has no strict type):
  embedding_model         the model that made every searchable vector;
  embedding_model_target  set while a swap re-embeds everything with another model.
A search compares the question's vector with the stored ones only when the process's model is the
marked one and no swap is under way: vectors of two models are never compared.

Which chunks a swap still has to re-embed is read from CONTENT_HASH: a chunk's hash is tagged with
the model that embedded it ("<model>:<sha256>"; MiniLM's stays the bare sha256 it always was). The
hash decides whether a chunk needs embedding, and a vector depends on the model as much as on the
text, so a chunk of another model never matches and is re-embedded. The swap ends, in the write
transaction of its last batch, when no chunk is left without the target's tag.
"""

from __future__ import annotations

import apsw

from app.embedding.models import LEGACY_MODEL
from app.engines.base import EmbeddingModelError
from app.rag.model_mark import Mark, is_swap, search_refusal, write_refusal

MARK, TARGET = "embedding_model", "embedding_model_target"
SETTING = "RAG_EMBEDDING_MODEL"
_READ = ("SELECT (SELECT VALUE FROM RAG_META WHERE KEY = 'embedding_model'),"
         " (SELECT VALUE FROM RAG_META WHERE KEY = 'embedding_model_target'),"
         " EXISTS (SELECT 1 FROM RAG_CHUNK)")
_SET = "INSERT INTO RAG_META (KEY, VALUE) VALUES (?, ?) ON CONFLICT (KEY) DO UPDATE SET VALUE = excluded.VALUE"
_CLEAR = "DELETE FROM RAG_META WHERE KEY = ?"
# A chunk that `model` did not embed: its hash lacks the model's tag (MiniLM: has any tag at all).
_OTHER_MODEL_CHUNK = ("SELECT EXISTS (SELECT 1 FROM RAG_CHUNK WHERE CASE WHEN :legacy"
                      " THEN instr(CONTENT_HASH, ':') > 0"
                      " ELSE substr(CONTENT_HASH, 1, length(:tag)) <> :tag END)")


def tag_hash(model: str, digest: str) -> str:
    return digest if model == LEGACY_MODEL else f"{model}:{digest}"


def hash_for(model: str, stored: str) -> str:
    """The stored hash as ``model`` compares it: the bare digest if ``model`` embedded the chunk,
    else a value no digest equals (the chunk is re-embedded; its index still counts)."""
    model_of, _, digest = stored.rpartition(":")
    if (model_of or LEGACY_MODEL) == model:
        return digest
    return f"other-model:{stored}"


def read(conn: apsw.Connection) -> tuple[str | None, str | None]:
    """(the marked model, the swap target); an unmarked index that has chunks is MiniLM's."""
    mark, target, has_chunks = conn.execute(_READ).fetchone()
    return Mark(mark, target, bool(has_chunks)).effective(LEGACY_MODEL)


def check_search(conn: apsw.Connection, model: str) -> None:
    if (why := search_refusal(*read(conn), model, SETTING)) is not None:
        raise EmbeddingModelError(why)


def check_write(conn: apsw.Connection, model: str) -> None:
    """A process may write vectors only with the model the index is being built with."""
    if (why := write_refusal(*read(conn), model, SETTING)) is not None:
        raise EmbeddingModelError(why)


def after_write(conn: apsw.Connection, model: str) -> None:
    """Inside the write transaction that stored ``model``'s vectors (check_write passed): mark them,
    or end the swap."""
    mark, target, _ = conn.execute(_READ).fetchone()
    if target is None:
        if mark != model:  # no mark yet: the index was empty, or unmarked MiniLM vectors and MiniLM
            conn.execute(_SET, (MARK, model))
        return
    if not conn.execute(_OTHER_MODEL_CHUNK, {"legacy": model == LEGACY_MODEL, "tag": f"{model}:"}).fetchone()[0]:
        conn.execute(_SET, (MARK, model))
        conn.execute(_CLEAR, (TARGET,))


def swap_needed(conn: apsw.Connection, model: str) -> bool:
    """Whether a forced backfill by ``model`` is (or continues) a swap: the index is another model's."""
    return is_swap(*read(conn), model)


def begin_swap(conn: apsw.Connection, model: str) -> str | None:
    """Called by a forced backfill: start re-embedding with ``model`` if the index is another's.

    Returns the model the stored vectors came from when a swap starts (or goes on), else None.
    """
    mark, target = read(conn)
    if not is_swap(mark, target, model):
        return None
    if target != model:
        conn.execute(_SET, (TARGET, model))
    after_write(conn, model)  # nothing left to re-embed (no chunks) ends it at once
    return mark
