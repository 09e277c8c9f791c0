#!/usr/bin/env python
"""Check RAG_ANSWER_MAX_DISTANCE (calibrated on the demo data) on SciFact, a public evaluation set.

Every SciFact test query has a relevant abstract, so this measures one side of the threshold: how often
the extractive answer would wrongly say "I don't know" to an answerable question. It loads the first
--docs abstracts that some test query is judged relevant to (plus the other abstracts up to --docs) as
documents through the real write path, indexes them, and for each query whose relevant abstracts are
loaded runs the real hybrid search (top 8, as a manager) and applies app.rag.extractive.relevant: the
query is answered when at least one hit clears the threshold and shares a topic word with it; it is
answered from a relevant abstract when one of those hits is one. It also records, per query, the smallest
distance the answer gate sees (app.rag.extractive.gate_distance: 0 for a lexical first hit holding every topic
word), so scripts/calibrate_answer_threshold.py can check any other threshold against SciFact without rerunning this. Writes docs/bench/answer_threshold_scifact.json and a row
in docs/BENCHMARKS.md (--no-benchmarks-md: the JSON only).

Usage: .venv/bin/python scripts/check_answer_threshold_scifact.py [--docs 600] [--data ../shared/datasets/scifact]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.entities import DOCUMENTS, EMPLOYEES  # noqa: E402
from app.rag.extractive import gate_distance, relevant  # noqa: E402
from app.services.search import resolve_caller, search  # noqa: E402
from app.worker import Worker  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402


def load(data: Path, docs: int) -> tuple[list[dict], dict[str, str], dict[str, set[str]]]:
    qrels: dict[str, set[str]] = {}
    with (data / "qrels.tsv").open() as f:
        for row in csv.DictReader(f, delimiter="\t"):
            qrels.setdefault(row["query-id"], set()).add(row["corpus-id"])
    judged = {doc for docs_ in qrels.values() for doc in docs_}
    corpus = [json.loads(line) for line in (data / "corpus.jsonl").open()]
    chosen = [d for d in corpus if d["_id"] in judged][:docs]
    chosen += [d for d in corpus if d["_id"] not in judged][: max(0, docs - len(chosen))]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (data / "queries.jsonl").open())}
    return chosen, queries, qrels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets" / "scifact")
    parser.add_argument("--no-benchmarks-md", action="store_true", help="write the JSON result only")
    args = parser.parse_args()
    chosen, queries, qrels = load(args.data, args.docs)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(database_url=f"sqlite:///{tmp}/scifact.db", backfill_on_startup=False)
        engine = SQLiteEngine.open(settings)
        try:
            engine.migrate()
            manager = engine.create(EMPLOYEES, {"FIRST_NAME": "Eval", "ROLE": "MANAGER"})["employee_id"]
            doc_ids = {engine.create(DOCUMENTS, {"TITLE": d["title"] or d["_id"], "BODY": d["text"]})["document_id"]:
                       d["_id"] for d in chosen}
            Worker(engine, settings).run_once()
            caller = resolve_caller(engine, employee_id=manager)
            loaded = set(doc_ids.values())
            asked = [(qid, text) for qid, text in queries.items() if qid in qrels and qrels[qid] <= loaded]
            answered = from_relevant = 0
            closest: list[float] = []  # per query: the smallest distance among hits sharing a topic word
            for qid, text in asked:
                hits = search(engine, text, caller, 8, None, "hybrid").result.hits
                closest.append(round(gate_distance(text, hits), 4))
                kept = relevant(text, hits, settings.answer_max_distance)
                answered += bool(kept)
                from_relevant += any(doc_ids.get(h.source_id) in qrels[qid] for h in kept if h.source_type == "doc")
        finally:
            engine.close()
    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "threshold": settings.answer_max_distance, "documents": len(chosen), "queries": len(asked),
              "answered": answered, "answered_from_a_relevant_abstract": from_relevant,
              "wrong_i_dont_know": len(asked) - answered, "min_on_topic_distances": sorted(closest)}
    save_result(ROOT / "docs" / "bench" / "answer_threshold_scifact.json", result)
    print(json.dumps({k: v for k, v in result.items() if k != "min_on_topic_distances"}, indent=2))
    if args.no_benchmarks_md:
        return
    append_rows([f"| {dt.date.today()} | answer threshold {result['threshold']} on SciFact (answerable queries) | "
                 f"{len(chosen)} docs, {len(asked)} queries | answered / from a relevant abstract | "
                 f"{answered} / {from_relevant} | wrong \"I don't know\" | {len(asked) - answered} "
                 f"({(len(asked) - answered) / max(1, len(asked)):.0%}) |"])


if __name__ == "__main__":
    main()
