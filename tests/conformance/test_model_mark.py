"""The model mark on both engines: the stored vectors name the model that made them, and a process on another
model refuses to search (a 503 through the API) and takes no queue rows. The embedded engine's second model is
MiniLM transformed (tests/sqlite/test_model_swap.py); Oracle's is a RAG_ORACLE_MODEL_NAME nobody loaded, which
the mark refuses before any statement would need it."""

from __future__ import annotations

import pytest

from app.domain import Scope
from app.engines.base import EmbeddingModelError
from app.services.search import resolve_caller, search
from tests.support import drain_all, employee, peek_queue, task


@pytest.fixture
def other_model(engine, request):
    """A second process on the same database whose embedding model is another one."""
    if engine.name == "sqlite":
        from app.engines.sqlite.engine import SQLiteEngine
        from tests.sqlite.test_model_swap import ModelB

        other = SQLiteEngine(engine.path, ModelB(request.getfixturevalue("embedder")))
    else:
        from app.engines.oracle.engine import OracleEngine

        settings = request.getfixturevalue("oracle_settings")
        other = OracleEngine.open(settings.model_copy(update={"oracle_model_name": "NOT_THIS_MODEL"}))
    yield other
    other.close()


def test_the_mark_names_the_vectors_model_and_a_process_on_another_refuses_to_search_and_to_claim(engine, other_model):
    boss = resolve_caller(engine, employee_id=employee(engine, "Mia", "Boss", role="MANAGER"))
    task(engine, "Fix login bug after password reset")
    drain_all(engine)
    assert engine.stored_model() == (engine.model_name, None)
    assert search(engine, "login bug", boss, 3, Scope(), "vector").result.hits
    with pytest.raises(EmbeddingModelError) as refused:
        other_model.search(engine.embed_query("login bug"), "login bug", boss, 3, Scope(), "vector")
    assert f"made by the embedding model {engine.model_name}" in str(refused.value)
    task(engine, "Rotate the signing keys")
    queued = [(r.source_type, r.source_id, r.attempts) for r in peek_queue(engine)]
    with pytest.raises(EmbeddingModelError):
        drain_all(other_model)
    assert [(r.source_type, r.source_id, r.attempts) for r in peek_queue(engine)] == queued  # waiting, unfailed
