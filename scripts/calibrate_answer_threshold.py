#!/usr/bin/env python
"""Calibrate RAG_ANSWER_MAX_DISTANCE on the project golden set, keeping SciFact answered.

Seeds the demo data into a throw-away SQLite database through the real write path and asks every question
of the golden set (tests/data/golden_demo.jsonl) as each of its askers, the way the chat does (its search
mode and top-k; app/services/golden_eval.py). A (question, asker) pair is answerable when the asker may see
an expected anchor; otherwise it must get "I don't know" — both the questions nothing in the data answers
and the ones about a task or document this asker may not see. For each pair it takes the smallest distance
among the hits that share a topic word with the question (the extractive answer quotes a hit only when it
both clears the threshold and shares a word). The threshold is the value that misclassifies the fewest
pairs among those that keep SciFact's answerable queries answered at least --min-scifact of the time (their
per-query distances come from scripts/check_answer_threshold_scifact.py: run it first); ties go to the
midpoint of the widest such interval. Writes docs/bench/answer_threshold.json.

Usage: .venv/bin/python scripts/calibrate_answer_threshold.py [--golden tests/data/golden_demo.jsonl]
       [--scifact docs/bench/answer_threshold_scifact.json] [--min-scifact 0.97]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.rag.golden import CHAT_KINDS  # noqa: E402
from app.services import golden_eval  # noqa: E402


def pick(answerable: list[float], unanswerable: list[float], floor: float) -> tuple[float, int]:
    """(threshold ≥ floor, errors): fewest misclassified pairs, then the widest interval's midpoint."""
    cuts = sorted(set(answerable + unanswerable + [0.0, golden_eval.NO_HIT]))
    best = None
    for lo, hi in zip(cuts, cuts[1:]):
        lo = max(lo, floor)
        if lo >= hi:
            continue
        t = (lo + hi) / 2
        errors = sum(d > t for d in answerable) + sum(d <= t for d in unanswerable)
        key = (errors, -(hi - lo))
        if best is None or key < best[0]:
            best = (key, round(t, 3))
    return best[1], best[0][0]


def scifact_floor(distances: list[float], share: float) -> float:
    """The smallest threshold that answers at least ``share`` of the SciFact queries."""
    return sorted(distances)[max(0, math.ceil(share * len(distances)) - 1)]


def ask(golden: Path) -> tuple[list[golden_eval.Asked], Settings]:
    questions = golden_eval.load_golden(golden)
    with golden_eval.demo_engine(Settings(_env_file=None)) as (engine, settings):
        # The conversation kinds are scored through the chat (their gate is routing, not a distance).
        searched = [q for q in questions if q.kind not in CHAT_KINDS]
        return golden_eval.ask_all(engine, settings, searched, [settings.search_mode]), settings


def errors_at(t: float, yes: list[golden_eval.Asked], no: list[golden_eval.Asked]) -> dict[str, int]:
    return {"answerable_unanswered": sum(a.min_on_topic > t for a in yes),
            "unanswerable_answered": sum(a.min_on_topic <= t for a in no if a.question.kind == "unanswerable"),
            "not_visible_answered": sum(a.min_on_topic <= t for a in no if a.question.kind != "unanswerable")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden", type=Path, default=ROOT / "tests" / "data" / "golden_demo.jsonl")
    parser.add_argument("--scifact", type=Path, default=ROOT / "docs" / "bench" / "answer_threshold_scifact.json")
    parser.add_argument("--min-scifact", type=float, default=0.97)
    args = parser.parse_args()
    scifact = json.loads(args.scifact.read_text())["min_on_topic_distances"]
    asked, settings = ask(args.golden)
    yes = [a for a in asked if a.expected]
    no = [a for a in asked if not a.expected]
    floor = scifact_floor(scifact, args.min_scifact)
    threshold, errors = pick([a.min_on_topic for a in yes], [a.min_on_topic for a in no], floor)
    unconstrained, unconstrained_errors = pick([a.min_on_topic for a in yes], [a.min_on_topic for a in no], 0.0)
    # The same choice if only the questions nothing answers had to get "I don't know" (not the ones about
    # an entity this asker may not see): shows what those access-restricted pairs pull the threshold to.
    nothing = [a.min_on_topic for a in no if a.question.kind == "unanswerable"]
    questions_only, questions_only_errors = pick([a.min_on_topic for a in yes], nothing, floor)

    def scifact_answered(t: float) -> float:
        return round(sum(d <= t for d in scifact) / len(scifact), 4)

    result = {
        "date": dt.date.today().isoformat(), "golden": str(args.golden.relative_to(ROOT)),
        "mode": settings.search_mode, "top_k": settings.top_k, "pairs": len(asked),
        "answerable_pairs": len(yes), "unanswerable_pairs": len(no),
        "threshold": threshold, "misclassified": errors, "errors": errors_at(threshold, yes, no),
        "scifact_answered": scifact_answered(threshold), "scifact_floor": floor, "min_scifact": args.min_scifact,
        "without_scifact_constraint": {"threshold": unconstrained, "misclassified": unconstrained_errors,
                                       "scifact_answered": scifact_answered(unconstrained)},
        "unanswerable_questions_only": {"threshold": questions_only, "misclassified": questions_only_errors,
                                        "answerable_max": round(max(a.min_on_topic for a in yes), 4),
                                        "unanswerable_min": round(min(nothing), 4),
                                        "scifact_answered": scifact_answered(questions_only)},
        "current_default": {"threshold": settings.answer_max_distance,
                            "errors": errors_at(settings.answer_max_distance, yes, no),
                            "scifact_answered": scifact_answered(settings.answer_max_distance)},
        "sweep": {f"{t:.2f}": {**errors_at(t, yes, no), "scifact_answered": scifact_answered(t)}
                  for t in (x / 100 for x in range(40, 81, 2))},
        "pairs_detail": [{"id": a.question.qid, "asker": a.asker, "kind": a.question.kind,
                          "answerable": bool(a.expected), "min_distance_on_topic": round(a.min_on_topic, 4)}
                         for a in asked],
    }
    out = ROOT / "docs" / "bench" / "answer_threshold.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    for t, row in result["sweep"].items():
        print(t, row)
    print(json.dumps({k: v for k, v in result.items() if k not in ("sweep", "pairs_detail")}, indent=1))
    print(f"-> {out}")


if __name__ == "__main__":
    main()
