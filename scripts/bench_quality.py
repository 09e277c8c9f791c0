#!/usr/bin/env python
"""Retrieval quality of the embedded engine on BEIR SciFact: nDCG@10 of vector vs hybrid search.

A thin caller of app.services.evaluation (the implementation behind `ragctl eval`): loads the
SciFact abstracts as documents through the production write path, asks the test queries as a
manager and scores document-level rankings (a document's best chunk) against the qrels.
Writes docs/bench/bench_quality.json and appends rows to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_quality.py [--dataset ../shared/datasets/scifact] [--limit-docs N] [--limit-queries N]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks_md import append_rows, save_result  # noqa: E402
from app.services.evaluation import evaluate, load_collection  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=str(ROOT.parent / "shared" / "datasets" / "scifact"))
    parser.add_argument("--limit-docs", type=int, default=None)
    parser.add_argument("--limit-queries", type=int, default=None)
    args = parser.parse_args()
    data = Path(args.dataset)
    collection = load_collection(data / "corpus.jsonl", data / "queries.jsonl", data / "qrels.tsv", args.limit_docs)
    if args.limit_queries is not None:
        kept = dict(list(collection.qrels.items())[: args.limit_queries])
        collection = dataclasses.replace(collection, qrels=kept)
    figures = evaluate(collection, ("vector", "hybrid"))
    first = figures["vector"]
    scores = {mode: f["ndcg@10"] for mode, f in figures.items()}
    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "dataset": "BEIR SciFact test",
              "documents": first["documents"], "chunks": first["chunks"], "queries": first["queries"],
              "index_seconds": first["index_seconds"], "ndcg@10": scores, "modes": figures}
    save_result(ROOT / "docs" / "bench" / "bench_quality.json", result)
    append_rows([f"| {result['date'][:10]} | SciFact nDCG@10 ({result['queries']} queries, {result['chunks']} chunks) | "
                f"{result['documents']} docs | vector / hybrid | {scores['vector']} / {scores['hybrid']} | "
                f"DESIGN.md: dense 0.649, BM25 0.682, RRF 0.717 | hybrid − vector {scores['hybrid'] - scores['vector']:+.3f} |"])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
