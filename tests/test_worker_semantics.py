"""Worker guarantees measured on the real embedded engine with a real (instrumented) embedder."""

from __future__ import annotations

import numpy as np
import pytest

from app.domain import Scope
from app.embedding import EmbeddingError
from app.entities import TASKS
from app.services.search import resolve_caller, search
from tests.support import comment, drain_all, employee, peek_queue, task


class InstrumentedEmbedder:
    """The real MiniLM, counting calls and failing on demand (an outage of the model)."""

    def __init__(self, real):
        self.real, self.calls, self.failing = real, 0, False
        self.model_name, self.dimensions = real.model_name, real.dimensions

    def embed(self, texts):
        if self.failing:
            raise EmbeddingError("model service unavailable")
        self.calls += 1
        return self.real.embed(texts)

    def count_tokens(self, text):
        return self.real.count_tokens(text)


@pytest.fixture
def instrumented(sqlite_settings, embedder):
    from app.engines.sqlite.engine import SQLiteEngine

    counting = InstrumentedEmbedder(embedder)
    engine = SQLiteEngine.open(sqlite_settings, embedder=counting)
    engine.migrate()
    yield engine, counting
    engine.close()


def test_hundred_edits_to_one_task_cost_at_most_two_embedding_calls(instrumented):
    engine, counting = instrumented
    t = task(engine, "Draft 0")
    drain_all(engine)
    counting.calls = 0
    for i in range(1, 101):
        engine.update(TASKS, t, {"TITLE": f"Draft {i}"})
    drain_all(engine)
    assert 1 <= counting.calls <= 2
    assert peek_queue(engine) == []


def test_reindexing_unchanged_text_costs_zero_calls(instrumented):
    engine, counting = instrumented
    for i in range(5):
        task(engine, f"Stable task {i}", "Nothing changes here")
    drain_all(engine)
    counting.calls = 0
    assert engine.enqueue_backfill(["task"], force=True) == 5
    result = drain_all(engine)
    assert result.claimed == 5 and result.chunks_unchanged == 5
    assert counting.calls == 0


def test_failing_embedder_loses_nothing_and_rows_drain_after_recovery(instrumented):
    engine, counting = instrumented
    manager = resolve_caller(engine, employee(engine, "Mia", "Boss", role="MANAGER"))
    t = task(engine, "Payment gateway timeout", "Stripe calls time out after 30 s")
    comment(engine, t, "Happens only at night")
    drain_all(engine)
    question = engine.embed_query("payment gateway")  # embedded before the outage
    counting.failing = True
    engine.update(TASKS, t, {"DESCRIPTION": "Adyen calls time out after 30 s"})
    before = peek_queue(engine)
    failed = drain_all(engine)
    assert failed.failed == len(before) and "model service unavailable" in failed.errors[0]
    after = peek_queue(engine)
    assert [r.dirty_id for r in after] == [r.dirty_id for r in before]
    assert all(r.attempts == 1 for r in after)
    status = engine.status(max_attempts=5)
    assert status.failing == len(before) and "model service unavailable" in status.failing_rows[0].last_error
    # The old chunk is still served while the model is down.
    hit = engine.search(question, "payment gateway", manager, 1, Scope(), "vector").hits[0]
    assert "Stripe" in hit.content

    counting.failing = False
    recovered = drain_all(engine)
    assert recovered.failed == 0 and peek_queue(engine) == []
    hit = search(engine, "payment gateway", manager, 1, mode="vector").result.hits[0]
    assert "Adyen" in hit.content


def test_rows_enqueued_during_a_batch_survive_it(instrumented):
    """Only the claimed DIRTY_IDs are deleted: a write racing with the worker is not lost."""
    engine, _ = instrumented
    t = task(engine, "Racing write 0")
    with engine.indexing() as tx:
        claimed = tx.claim(10, 5)
        engine.update(TASKS, t, {"TITLE": "Racing write 1"})  # another client, mid-batch
        tx.delete_dirty([r.dirty_id for r in claimed])
    remaining = peek_queue(engine)
    assert [(r.source_type, r.source_id) for r in remaining] == [("task", t)]


def test_query_and_document_vectors_come_from_one_model(instrumented, embedder):
    engine, _ = instrumented
    vector = engine.embed_query("hello")
    assert vector.shape == (384,) and vector.dtype == np.float32
    assert np.allclose(vector, embedder.embed(["hello"])[0], atol=1e-6)


class PoisonEmbedder:
    """The real MiniLM, except that any batch holding the word POISON fails (a per-input fault)."""

    def __init__(self, real):
        self.real = real
        self.model_name, self.dimensions = real.model_name, real.dimensions

    def embed(self, texts):
        if any("POISON" in text for text in texts):
            raise EmbeddingError("the model rejects this input")
        return self.real.embed(texts)

    def count_tokens(self, text):
        return self.real.count_tokens(text)


def test_one_poisonous_source_does_not_strand_the_rows_that_shared_its_batch(sqlite_settings, embedder):
    from app.embedding.tokens import count_tokens
    from app.engines.sqlite.engine import SQLiteEngine
    from app.services.indexing import drain

    engine = SQLiteEngine.open(sqlite_settings, embedder=PoisonEmbedder(embedder))
    try:
        engine.migrate()
        poison = task(engine, "POISON pill")
        innocent = [task(engine, f"Innocent task {i}") for i in range(10)]
        first = drain(engine, count_tokens, 32, 3)
        assert first.failed == 11  # the shared batch fails once: every row in it is charged
        for _ in range(6):  # the worker's next runs (no backoff wait here)
            drain(engine, count_tokens, 32, 3)
        status = engine.status(3)
        assert status.chunks_by_source_type["task"] == len(innocent)
        assert (status.pending, status.stuck) == (1, 1)
        assert [(r.source_type, r.source_id) for r in status.failing_rows] == [("task", poison)]
    finally:
        engine.close()
