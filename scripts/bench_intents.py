#!/usr/bin/env python
"""Question kinds by meaning (app/rag/intents.py): accuracy over the paraphrases outside the examples
(tests/data/intent_paraphrases.json), English and Spanish; the start-up cost of embedding the examples;
the per-question cost of the embedding and of the classification. Writes docs/bench/bench_intents.json
and appends rows to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_intents.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.embedding.onnx_minilm import MiniLMEmbedder  # noqa: E402
from app.rag import intents, terms  # noqa: E402
from scripts.benchmarks_md import append_rows, save_result  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="timed passes over the paraphrases")
    args = parser.parse_args()
    asked = json.loads((ROOT / "tests" / "data" / "intent_paraphrases.json").read_text(encoding="utf-8"))
    embedder = MiniLMEmbedder()
    texts, labels = intents.example_texts()
    embedder.embed(texts[:4])  # the first run loads the session
    started = time.perf_counter()
    matrix = np.vstack([embedder.embed([t])[0] for t in texts])  # one by one, as engine.embed_query does
    startup_ms = (time.perf_counter() - started) * 1000
    embed_ms, classify_ms, verdicts = [], [], []
    for _ in range(args.repeat):
        for item in asked:
            t0 = time.perf_counter()
            vector = embedder.embed([item["question"]])[0]
            t1 = time.perf_counter()
            found = intents.classify(vector, matrix, labels)
            t2 = time.perf_counter()
            embed_ms.append((t1 - t0) * 1000)
            classify_ms.append((t2 - t1) * 1000)
            if len(verdicts) < len(asked):
                verdicts.append((item, found))
    by_lang = {}
    for lang in ("en", "es"):
        mine = [(i, f) for i, f in verdicts if terms.is_spanish(i["question"]) == (lang == "es")]
        by_lang[lang] = {"questions": len(mine), "right": sum(f == i["kind"] for i, f in mine),
                         "wrong": sum(f is not None and f != i["kind"] for i, f in mine),
                         "unclear": sum(f is None for _, f in mine)}
    result = {"date": dt.date.today().isoformat(), "examples": len(texts), "startup_ms": round(startup_ms, 1),
              "embed_ms_p50": round(statistics.median(embed_ms), 3),
              "classify_ms_p50": round(statistics.median(classify_ms), 3),
              "classify_ms_p95": round(sorted(classify_ms)[int(0.95 * len(classify_ms))], 3), "by_language": by_lang}
    save_result(ROOT / "docs" / "bench" / "bench_intents.json", result)
    day = result["date"]
    rows = [f"| {day} | question kinds: examples embedded at start-up | {len(texts)} | ms | {result['startup_ms']} "
            "| - | - |",
            f"| {day} | question kind per question | - | embed / classify p50 ms | {result['embed_ms_p50']} / "
            f"{result['classify_ms_p50']} | - | - |"]
    for lang, figures in by_lang.items():
        rows.append(f"| {day} | question kinds, paraphrases ({lang}) | {figures['questions']} | right / wrong / "
                    f"unclear | {figures['right']} / {figures['wrong']} / {figures['unclear']} | - | "
                    f"{figures['right'] / figures['questions']:.2f} right |")
    append_rows(rows)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
