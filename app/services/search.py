"""The read path: resolve the caller from EMPLOYEES, embed the question, run the scoped search."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from app import metrics
from app.domain import Caller, Scope, SearchMode, SearchResult
from app.engines.base import Engine


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
    result = engine.search(vector, question, caller, top_k, scope or Scope(), mode)
    done = time.perf_counter()
    metrics.SEARCH_SECONDS.labels(mode).observe(done - started)
    return TimedSearch(result, caller, (embedded - started) * 1000, (done - embedded) * 1000, vector)
