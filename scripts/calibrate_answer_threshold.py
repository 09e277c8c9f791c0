#!/usr/bin/env python
"""Calibrate RAG_ANSWER_MAX_DISTANCE: the cosine distance under which a hit is close enough to answer from.

Seeds the demo data (app/demo_data.py) into a fresh SQLite file, indexes it, then runs through the real
search (hybrid, top 8, as the demo manager, who sees everything) questions the demo data answers and
questions it cannot answer, in English and Spanish. For each question it records the smallest distance
among the hits, and among the hits that share a topic word with it (the extractive answer quotes a
hit only when it does both: clears the threshold and shares a word). The
threshold is the midpoint of the widest gap that separates the two groups when one exists, else the
value that misclassifies the fewest questions. Writes docs/bench/answer_threshold.json.

Usage: .venv/bin/python scripts/calibrate_answer_threshold.py
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import demo_data  # noqa: E402
from app.config import Settings  # noqa: E402
from app.rag import terms  # noqa: E402
from app.rag.extractive import shares_topic  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.services.demo import seed  # noqa: E402
from app.services.search import resolve_caller, search  # noqa: E402
from app.worker import Worker  # noqa: E402

ANSWERABLE = [
    "who is assigned to the login bug on the onboarding screen?",
    "what is blocking the refund flow work?",
    "what is the release process?",
    "how do I escalate a payments outage?",
    "what is the goal of the second payments sprint?",
    "when is the payout scheduler task due?",
    "which tasks are about the nightly ETL?",
    "how many approvals does payments code need in code review?",
    "what did the mobile weekly sync say about offline sync?",
    "improve performance of the checkout page",
    "crash on older devices in the Android build",
    "monitoring alerts for the PSP webhook handler",
    "how do refunds work with the new PSP?",
    "partition the orders fact table",
    "¿quién está asignado a la página de facturas?",
    "¿qué riesgo tiene la integración con el banco local?",
    "¿cuál es la guía de estilo para textos en español?",
    "traducir textos del chat de soporte",
]
UNANSWERABLE = [
    "what is the capital of France?",
    "how do I bake sourdough bread?",
    "who won the football world cup in 2018?",
    "what is the office wifi password?",
    "what is our parental leave policy?",
    "recommend a good science fiction novel",
    "what's the weather tomorrow in Madrid?",
    "how many vacation days do I have left?",
    "explain quantum entanglement",
    "what is the boiling point of water?",
    "¿cuál es la receta de la paella?",
    "¿quién ganó el mundial de fútbol?",
    "¿cuántos días de vacaciones me quedan?",
    "¿qué tiempo hará mañana en Bogotá?",
]


def best_distances(engine, caller, questions: list[str]) -> list[dict]:
    rows = []
    for q in questions:
        hits = search(engine, q, caller, 8, None, "hybrid").result.hits
        best = min(hits, key=lambda h: h.distance)
        topic = terms.topic_stems(q)
        on_topic = [h.distance for h in hits if shares_topic(h.content, topic)]
        rows.append({"question": q, "min_distance": round(best.distance, 4),
                     # what the answer uses: the closest hit that also shares a topic word (2.0 = none)
                     "min_distance_on_topic": round(min(on_topic, default=2.0), 4),
                     "closest": best.content.splitlines()[0][:80]})
    return rows


def pick(answerable: list[float], unanswerable: list[float]) -> tuple[float, int]:
    """(threshold, errors): midpoint of the widest separating gap, or the fewest-errors cut."""
    cuts = sorted(set(answerable + unanswerable))
    best = None
    for lo, hi in zip(cuts, cuts[1:]):
        t = (lo + hi) / 2
        errors = sum(d > t for d in answerable) + sum(d <= t for d in unanswerable)
        key = (errors, -(hi - lo))
        if best is None or key < best[0]:
            best = (key, round(t, 3))
    return best[1], best[0][0]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp}/rag.db")
        engine = SQLiteEngine.open(settings)
        try:
            engine.migrate()
            seed(engine, demo_data.build())
            Worker(engine, settings).run_once()  # drains the whole queue
            manager = resolve_caller(engine, employee_id=1)
            yes = best_distances(engine, manager, ANSWERABLE)
            no = best_distances(engine, manager, UNANSWERABLE)
        finally:
            engine.close()
    threshold, errors = pick([r["min_distance_on_topic"] for r in yes], [r["min_distance_on_topic"] for r in no])
    distance_only, distance_only_errors = pick([r["min_distance"] for r in yes], [r["min_distance"] for r in no])
    result = {"date": dt.date.today().isoformat(), "mode": "hybrid", "top_k": 8, "caller": "demo manager",
              "threshold": threshold, "misclassified": errors,
              "answerable_max": max(r["min_distance_on_topic"] for r in yes),
              "unanswerable_min": min(r["min_distance_on_topic"] for r in no),
              "distance_only": {"threshold": distance_only, "misclassified": distance_only_errors,
                                "answerable_max": max(r["min_distance"] for r in yes),
                                "unanswerable_min": min(r["min_distance"] for r in no)},
              "answerable": yes, "unanswerable": no}
    out = ROOT / "docs" / "bench" / "answer_threshold.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    for label, rows in (("answerable", yes), ("unanswerable", no)):
        for r in rows:
            print(f"{label:12} {r['min_distance']:.3f} {r['min_distance_on_topic']:.3f}  {r['question']}"
                  f"  -> {r['closest']}")
    print(f"threshold {threshold} ({errors} misclassified); answerable max {result['answerable_max']}, "
          f"unanswerable min {result['unanswerable_min']}; distance alone: {result['distance_only']} -> {out}")


if __name__ == "__main__":
    main()
