#!/usr/bin/env python
"""Cut the fixed SciFact subset that the quality gate (tests/quality) indexes in about a minute.

60 judged test queries (seeded choice), their relevant documents, for each query its 2 best-BM25
and its 2 nearest (MiniLM, the product's vector arm) non-relevant documents — hard negatives for
both arms, so neither wins by default — and 60 random documents. Deterministic: the same full
collection (and the same kept eval database) gives the same files.

Usage: .venv/bin/python scripts/make_scifact_subset.py /path/to/scifact tests/data/scifact_subset EVAL_DB
where EVAL_DB is the full collection indexed by `ragctl eval --db EVAL_DB` (document id N is the
corpus's N-th document).
"""

from __future__ import annotations

import csv
import json
import random
import re
import sqlite3
import sys
from pathlib import Path

SEED, N_QUERIES, N_HARD, N_RANDOM = 20261129, 60, 2, 60


def nearest_documents(eval_db: Path, texts: list[str], k: int = 12) -> list[list[int]]:
    """Corpus positions (0-based) of each text's nearest documents by the product's vector search."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from app.config import Settings
    from app.domain import Caller, Role, Scope
    from app.engines.sqlite.engine import SQLiteEngine

    engine = SQLiteEngine.open(Settings(database_url=f"sqlite:///{eval_db}"))
    try:
        vectors = engine.embedder.embed(texts)
        out = []
        for text, vector in zip(texts, vectors):
            hits = engine.search(vector, text, Caller(0, Role.MANAGER), 3 * k, Scope(), "vector").hits
            out.append(list(dict.fromkeys(h.source_id - 1 for h in hits))[:k])
        return out
    finally:
        engine.close()


def main(source: Path, out: Path, eval_db: Path) -> None:
    corpus = [json.loads(line) for line in (source / "corpus.jsonl").open(encoding="utf-8")]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (source / "queries.jsonl").open(encoding="utf-8"))}
    qrels: dict[str, dict[str, int]] = {}
    with (source / "qrels.tsv").open(encoding="utf-8") as handle:
        for query_id, doc_id, score in list(csv.reader(handle, delimiter="\t"))[1:]:
            qrels.setdefault(query_id, {})[doc_id] = int(score)
    rng = random.Random(SEED)
    chosen = sorted(rng.sample(sorted(qrels), N_QUERIES), key=int)
    bm25 = sqlite3.connect(":memory:")
    bm25.execute("CREATE VIRTUAL TABLE f USING fts5(id UNINDEXED, body, tokenize='porter unicode61 remove_diacritics 2')")
    bm25.executemany("INSERT INTO f VALUES (?, ?)", [(d["_id"], d["title"] + " " + d["text"]) for d in corpus])
    keep: set[str] = set()
    nearest = nearest_documents(eval_db, [queries[q] for q in chosen])
    for query_id, positions in zip(chosen, nearest):
        keep |= set(qrels[query_id])
        keep |= set([corpus[i]["_id"] for i in positions if corpus[i]["_id"] not in qrels[query_id]][:N_HARD])
        match = " OR ".join(f'"{w}"' for w in re.findall(r"\w+", queries[query_id]))
        ranked = [row[0] for row in bm25.execute("SELECT id FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 12", (match,))]
        keep |= set([doc for doc in ranked if doc not in qrels[query_id]][:N_HARD])
    keep |= set(rng.sample([d["_id"] for d in corpus if d["_id"] not in keep], N_RANDOM))
    out.mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for doc in corpus:
            if doc["_id"] in keep:
                handle.write(json.dumps({"_id": doc["_id"], "title": doc["title"], "text": doc["text"]}, ensure_ascii=False) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as handle:
        for query_id in chosen:
            handle.write(json.dumps({"_id": query_id, "text": queries[query_id]}, ensure_ascii=False) + "\n")
    with (out / "qrels.tsv").open("w", encoding="utf-8") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        for query_id in chosen:
            for doc_id, score in sorted(qrels[query_id].items()):
                handle.write(f"{query_id}\t{doc_id}\t{score}\n")
    print(f"{len(chosen)} queries, {len(keep)} documents → {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
