#!/usr/bin/env python
"""Search latency and indexing throughput of the embedded engine, each against its physical limit.

Everything is measured side by side in one run, interleaved, because this machine is noisy:
  * search (query vector given) vs a numpy brute-force scan of the same vectors, p50/p95, for a
    manager (every chunk) and a developer (access rule applied inside the query), at 10k and 100k;
  * hybrid search (vector arm + in-memory BM25 arm + fusion + hits) vs the same numpy scan, and the
    first hybrid search's cost (it loads the lexical index: time and RSS delta);
  * the query embedding on its own (it is the same for every engine plan);
  * indexing throughput through the worker (triggers, queue, chunking, hashing, embedding,
    storage) vs the raw embedder on the same texts.
Writes docs/bench/bench_search.json (--out) and appends one row per figure to docs/BENCHMARKS.md
(unless --no-markdown).

Usage: .venv/bin/python scripts/bench_search.py [--sizes 10000,100000] [--queries 60] [--texts 256] [--no-markdown]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402
from app.domain import Caller, ChunkWrite, Role, Scope  # noqa: E402
from app.embedding.onnx_minilm import MiniLMEmbedder  # noqa: E402
from app.embedding.tokens import count_tokens  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.entities import COMMENTS, TASKS  # noqa: E402
from app.rag.chunking import chunk_record  # noqa: E402
from app.services.indexing import drain  # noqa: E402

DIM = 384
N_DEVELOPERS = 50
VOCAB = ("login invoice deploy database retro sprint bug cache api factura despliegue error timeout "
         "migration review release payment gateway ingress certificate onboarding backlog").split()


class TableEmbedder:
    """Hands out precomputed unit vectors in call order, so the bench loads 100k chunks in seconds.

    It is a real Embedder for the engine (the storage path is the production one); only the model
    inference is skipped, which the indexing half of the bench measures separately.
    """

    model_name, dimensions = "bench-random", DIM

    def __init__(self, vectors: np.ndarray):
        self.vectors, self.cursor = vectors, 0

    def embed(self, texts):
        out = self.vectors[self.cursor : self.cursor + len(texts)]
        self.cursor += len(texts)
        return out

    def count_tokens(self, text):
        return count_tokens(text)


def percentile(values, q):
    return float(np.percentile(np.asarray(values) * 1000.0, q))


def synthetic_chunks(n: int, rng: np.random.Generator) -> list[ChunkWrite]:
    """Mostly task chunks spread over 50 developers; sprints, projects, docs are public."""
    kinds = rng.choice(["task", "sprint", "project", "doc"], size=n, p=[0.85, 0.04, 0.01, 0.10])
    chunks = []
    for i, kind in enumerate(kinds):
        owner = int(rng.integers(1, N_DEVELOPERS + 1)) if kind == "task" or (kind == "doc" and i % 2) else None
        words = " ".join(rng.choice(VOCAB, size=12))
        chunks.append(ChunkWrite(str(kind), i + 1, 0, owner, int(rng.integers(1, 11)),
                                 int(rng.integers(1, 31)) if kind == "task" else None,
                                 f"[{kind.upper()} #{i + 1}] {words}", f"{i:064x}"))
    return chunks


def seeded_engine(directory: str, vectors: np.ndarray, chunks: list[ChunkWrite]) -> SQLiteEngine:
    """A migrated engine in ``directory`` holding ``chunks``, written through the storage path in batches."""
    engine = SQLiteEngine.open(Settings(database_url=f"sqlite:///{directory}/bench.db"), embedder=TableEmbedder(vectors))
    engine.migrate()
    for start in range(0, len(chunks), 5000):
        with engine.indexing() as tx:
            tx.write_chunks(chunks[start : start + 5000])
    return engine


def bench_search(n: int, n_queries: int, rng: np.random.Generator) -> dict:
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = synthetic_chunks(n, rng)
    with tempfile.TemporaryDirectory() as tmp:
        engine = seeded_engine(tmp, vectors, chunks)
        manager, developer = Caller(10_000, Role.MANAGER), Caller(7, Role.DEVELOPER)
        queries = rng.standard_normal((n_queries, DIM)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        k = 8
        engine.search(queries[0], "warm up", manager, k, Scope(), "vector")  # loads the in-memory index
        rss_before, t0 = resident_mb(), time.perf_counter()
        engine.search(queries[0], "warm up", manager, k, Scope(), "hybrid")  # loads the lexical index
        lexical_load_s, lexical_rss_mb = time.perf_counter() - t0, resident_mb() - rss_before
        timings = {"manager": [], "developer": [], "numpy": [], "hybrid_manager": [], "hybrid_developer": []}
        for q in queries:  # interleaved: every plan sees the same machine noise
            t0 = time.perf_counter()
            engine.search(q, "login", manager, k, Scope(), "vector")
            t1 = time.perf_counter()
            engine.search(q, "login", developer, k, Scope(), "vector")
            t2 = time.perf_counter()
            scores = vectors @ q
            top = np.argpartition(-scores, k)[:k]
            top[np.argsort(-scores[top])]
            t3 = time.perf_counter()
            engine.search(q, "login invoice", manager, k, Scope(), "hybrid")
            t4 = time.perf_counter()
            engine.search(q, "login invoice", developer, k, Scope(), "hybrid")
            t5 = time.perf_counter()
            timings["hybrid_developer"].append(t5 - t4)
            timings["manager"].append(t1 - t0)
            timings["developer"].append(t2 - t1)
            timings["numpy"].append(t3 - t2)
            timings["hybrid_manager"].append(t4 - t3)
        engine.close()
    row = {"chunks": n}
    for name, values in timings.items():
        row[f"{name}_p50_ms"] = round(percentile(values, 50), 3)
        row[f"{name}_p95_ms"] = round(percentile(values, 95), 3)
    row["manager_vs_numpy_p50"] = round(row["manager_p50_ms"] / row["numpy_p50_ms"], 2)
    row["developer_vs_numpy_p50"] = round(row["developer_p50_ms"] / row["numpy_p50_ms"], 2)
    row["hybrid_vs_numpy_p50"] = round(row["hybrid_manager_p50_ms"] / row["numpy_p50_ms"], 2)
    row["hybrid_developer_vs_numpy_p50"] = round(row["hybrid_developer_p50_ms"] / row["numpy_p50_ms"], 2)
    # The first hybrid search builds the in-memory lexical index: paid at process start or after a wipe.
    row["lexical_first_load_s"] = round(lexical_load_s, 2)
    row["lexical_rss_delta_mb"] = round(lexical_rss_mb, 1)
    return row


def resident_mb() -> float:
    """This process's resident set size (Linux /proc), in MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def bench_query_embedding(embedder: MiniLMEmbedder, n: int) -> dict:
    questions = [f"what is blocking the {a} {b} work?" for a, b in zip(VOCAB, reversed(VOCAB))] * (n // len(VOCAB) + 1)
    times = []
    for question in questions[:n]:
        t0 = time.perf_counter()
        embedder.embed([question])
        times.append(time.perf_counter() - t0)
    return {"query_embed_p50_ms": round(percentile(times, 50), 3), "query_embed_p95_ms": round(percentile(times, 95), 3)}


def bench_indexing(embedder: MiniLMEmbedder, n_texts: int, rounds: int = 3) -> dict:
    """Worker throughput vs the raw embedder on the same chunk texts, alternating rounds."""
    rng = np.random.default_rng(7)
    specs = [(" ".join(rng.choice(VOCAB, size=6)), " ".join(rng.choice(VOCAB, size=40)),
              " ".join(rng.choice(VOCAB, size=20))) for _ in range(n_texts)]
    raw_rates, worker_rates = [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            engine = SQLiteEngine.open(Settings(database_url=f"sqlite:///{tmp}/idx.db"), embedder=embedder)
            engine.migrate()
            for title, description, note in specs:  # through CRUD: the triggers enqueue as in production
                task_id = engine.create(TASKS, {"TITLE": title, "DESCRIPTION": description})["task_id"]
                engine.create(COMMENTS, {"TASK_ID": task_id, "BODY": note})
            t0 = time.perf_counter()
            result = drain(engine, count_tokens, 32, 5)
            worker_s = time.perf_counter() - t0
            with engine.indexing() as tx:  # the exact chunk texts the worker embedded
                records = tx.load_sources("task", list(range(1, n_texts + 1)))
            texts = [c.content for r in records.values() for c in chunk_record(r, count_tokens)]
            engine.close()
        assert result.failed == 0, result.errors
        assert len(texts) == result.chunks_written, (len(texts), result.chunks_written)
        t0 = time.perf_counter()
        for start in range(0, len(texts), 32):
            embedder.embed(texts[start : start + 32])
        raw_s = time.perf_counter() - t0
        worker_rates.append(result.chunks_written / worker_s)
        raw_rates.append(len(texts) / raw_s)
    worker, raw = statistics.median(worker_rates), statistics.median(raw_rates)
    return {"index_texts": n_texts, "worker_chunks_per_s": round(worker, 1),
            "raw_embedder_texts_per_s": round(raw, 1), "worker_vs_raw": round(worker / raw, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_search.json"))
    parser.add_argument("--no-markdown", action="store_true", help="do not append rows to docs/BENCHMARKS.md")
    args = parser.parse_args()

    rng = np.random.default_rng(42)
    embedder = MiniLMEmbedder()
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {platform.python_version()}",
        "search": [bench_search(int(n), args.queries, rng) for n in args.sizes.split(",")],
        "query_embedding": bench_query_embedding(embedder, args.queries),
        "indexing": bench_indexing(embedder, args.texts),
    }
    out = Path(args.out)
    save_result(out, result)
    if not args.no_markdown:
        append_markdown(result)
    print(json.dumps(result, indent=2))


def append_markdown(result: dict) -> None:
    date = result["date"][:10]
    lines = []
    for row in result["search"]:
        n = row["chunks"]
        lines.append(f"| {date} | search (vector given) | {n} | manager p50/p95 ms | {row['manager_p50_ms']} / "
                     f"{row['manager_p95_ms']} | numpy scan {row['numpy_p50_ms']} / {row['numpy_p95_ms']} | "
                     f"{row['manager_vs_numpy_p50']}× |")
        lines.append(f"| {date} | search (vector given) | {n} | developer p50/p95 ms | {row['developer_p50_ms']} / "
                     f"{row['developer_p95_ms']} | numpy scan {row['numpy_p50_ms']} | {row['developer_vs_numpy_p50']}× |")
        lines.append(f"| {date} | hybrid search (vector given) | {n} | manager p50/p95 ms | "
                     f"{row['hybrid_manager_p50_ms']} / {row['hybrid_manager_p95_ms']} | numpy scan "
                     f"{row['numpy_p50_ms']} | {row['hybrid_vs_numpy_p50']}× |")
        lines.append(f"| {date} | hybrid search (vector given) | {n} | developer p50/p95 ms | "
                     f"{row['hybrid_developer_p50_ms']} / {row['hybrid_developer_p95_ms']} | numpy scan "
                     f"{row['numpy_p50_ms']} | {row['hybrid_developer_vs_numpy_p50']}× |")
        lines.append(f"| {date} | lexical index full load | {n} | s / RSS MiB | {row['lexical_first_load_s']} / "
                     f"{row['lexical_rss_delta_mb']} | - | - |")
    q = result["query_embedding"]
    lines.append(f"| {date} | query embedding | - | p50/p95 ms | {q['query_embed_p50_ms']} / {q['query_embed_p95_ms']} | - | - |")
    i = result["indexing"]
    lines.append(f"| {date} | indexing through the worker | {i['index_texts']} | chunks/s | {i['worker_chunks_per_s']} | "
                 f"raw embedder {i['raw_embedder_texts_per_s']} texts/s | {i['worker_vs_raw']}× |")
    append_rows(lines)


if __name__ == "__main__":
    main()
