"""The model mark, as plain logic shared by both engines: which embedding model made the stored vectors,
which one a swap is re-embedding them with, and when a process may search or write. No I/O.

Each engine stores two values beside its vectors (SQLite: RAG_META; Oracle: RAG_SETTINGS) and knows per
chunk which model embedded it; these functions judge what it read. Vectors of two models are never
compared: a process on another model than the mark refuses to search, and every process refuses while a
swap is under way (the index then holds vectors of both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.domain import SOURCE_TYPES


@dataclass(frozen=True)
class Mark:
    """What an engine read: the marked model, the swap target, whether any chunk is stored."""

    mark: str | None
    target: str | None
    has_chunks: bool

    def effective(self, legacy: str) -> tuple[str | None, str | None]:
        """(the model of the stored vectors, the swap target). An unmarked index that has chunks was made
        before the mark existed, by ``legacy``; an empty one with no swap under way takes any model."""
        mark = self.mark
        if mark is None and self.has_chunks:
            mark = legacy
        if not self.has_chunks and self.target is None:
            mark = None
        return mark, self.target


def is_swap(mark: str | None, target: str | None, model: str) -> bool:
    """Whether a forced backfill by ``model`` is (or continues) a swap: the index is another model's."""
    return not (mark is None or (mark == model and target in (None, model)))


def search_refusal(mark: str | None, target: str | None, model: str, setting: str) -> str | None:
    """Why a process on ``model`` may not search now (None: it may)."""
    if target is not None:
        return (f"the stored vectors are being re-embedded with {target} (a model swap from {mark} is under way); "
                f"searches answer again when it completes: run `ragctl backfill --force` with {setting}={target}"
                " to finish it")
    if mark is not None and mark != model:
        return mismatch(mark, model, setting)
    return None


def write_refusal(mark: str | None, target: str | None, model: str, setting: str) -> str | None:
    """Why a process on ``model`` may not write vectors now: only the model the index is built with may."""
    expected = target or mark
    if expected is not None and expected != model:
        return mismatch(expected, model, setting)
    return None


def mismatch(stored: str, model: str, setting: str) -> str:
    return (f"the stored vectors were made by the embedding model {stored}, but this process runs {model} "
            f"({setting}): run `ragctl backfill --force` with {setting}={model} to re-embed "
            f"everything, or set {setting}={stored} to keep them")


def forced_reindex_refusal(model: str, source_types: Sequence[str], project_id: int | None, limit: int | None,
                           swap_needed: Callable[[], bool]) -> str | None:
    """Why a forced reindex by ``model`` may not start (None: it may). With another model it is the swap, and a
    subset (source types, a project, a limit) could never finish it, while every search waits for it to finish."""
    partial = set(source_types) != set(SOURCE_TYPES) or project_id is not None or limit is not None
    if partial and swap_needed():
        return (f"the stored vectors are not {model}'s: a forced reindex under this model is the "
                "model swap and must cover everything (no source types, project or limit)")
    return None
