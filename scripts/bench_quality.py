#!/usr/bin/env python
"""Retrieval quality of the embedded engine on BEIR SciFact: nDCG@10 of vector vs hybrid search.

Loads the 5,183 SciFact abstracts as documents through the engine's CRUD (triggers, queue,
worker, chunking, embedding: the production path), then asks the 300 test queries as a manager
and scores document-level rankings (a document's best chunk) against the qrels.
Writes docs/bench/bench_quality.json and appends rows to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_quality.py [--dataset ../shared/datasets/scifact] [--limit-queries N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402
from app.domain import Caller, Role, Scope  # noqa: E402
from app.embedding.tokens import count_tokens  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.entities import DOCUMENTS  # noqa: E402
from app.services.indexing import drain  # noqa: E402


def ndcg_at_10(ranked: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def load(dataset: Path):
    corpus = [json.loads(line) for line in (dataset / "corpus.jsonl").open()]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (dataset / "queries.jsonl").open())}
    qrels: dict[str, dict[str, int]] = {}
    for line in list((dataset / "qrels.tsv").open())[1:]:
        qid, doc, score = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(score)
    return corpus, queries, qrels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=str(ROOT.parent / "shared" / "datasets" / "scifact"))
    parser.add_argument("--limit-queries", type=int, default=None)
    args = parser.parse_args()
    corpus, queries, qrels = load(Path(args.dataset))
    qids = [q for q in qrels if q in queries][: args.limit_queries]

    with tempfile.TemporaryDirectory() as tmp:
        engine = SQLiteEngine.open(Settings(database_url=f"sqlite:///{tmp}/scifact.db"))
        engine.migrate()
        doc_of: dict[int, str] = {}
        for doc in corpus:
            row = engine.create(DOCUMENTS, {"TITLE": doc["title"], "BODY": doc["text"], "DOC_TYPE": "PAPER"})
            doc_of[row["document_id"]] = doc["_id"]
        started = time.perf_counter()
        indexed = drain(engine, count_tokens, 64, 5)
        index_s = time.perf_counter() - started
        assert indexed.failed == 0, indexed.errors
        manager = Caller(0, Role.MANAGER)
        scores = {}
        for mode in ("vector", "hybrid"):
            total = 0.0
            for qid in qids:
                question = queries[qid]
                hits = engine.search(engine.embed_query(question), question, manager, 40, Scope(), mode).hits
                ranked: list[str] = []
                for hit in hits:  # document-level ranking: a document counts at its best chunk
                    doc = doc_of[hit.source_id]
                    if doc not in ranked:
                        ranked.append(doc)
                total += ndcg_at_10(ranked, qrels[qid])
            scores[mode] = round(total / len(qids), 4)
        engine.close()

    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "dataset": "BEIR SciFact test",
              "documents": len(corpus), "chunks": indexed.chunks_written, "queries": len(qids),
              "index_seconds": round(index_s, 1), "ndcg@10": scores}
    out = ROOT / "docs" / "bench" / "bench_quality.json"
    save_result(out, result)
    append_rows([f"| {result['date'][:10]} | SciFact nDCG@10 ({len(qids)} queries, {indexed.chunks_written} chunks) | "
                f"{len(corpus)} docs | vector / hybrid | {scores['vector']} / {scores['hybrid']} | "
                f"DESIGN.md: dense 0.649, BM25 0.682, RRF 0.717 | hybrid − vector {scores['hybrid'] - scores['vector']:+.3f} |"])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
