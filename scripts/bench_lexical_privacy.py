#!/usr/bin/env python
"""What the lexical arm's privacy costs (issue 26 point 6): a developer's BM25 with statistics over their
visible chunks (now) against statistics over every chunk (before), per query, side by side in one run.

On bench_search.py's corpus (synthetic task chunks over 50 developers, public sprints, projects and
documents), interleaved so both plans see the same machine noise:
  * the lexical arm alone (top 50, the hybrid candidate depth), old and new statistics;
  * a developer's whole hybrid search (vector given) with the new arm, against the numpy scan beside it
    (the budget: hybrid <= 4x the scan, docs/BENCHMARKS.md);
  * how many of the developer's top-50 rankings the old statistics ordered differently (what leaked).
Writes docs/bench/bench_lexical_privacy.json (--out) and appends rows to docs/BENCHMARKS.md
(unless --no-markdown).

Usage: .venv/bin/python scripts/bench_lexical_privacy.py [--chunks 100000] [--queries 60] [--no-markdown]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.domain import Caller, Role, Scope  # noqa: E402
from app.engines.sqlite.lexical_index import LexicalHits, LexicalIndex  # noqa: E402
from app.engines.sqlite.vector_index import best_k  # noqa: E402
from app.rag.access import visible_audiences  # noqa: E402
from app.rag.fusion import candidate_depth  # noqa: E402
from app.rag.lexical import MAX_TERMS, query_terms  # noqa: E402
from bench_search import DIM, VOCAB, percentile, seeded_engine, synthetic_chunks  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402

K = 8


def global_statistics_search(index: LexicalIndex, terms, k: int, audiences) -> LexicalHits:
    """The arm as it was: bm25 with N, n(t) and avgdl over every chunk, the access rule a mask after it."""
    scores = index.scores(terms)
    rows = np.flatnonzero(scores)
    rows = rows[index._visible(rows, audiences, Scope())]
    best = best_k(index.ids[rows], -scores[rows], k)
    return LexicalHits(best.chunk_ids, best.distances)


def bench(n: int, n_queries: int, rng: np.random.Generator) -> dict:
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = synthetic_chunks(n, rng)
    developer = Caller(7, Role.DEVELOPER)
    audiences = visible_audiences(developer)
    depth = candidate_depth(K)
    with tempfile.TemporaryDirectory() as tmp:
        engine = seeded_engine(tmp, vectors, chunks)
        queries = rng.standard_normal((n_queries, DIM)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        engine.search(queries[0], "warm up", developer, K, Scope(), "hybrid")  # loads both in-memory indexes
        index = engine._lexical
        timings: dict[str, list[float]] = {"global": [], "visible": [], "hybrid_developer": [], "numpy": []}
        reordered = 0
        for i, q in enumerate(queries):
            text = " ".join(rng.choice(VOCAB, size=1 + i % 3))
            terms = index.query_terms(query_terms(text), MAX_TERMS)
            t0 = time.perf_counter()
            before = global_statistics_search(index, terms, depth, audiences)
            t1 = time.perf_counter()
            after = index.search(terms, depth, audiences, Scope())
            t2 = time.perf_counter()
            engine.search(q, text, developer, K, Scope(), "hybrid")
            t3 = time.perf_counter()
            scores = vectors @ q
            top = np.argpartition(-scores, K)[:K]
            top[np.argsort(-scores[top])]
            t4 = time.perf_counter()
            for name, spent in zip(timings, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                timings[name].append(spent)
            reordered += list(before.chunk_ids) != list(after.chunk_ids)
        engine.close()
    row: dict = {"chunks": n, "queries": n_queries, "developer_rankings_reordered_by_hidden_chunks_before": reordered}
    for name, values in timings.items():
        row[f"{name}_p50_ms"] = round(percentile(values, 50), 3)
        row[f"{name}_p95_ms"] = round(percentile(values, 95), 3)
    row["visible_vs_global_p50"] = round(row["visible_p50_ms"] / row["global_p50_ms"], 2)
    row["hybrid_developer_vs_numpy_p50"] = round(row["hybrid_developer_p50_ms"] / row["numpy_p50_ms"], 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_lexical_privacy.json"))
    parser.add_argument("--no-markdown", action="store_true", help="do not append rows to docs/BENCHMARKS.md")
    args = parser.parse_args()
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {platform.python_version()}",
        "lexical_privacy": bench(args.chunks, args.queries, np.random.default_rng(42)),
    }
    save_result(Path(args.out), result)
    if not args.no_markdown:
        date, row = result["date"][:10], result["lexical_privacy"]
        n = row["chunks"]
        append_rows([
            f"| {date} | developer lexical arm, visible-set BM25 statistics (top 50) | {n} | p50/p95 ms | "
            f"{row['visible_p50_ms']} / {row['visible_p95_ms']} | every-chunk statistics (before) "
            f"{row['global_p50_ms']} / {row['global_p95_ms']} | {row['visible_vs_global_p50']}× |",
            f"| {date} | developer hybrid search, visible-set lexical statistics (vector given) | {n} | p50/p95 ms | "
            f"{row['hybrid_developer_p50_ms']} / {row['hybrid_developer_p95_ms']} | numpy scan "
            f"{row['numpy_p50_ms']} (budget 4×) | {row['hybrid_developer_vs_numpy_p50']}× |",
            f"| {date} | developer top-50 lexical rankings the every-chunk statistics ordered differently | {n} | "
            f"queries | {row['developer_rankings_reordered_by_hidden_chunks_before']} of {row['queries']} | "
            "visible-set statistics: 0 (tests/conformance/test_lexical_privacy.py) | - |",
        ])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
