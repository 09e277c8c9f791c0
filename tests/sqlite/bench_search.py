"""Side-by-side search timings on random chunks: numpy brute force vs the engine's searches.

Run: .venv/bin/python -m tests.sqlite.bench_search [10000 100000]
Not a test (no test_ prefix): it takes a while to seed 100k vectors into vec0.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

import numpy as np

from app.config import Settings
from app.domain import Caller, ChunkWrite, Role, Scope
from app.engines.sqlite.engine import SQLiteEngine, upsert_chunks

DIM, K, REPEATS, DEVELOPERS = 384, 10, 30, 20
QUERY_TEXT = "w40 w90 w300"  # mid-frequency words (w1..w9 are in most chunks)


def seed(engine: SQLiteEngine, n: int, rng: np.random.Generator) -> np.ndarray:
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = []
    for i in range(n):
        kind = i % 20
        if kind < 12:  # 60% tasks assigned over 20 developers
            spec = ("task", int(rng.integers(1, DEVELOPERS + 1)))
        elif kind == 12:  # 5% unassigned tasks (managers only)
            spec = ("task", None)
        elif kind < 16:
            spec = ("doc", None)
        else:
            spec = (("sprint", "project")[kind % 2], None)
        # Zipf-distributed words: a few very common, most rare, like real text.
        text = f"chunk {i} " + " ".join(f"w{x}" for x in rng.zipf(1.3, 24) % 20_000)
        chunks.append(ChunkWrite(spec[0], i + 1, 0, spec[1], int(rng.integers(1, 30)), None, text, str(i)))
    with engine._write() as conn:
        upsert_chunks(conn, chunks, vectors)
    return vectors


def timed(fn) -> float:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main(sizes: list[int]) -> None:
    rng = np.random.default_rng(0)
    print(f"{'chunks':>8} {'numpy scan':>11} {'mgr vector':>11} {'dev vector':>11} {'dev scoped':>11} "
          f"{'mgr hybrid':>11} {'dev hybrid':>11}   (median ms of {REPEATS}, k={K})")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            engine = SQLiteEngine.open(Settings(database_url=f"sqlite:///{tmp}/bench.db"))
            engine._embedder = type("NoModel", (), {"model_name": "none", "dimensions": DIM})()
            engine.migrate()
            matrix = seed(engine, n, rng)
            q = matrix[rng.integers(n)] * 0.5 + rng.standard_normal(DIM).astype(np.float32) * 0.05
            q /= np.linalg.norm(q)
            manager, dev = Caller(1000, Role.MANAGER), Caller(3, Role.DEVELOPER)
            start = time.perf_counter()
            engine.search(q, "", manager, K, Scope(), "vector")  # first call loads the index
            load_ms = (time.perf_counter() - start) * 1000

            def scan():
                d = 1.0 - matrix @ q
                top = np.argpartition(d, K)[:K]
                return top[np.argsort(d[top])]

            row = [
                timed(scan),
                timed(lambda: engine.search(q, "", manager, K, Scope(), "vector")),
                timed(lambda: engine.search(q, "", dev, K, Scope(), "vector")),
                timed(lambda: engine.search(q, "", dev, K, Scope(project=7, source_types=("task", "doc")), "vector")),
                timed(lambda: engine.search(q, QUERY_TEXT, manager, K, Scope(), "hybrid")),
                timed(lambda: engine.search(q, QUERY_TEXT, dev, K, Scope(), "hybrid")),
            ]
            print(f"{n:>8} " + " ".join(f"{v:>11.2f}" for v in row) + f"   (index load {load_ms:.0f} ms)")
            engine.close()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
