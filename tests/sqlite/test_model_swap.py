"""The embedding model of the stored vectors (RAG_META) and the swap to another model, on real SQLite.

Model B is MiniLM's vector reflected and shifted, renormalised: fast, deterministic, and with
distances of its own, so a hit's distance tells which model's vectors were compared.
"""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from app.config import Settings
from app.domain import Scope
from app.embedding import models
from app.engines.base import ConflictError, EmbeddingModelError
from app.engines.sqlite.engine import SQLiteEngine
from app.entities import TASKS
from app.services.indexing import enqueue_reindex
from app.services.search import resolve_caller, search
from tests.sqlite.helpers import seed_chunks, unit_vectors
from tests.support import drain_all, employee, task

SHIFT = np.random.default_rng(7).standard_normal(384).astype(np.float32)


class ModelB:
    model_name, dimensions = "test-model-b", 384

    def __init__(self, real):
        self.real, self.calls = real, 0

    def embed(self, texts):
        self.calls += 1
        v = self.real.embed(texts)[:, ::-1] + 0.5 * SHIFT
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    def count_tokens(self, text):
        return self.real.count_tokens(text)


@pytest.fixture
def engine_b(sqlite_engine, embedder):
    """A second process on the same file whose RAG_EMBEDDING_MODEL is model B."""
    engine = SQLiteEngine(sqlite_engine.path, ModelB(embedder))
    yield engine
    engine.close()


def seed(engine, n_tasks=5):
    manager = employee(engine, "Mia", "Manager", role="MANAGER")
    for i in range(n_tasks):
        task(engine, f"Fix login bug number {i}", description=f"Session cookie expires too early, case {i}")
    drain_all(engine)
    return resolve_caller(engine, employee_id=manager)


def ask(engine, caller, text="login session bug"):
    return search(engine, text, caller, 5, Scope(), "vector").result.hits


def test_a_process_with_another_model_refuses_to_search_and_to_index(sqlite_engine, engine_b):
    caller = seed(sqlite_engine)
    assert ask(sqlite_engine, caller)  # the model that made the vectors searches as before
    with pytest.raises(EmbeddingModelError) as refused:
        ask(engine_b, caller)
    message = str(refused.value)
    assert "all-MiniLM-L6-v2-int8" in message and "test-model-b" in message and "ragctl backfill --force" in message
    task(sqlite_engine, "A new task for the worker")
    queued = sqlite_engine.conn.execute("SELECT COUNT(*), MAX(ATTEMPTS) FROM RAG_DIRTY").fetchone()
    calls = engine_b.embedder.calls
    with pytest.raises(EmbeddingModelError):
        drain_all(engine_b)  # it takes no rows: they wait, unfailed, for a process that can index them
    assert sqlite_engine.conn.execute("SELECT COUNT(*), MAX(ATTEMPTS) FROM RAG_DIRTY").fetchone() == queued
    assert engine_b.embedder.calls == calls  # nothing was embedded for them


def test_forced_backfill_swaps_the_model_and_marks_it_only_when_every_chunk_is_done(sqlite_engine, engine_b):
    caller = seed(sqlite_engine, n_tasks=6)
    chunks = sqlite_engine.conn.execute("SELECT COUNT(*) FROM RAG_CHUNK").fetchone()[0]
    enqueue_reindex(engine_b, force=True)
    assert engine_b.stored_model() == ("all-MiniLM-L6-v2-int8", "test-model-b")

    _one_batch(engine_b)
    mixed = engine_b.conn.execute("SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTENT_HASH LIKE 'test-model-b:%'").fetchone()[0]
    assert 0 < mixed < chunks  # half way: vectors of both models are stored...
    for engine in (sqlite_engine, engine_b):  # ...so neither model may search them
        with pytest.raises(EmbeddingModelError, match="re-embedded with test-model-b"):
            ask(engine, caller)
    with pytest.raises(EmbeddingModelError):
        drain_all(sqlite_engine)  # the old model cannot write into the swap

    drain_all(engine_b)
    assert engine_b.stored_model() == ("test-model-b", None)
    hits = ask(engine_b, caller, "login session bug")
    assert hits
    query = engine_b.embed_query("login session bug")
    for hit in hits:  # the distances are model B's, not MiniLM's
        expected = 1.0 - float(np.dot(query, engine_b.embedder.embed([hit.content])[0]))
        assert hit.distance == pytest.approx(expected, abs=1e-4)
    with pytest.raises(EmbeddingModelError, match="made by the embedding model test-model-b"):
        ask(sqlite_engine, caller)


