"""Issue 26, point 13(a): two workers on one SQLite file embed each chunk once. Two engines on one file (each
its own connections, in-flight set and lock descriptor, as two processes have), each drained by a real Worker
in its own thread at the same time, both counting what their embedder was asked to embed; and the lock held
by another process, then SIGKILLed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from app.config import Settings
from app.engines.sqlite.engine import SQLiteEngine
from app.worker import Worker
from tests.support import task

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


HOLD = """
import sys, time
from app.engines.sqlite.drain_lock import DrainLock
lock = DrainLock(sys.argv[1])
assert lock.acquire(wait_s=30)
print("held", flush=True)
time.sleep(600)
"""


def test_another_process_holding_the_drain_lock_makes_a_claim_wait_and_a_killed_one_holds_nothing(tmp_path, embedder):
    """The lock is the kernel's: while another process holds it this engine claims nothing (after its wait);
    once that process is SIGKILLed (a worker killed mid-batch), the claim goes through at once."""
    settings = Settings(database_url=f"sqlite:///{tmp_path}/rag.db")
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, settings.sqlite_path], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        task(engine, "Queued while another process drains")
        assert holder.stdout.readline().strip() == "held"
        assert engine.drain_lock.acquire(wait_s=0.2) is False
        holder.kill()
        holder.wait(30)
        with engine.indexing() as tx:
            assert [row.source_type for row in tx.claim(8, 5)] == ["task"]
    finally:
        holder.kill()
        holder.wait(30)
        engine.close()
