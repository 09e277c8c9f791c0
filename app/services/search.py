"""The read path: resolve the caller from EMPLOYEES, embed the question, run the scoped search."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from app import metrics
from app.domain import Caller, Scope, SearchMode, SearchResult
from app.engines.base import Engine
from app.rag import bilingual


class UnknownCallerError(LookupError):
    """No employee with this id (or Telegram id): nobody to scope the search to."""


@dataclass(frozen=True)
class TimedSearch:
    result: SearchResult
    caller: Caller
    embed_ms: float
    search_ms: float
    vector: np.ndarray | None = field(default=None, compare=False, repr=False)  # the question's, for reuse


def resolve_caller(engine: Engine, employee_id: int | None = None, telegram_id: str | None = None) -> Caller:
    """The role always comes from the database row, whatever the request claims."""
    caller = None
    if employee_id is not None:
        caller = engine.caller(employee_id)
    elif telegram_id is not None:
        caller = engine.caller_by_telegram(telegram_id)
    if caller is None:
        who = f"employee {employee_id}" if employee_id is not None else f"telegram id {telegram_id}"
        raise UnknownCallerError(f"{who} does not exist")
    return caller


def search(
    engine: Engine,
    question: str,
    caller: Caller,
    top_k: int,
    scope: Scope | None = None,
    mode: SearchMode = "hybrid",
    vector: np.ndarray | None = None,
) -> TimedSearch:
    """``vector``: the question's embedding when the caller already made it (the chat's kind by meaning)."""
    question = question.strip()
    if not question:
        raise ValueError("the question is empty")
    started = time.perf_counter()
    vector = engine.embed_query(question) if vector is None else vector
    embedded = time.perf_counter()
    # The lexical arm reads a Spanish question's words with their English equivalents beside them.
    lexical = bilingual.lexical_query(question)
    result = engine.search(vector, lexical, caller, top_k, scope or Scope(), mode)
    if result.lexical_dropped is not None:  # the engine logged why; count it (REVIEW-4 W1)
        metrics.LEXICAL_ARM_DROPPED.labels(result.lexical_dropped).inc()
    if lexical != question and mode == "hybrid":
        result = _with_lexical_first(engine, vector, lexical, caller, top_k, scope or Scope(), result)
    done = time.perf_counter()
    metrics.SEARCH_SECONDS.labels(mode).observe(done - started)
    return TimedSearch(result, caller, (embedded - started) * 1000, (done - embedded) * 1000, vector)


def _with_lexical_first(engine: Engine, vector: np.ndarray, lexical: str, caller: Caller, top_k: int,
                        scope: Scope, result: SearchResult) -> SearchResult:
    """The lexical arm's first hit in the last place when fusion left it out. An English record found for a
    Spanish question only through the English equivalents has no vector rank (the model barely crosses
    languages), and reciprocal rank fusion puts every chunk both arms rank above it."""
    first = engine.search(vector, lexical, caller, 1, scope, "lexical").hits
    held = {(h.source_type, h.source_id, h.chunk_ix) for h in result.hits}
    if not first or top_k < 1 or (first[0].source_type, first[0].source_id, first[0].chunk_ix) in held:
        return result
    return dataclasses.replace(result, hits=[*result.hits[:top_k - 1], first[0]])