def _one_batch(engine):
    from app.embedding.tokens import count_tokens
    from app.services.indexing import drain_batch

    result = drain_batch(engine, count_tokens, batch_size=2, max_attempts=5)
    assert result.claimed == 2 and not result.failed


def test_after_the_swap_unchanged_text_is_not_embedded_again(sqlite_engine, engine_b):
    seed(sqlite_engine, n_tasks=3)
    enqueue_reindex(engine_b, force=True)
    drain_all(engine_b)
    calls = engine_b.embedder.calls
    enqueue_reindex(engine_b, force=True)
    result = drain_all(engine_b)
    assert result.chunks_written == 0 and result.chunks_unchanged > 0
    assert engine_b.embedder.calls == calls


def test_an_empty_index_takes_any_model_and_records_it(sqlite_engine, engine_b):
    caller = resolve_caller(sqlite_engine, employee_id=employee(sqlite_engine, "Mia", "Manager", role="MANAGER"))
    task(sqlite_engine, "Fix login bug")
    drain_all(engine_b)
    assert engine_b.stored_model() == ("test-model-b", None)
    assert ask(engine_b, caller)
    sqlite_engine.wipe()  # `ragctl demo --reset`: no vectors left, so no model to keep
    task(sqlite_engine, "Fix login bug again")
    drain_all(sqlite_engine)
    assert sqlite_engine.stored_model() == ("all-MiniLM-L6-v2-int8", None)


def test_vectors_stored_before_the_mark_existed_are_minilms(sqlite_engine, engine_b):
    seed_chunks(sqlite_engine, [("sprint", 1, None, None, None)], unit_vectors(np.random.default_rng(1), 1))
    assert sqlite_engine.conn.execute("SELECT VALUE FROM RAG_META WHERE KEY = 'embedding_model'").fetchone() is None
    assert sqlite_engine.stored_model() == ("all-MiniLM-L6-v2-int8", None)
    with pytest.raises(EmbeddingModelError, match="made by the embedding model all-MiniLM-L6-v2-int8"):
        engine_b.search(np.zeros(384, np.float32), "x", resolve_caller(sqlite_engine, employee_id=employee(
            sqlite_engine, "Mia", "Manager", role="MANAGER")), 3, Scope(), "vector")


def test_status_says_which_model_made_the_vectors(sqlite_engine, engine_b):
    seed(sqlite_engine, n_tasks=1)
    enqueue_reindex(engine_b, force=True)
    index = engine_b.status(5).index
    assert (index["vectors_model"], index["swap_target"]) == ("all-MiniLM-L6-v2-int8", "test-model-b")


def test_an_unknown_model_setting_fails_at_startup_naming_the_choices():
    with pytest.raises(ValidationError) as bad:
        Settings(_env_file=None, embedding_model="bge-m3")
    assert "all-MiniLM-L6-v2-int8" in str(bad.value) and "multilingual-e5-small-q4" in str(bad.value)
    assert Settings(_env_file=None).embedding_model == models.DEFAULT_MODEL


def test_only_384_dimensions_are_supported(tmp_path, embedder):
    wide = models.EmbeddingModelSpec("wide", "numpy", None, 768, "mean", 512, "", "", "MIT", "English")
    with pytest.raises(models.UnknownModelError, match="768-dimensional.*384"):
        models.check_dimensions(wide)

    class Wide(ModelB):
        dimensions = 768

    with pytest.raises(EmbeddingModelError, match="768-dimensional"):
        SQLiteEngine(str(tmp_path / "rag.db"), Wide(embedder))


def test_a_model_whose_package_is_missing_is_a_clear_error(tmp_path, monkeypatch):
    missing = models.EmbeddingModelSpec("not-installed", "no_such_package_xyz", "multilingual", 384, "mean",
                                        512, "", "", "MIT", "English")
    monkeypatch.setitem(models.MODELS, missing.name, missing)
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/rag.db", embedding_model="not-installed")
    with pytest.raises(EmbeddingModelError, match=r"no_such_package_xyz.*pip install 'oracle-rag-backend\[multilingual\]'"):
        SQLiteEngine.open(settings)


