#!/usr/bin/env python
"""MiniLM beside the multilingual model: Spanish questions over the demo data, plus SciFact figures.

For each RAG_EMBEDDING_MODEL, seeds the demo data (app/demo_data.py) into a fresh SQLite file, indexes it
through the real write path, and asks 10 Spanish questions as the demo manager (who sees everything),
in vector and hybrid mode. Five ask about Spanish text, five about English text (cross-lingual). A hit
is relevant when its anchor line names the expected entity; the figures are hit@1, hit@5 and MRR@10.

SciFact figures come from `ragctl eval ... --json` runs, passed as --scifact MODEL=FILE (the eval is
the slow part; run it separately, with the same --limit-docs for both models).
Writes docs/bench/model_compare.json.

Usage: .venv/bin/python scripts/bench_model_compare.py [--scifact MODEL=eval.json ...] [--scifact-command TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import demo_data  # noqa: E402
from app.config import Settings  # noqa: E402
from app.domain import Scope  # noqa: E402
from app.embedding.models import MINILM, MULTILINGUAL_E5_SMALL  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.services.demo import seed  # noqa: E402
from app.services.search import resolve_caller, search  # noqa: E402
from app.worker import Worker  # noqa: E402

# (question, language of the text that answers it, words one of which the relevant anchor line holds)
QUESTIONS = [
    ("¿Qué riesgos se hablaron en la planificación del portal LATAM?", "es", ["[DOC", "Notas de la reunión de planificación"]),
    ("¿Debemos tratar al usuario de tú o de usted en la interfaz?", "es", ["[DOC", "Guía de estilo"]),
    ("¿De qué trata el proyecto del portal de autoservicio para Latinoamérica?", "es", ["[PROJECT", "Portal de Clientes LATAM"]),
    ("¿Qué tareas hay para traducir la interfaz al portugués?", "es", ["[TASK", "Traducir textos"]),
    ("¿Qué fallos intermitentes hay que investigar en el portal?", "es", ["[TASK", "Investigar fallo"]),
    ("¿Cuál es el proceso para sacar una nueva versión?", "en", ["[DOC", "Release process"]),
    ("¿Qué hago si se caen los pagos durante mi guardia?", "en", ["[DOC", "On-call runbook"]),
    ("¿Por qué los reembolsos son asíncronos con el nuevo proveedor de pagos?", "en", ["[DOC", "PSP migration"]),
    ("¿Cómo podemos bajar el costo del almacén de datos?", "en", ["[DOC", "warehouse cost ideas"]),
    ("¿Qué se decidió en la reunión semanal del equipo de la app móvil?", "en", ["[DOC", "Weekly sync notes"]),
]
MODES = ("vector", "hybrid")
DEPTH = 10


def relevant(hit, expect: list[str]) -> bool:
    anchor = hit.content.splitlines()[0]
    kind, name = expect
    return anchor.startswith(kind) and name.lower() in anchor.lower()


def score(engine, caller, mode: str) -> dict:
    per_question, hit1, hit5, mrr = [], 0, 0, 0.0
    for question, lang, expect in QUESTIONS:
        hits = search(engine, question, caller, DEPTH, Scope(), mode).result.hits
        rank = next((i + 1 for i, h in enumerate(hits) if relevant(h, expect)), None)
        hit1 += rank == 1
        hit5 += rank is not None and rank <= 5
        mrr += 1.0 / rank if rank else 0.0
        per_question.append({"question": question, "answer_language": lang, "rank": rank,
                             "top": hits[0].content.splitlines()[0] if hits else None})
    n = len(QUESTIONS)
    by_language = {}  # Spanish text, and English text asked about in Spanish (cross-lingual)
    for lang in ("es", "en"):
        ranks = [q["rank"] for q in per_question if q["answer_language"] == lang]
        by_language[f"mrr@10_answer_{lang}"] = round(sum(1.0 / r for r in ranks if r) / len(ranks), 3)
    return {"hit@1": round(hit1 / n, 3), "hit@5": round(hit5 / n, 3), "mrr@10": round(mrr / n, 3),
            **by_language, "questions": per_question}


def run_model(model: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-model-") as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp}/rag.db", embedding_model=model)
        engine = SQLiteEngine.open(settings)
        try:
            engine.migrate()
            seed(engine, demo_data.build())
            started = time.perf_counter()
            Worker(engine, settings).run_once()
            index_s = time.perf_counter() - started
            chunks = sum(engine.status(settings.max_attempts).chunks_by_source_type.values())
            manager = resolve_caller(engine, employee_id=1)
            result = {mode: score(engine, manager, mode) for mode in MODES}
            result["demo_index"] = {"chunks": chunks, "seconds": round(index_s, 1)}
            return result
        finally:
            engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scifact", action="append", default=[], metavar="MODEL=FILE",
                        help="a `ragctl eval --json` result for MODEL")
    parser.add_argument("--scifact-command", default=None, help="the eval command line, recorded in the JSON")
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "model_compare.json"))
    args = parser.parse_args()
    out = {"date": dt.date.today().isoformat(), "machine": "2 cores shared with other jobs (timings are noisy)",
           "spanish_demo": {"questions": len(QUESTIONS), "depth": DEPTH, "caller": "demo manager (employee 1)"},
           "models": {}}
    for model in (MINILM.name, MULTILINGUAL_E5_SMALL.name):
        out["models"][model] = {"spanish_demo": run_model(model)}
        print(model, {m: {k: v for k, v in out["models"][model]["spanish_demo"][m].items() if k != "questions"}
                      for m in MODES}, flush=True)
    for item in args.scifact:
        model, _, path = item.partition("=")
        out["models"].setdefault(model, {})["scifact"] = json.loads(Path(path).read_text())
    if args.scifact_command:
        out["scifact_command"] = args.scifact_command
    Path(args.out).write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
