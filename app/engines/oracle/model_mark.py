"""Which in-database model made the stored vectors, and the swap to another one (Oracle).

The same mark the embedded engine keeps (app/engines/sqlite/model_mark.py; the judging is app/rag/model_mark.py):
two RAG_SETTINGS rows,
  EMBEDDING_MODEL         the model that made every searchable vector;
  EMBEDDING_MODEL_TARGET  set while a swap re-embeds everything with another model;
and, per chunk, RAG_CHUNK.EMBEDDING_MODEL (V15), written by the MERGE. A search compares the question's vector
with the stored ones only when the process's RAG_ORACLE_MODEL_NAME is the marked model and no swap is under
way. The swap ends in the write transaction that leaves no chunk of another model.

Chunks from before V15 carry no model: they are the marked model's (``migrate`` marks an unmarked index with the
model of the process that upgrades it), or, with no mark at all, the default ALL_MINILM_L12_V2's.
Functions take an open cursor; the engine owns the transaction.
"""

from __future__ import annotations

from typing import Any

from app.engines.base import EmbeddingModelError
from app.engines.oracle import settings_statements as sql
from app.engines.oracle.errors import ora_error_number
from app.rag.model_mark import Mark, is_swap, search_refusal, write_refusal

MARK, TARGET = "EMBEDDING_MODEL", "EMBEDDING_MODEL_TARGET"
SETTING = "RAG_ORACLE_MODEL_NAME"
LEGACY_MODEL = "ALL_MINILM_L12_V2"  # app.config's default RAG_ORACLE_MODEL_NAME
UNIQUE_TAKEN = 1  # ORA-00001: unique constraint violated


def _stored(cur: Any) -> Mark:
    cur.execute(sql.READ_MODEL_MARK, mark_key=MARK, target_key=TARGET)
    mark, target, has_chunks = cur.fetchone() or (None, None, 0)
    return Mark(mark, target, bool(has_chunks))


def read(cur: Any) -> tuple[str | None, str | None]:
    """(the model of the stored vectors, the swap target)."""
    return _stored(cur).effective(LEGACY_MODEL)


def check_search(cur: Any, model: str) -> None:
    if (why := search_refusal(*read(cur), model, SETTING)) is not None:
        raise EmbeddingModelError(why)


def check_write(cur: Any, model: str) -> None:
    """A process may claim rows and write vectors only with the model the index is being built with."""
    if (why := write_refusal(*read(cur), model, SETTING)) is not None:
        raise EmbeddingModelError(why)


def after_write(cur: Any, model: str) -> None:
    """Inside the unit of work that stored ``model``'s vectors (check_write passed): mark them, or end the swap
    when no chunk of another model is left (this transaction sees its own writes).

    Read committed never shows another transaction's uncommitted chunks, so two workers writing the last old chunks
    at once would each still see the other's as old and neither would end the swap (REVIEW-3 W1). The target row is
    locked first: a second writer waits for the first one's commit, and its check, a new statement, sees it."""
    stored = _stored(cur)
    if stored.target is None:
        if stored.mark != model:  # no mark yet: an empty index, or one from before the mark
            _set(cur, MARK, model)
        return
    cur.execute(sql.LOCK_MODEL_TARGET, target_key=TARGET)
    locked = cur.fetchone()
    if locked is None or locked[0] != model:  # another writer ended the swap while this one waited
        return
    cur.execute(sql.OTHER_MODEL_CHUNK, legacy_model=stored.mark or LEGACY_MODEL, embedding_model=model)
    if not int(cur.fetchone()[0]):
        _set(cur, MARK, model)
        cur.execute(sql.DELETE_SETTING, setting_key=TARGET)


def swap_needed(cur: Any, model: str) -> bool:
    return is_swap(*read(cur), model)


def begin_swap(cur: Any, model: str) -> str | None:
    """Called by a forced backfill: start re-embedding with ``model`` if the index is another's. Returns the model
    the stored vectors came from when a swap starts (or goes on), else None."""
    mark, target = read(cur)
    if not is_swap(mark, target, model):
        return None
    if target != model:
        _set(cur, TARGET, model)
    after_write(cur, model)  # nothing left to re-embed (no chunks) ends it at once
    return mark


def adopt(cur: Any, model: str) -> bool:
    """After migrating: an index with chunks and no mark (written before the mark existed) is marked with the
    model of the process that upgrades it, the model this deployment has been running. True if it marked."""
    stored = _stored(cur)
    if stored.mark is not None or stored.target is not None or not stored.has_chunks:
        return False
    _set(cur, MARK, model)
    return True


def _set(cur: Any, key: str, value: str) -> None:
    write_setting(cur, key, value)


def write_setting(cur: Any, key: str, value: str) -> None:
    """MERGE one RAG_SETTINGS row. Two sessions inserting the same new key race: the second waits for the first
    one's commit and gets ORA-00001 [PAGES asktom "ORA-00001 on merge, concurrent transactions"; REVIEW-3 W1]. That
    is someone else having written it: only the failed statement is rolled back (FACTS.md §7, REVIEW-3 C13), and the
    same MERGE again now finds the committed row and updates it."""
    try:
        cur.execute(sql.WRITE_SETTING, setting_key=key, setting_value=value)
    except Exception as exc:
        if ora_error_number(exc) != UNIQUE_TAKEN:
            raise
        cur.execute(sql.WRITE_SETTING, setting_key=key, setting_value=value)