class PoisonedModelB(ModelB):
    """Model B that cannot embed one text: the source that fails every attempt during a swap."""

    def embed(self, texts):
        if any("POISON" in t for t in texts):
            raise RuntimeError("model B cannot embed this text")
        return super().embed(texts)


def test_a_source_that_always_fails_holds_the_swap_until_it_is_fixed_or_deleted(sqlite_engine, embedder):
    caller = seed(sqlite_engine, n_tasks=3)
    poisoned = task(sqlite_engine, "POISON pill task")
    drain_all(sqlite_engine)
    engine_b = SQLiteEngine(sqlite_engine.path, PoisonedModelB(embedder))
    try:
        enqueue_reindex(engine_b, force=True)
        drain_all(engine_b, batch_size=1, max_attempts=1)  # the poisoned source fails and is parked
        assert engine_b.conn.execute("SELECT COUNT(*) FROM RAG_DIRTY WHERE ATTEMPTS >= 1").fetchone()[0] == 1
        with pytest.raises(EmbeddingModelError, match="being re-embedded"):  # never two models' vectors at once
            ask(engine_b, caller)
        assert engine_b.status(5).index["swap_target"] == "test-model-b"
        sqlite_engine.delete(TASKS, poisoned)  # the operator's way out: fix the text, or delete the source
        drain_all(engine_b, batch_size=1, max_attempts=5)  # the delete is applied: no old-model chunk is left
        assert engine_b.status(5).index["swap_target"] is None and ask(engine_b, caller)
    finally:
        engine_b.close()


def test_a_filtered_forced_reindex_cannot_start_a_swap_it_could_never_finish(sqlite_engine, engine_b):
    caller = seed(sqlite_engine, n_tasks=3)
    for subset in ({"source_types": ("task",)}, {"project_id": 1}, {"limit": 2}):
        with pytest.raises(ConflictError, match="must cover everything"):
            enqueue_reindex(engine_b, force=True, **subset)
    assert engine_b.status(5).index["swap_target"] is None and ask(sqlite_engine, caller)  # nothing started
    enqueue_reindex(sqlite_engine, ("task",), force=True, limit=2)  # same model: a subset is a plain reindex


def test_two_workers_writing_the_last_old_chunks_at_once_still_end_the_swap(sqlite_engine, embedder):
    """REVIEW-3 W1 on real SQLite: two worker threads, each on its own connection, each claim and embed one of the
    last two old chunks, and only then, both at once, write. SQLite has one writer at a time (BEGIN IMMEDIATE), so
    the second write's check sees the first one's commit and ends the swap (Oracle needs the target lock for it:
    tests/oracle/test_model_mark_golden.py)."""
    import threading
    from contextlib import contextmanager

    from app.embedding.tokens import count_tokens
    from app.services.indexing import drain_batch

    both_embedded = threading.Barrier(2, timeout=120)  # a bound on a lost thread, not a timing assertion

    class Overlapping(SQLiteEngine):
        @contextmanager
        def indexing(self):
            with super().indexing() as tx:
                yield tx
                both_embedded.wait()  # both units have read and embedded; neither has written yet

    seed(sqlite_engine, n_tasks=2)
    engine = Overlapping(sqlite_engine.path, ModelB(embedder))
    try:
        enqueue_reindex(engine, force=True)
        assert engine.stored_model() == ("all-MiniLM-L6-v2-int8", "test-model-b")
        results, errors = [], []

        def worker():
            try:
                results.append(drain_batch(engine, count_tokens, batch_size=1, max_attempts=5))
            except BaseException as exc:  # surfaced below, with the thread's own traceback
                errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert sorted(r.claimed for r in results) == [1, 1] and not any(r.failed for r in results)
        assert engine.conn.execute("SELECT COUNT(*) FROM RAG_DIRTY").fetchone()[0] == 0
        assert engine.stored_model() == ("test-model-b", None)  # the swap ended: searches answer again
    finally:
        engine.close()
