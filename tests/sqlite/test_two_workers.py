"""Issue 26, point 13(a): two workers on one SQLite file embed each chunk once. Two engines on one file (each
its own connections, in-flight set and lock descriptor, as two processes have), each drained by a real Worker
in its own thread at the same time, both counting what their embedder was asked to embed; and a real
`ragctl worker` process beside this one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from app.config import Settings
from app.engines.sqlite.engine import SQLiteEngine
from app.worker import Worker
from tests.support import task

RAGCTL = str(Path(sys.executable).with_name("ragctl"))


class CountingEmbedder:
    """The real MiniLM, counting the texts it embeds."""

    def __init__(self, inner) -> None:
        self.inner, self.embedded = inner, 0
        self.model_name, self.dimensions = inner.model_name, inner.dimensions
        self._lock = threading.Lock()

    def embed(self, texts):
        with self._lock:
            self.embedded += len(texts)
        return self.inner.embed(texts)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def chunks_stored(engine: SQLiteEngine) -> int:
    return engine.conn.execute("SELECT COUNT(*) FROM RAG_CHUNK").fetchone()[0]


def test_two_workers_on_one_file_embed_each_chunk_once(tmp_path, embedder):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/rag.db", batch_size=8)
    counters = [CountingEmbedder(embedder), CountingEmbedder(embedder)]
    engines = [SQLiteEngine.open(settings, embedder=c) for c in counters]
    engines[0].migrate()
    try:
        for i in range(48):
            task(engines[0], f"Rotate the gateway certificates of region {i}", description="word " * (5 + i))
        start = threading.Barrier(2, timeout=60)

        def drain(engine: SQLiteEngine) -> None:
            worker = Worker(engine, settings)
            start.wait()  # both begin together, on the same queue
            while engine.status(5).pending:
                worker.run_once()

        threads = [threading.Thread(target=drain, args=(e,)) for e in engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert engines[0].status(5).pending == 0
        stored = chunks_stored(engines[0])
        embedded = [c.embedded for c in counters]
        assert stored >= 48 and sum(embedded) == stored, (embedded, stored)  # before: about twice as many
    finally:
        for e in engines:
            e.close()


def test_a_worker_process_beside_this_one_waits_for_its_batch_and_a_killed_one_holds_nothing(tmp_path, embedder):
    """The lock is the kernel's: a `ragctl worker --once` process beside an engine of this process that
    holds the drain lock claims nothing while it is held, then drains once it is let go."""
    url = f"sqlite:///{tmp_path}/rag.db"
    engine = SQLiteEngine.open(Settings(database_url=url), embedder=embedder)
    engine.migrate()
    try:
        for i in range(4):
            task(engine, f"Queued for another process {i}")
        env = {**os.environ, "RAG_DATABASE_URL": url, "RAG_BACKFILL_ON_STARTUP": "false", "RAG_LOG_FORMAT": "text"}
        with engine.indexing() as tx:
            assert tx.claim(1, 5)  # this process drains now (and holds the lock until the unit ends)
            held = subprocess.run([RAGCTL, "worker", "--once"], env=env, capture_output=True, text=True,
                                  timeout=120)
            assert held.returncode == 0, held.stderr
            assert engine.status(5).pending == 4  # it claimed nothing while the lock was held
        done = subprocess.run([RAGCTL, "worker", "--once"], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert engine.status(5).pending == 0
    finally:
        engine.close()
