#!/usr/bin/env python
"""The pure steps of a chat turn that grow with their input: routing the question over the directory,
and cleaning the model's reply of citations.

1. Routing as the directory grows (N employees, N projects, N sprints). A turn whose question might be a
   tracker question reads the names a question may use (``engine.vocabulary()``) and routes the question
   over them (``app/rag/routing.route``: ids, sprint and project names, people). Measured interleaved on
   a temporary SQLite database seeded through the records service: the vocabulary read and the routing
   of 6 questions (English and Spanish), beside what every turn pays anyway, embedding the question.
2. ``app/rag/citations.clean`` on hostile replies (the model's text is untrusted: a prompt injection
   can shape it) of growing length, beside a plain reply of the same length, interleaved.
Writes docs/bench/bench_chat_core.json (--out) and appends rows to docs/BENCHMARKS.md (unless
--no-markdown). Run it on two commits for a before/after (--label).

Usage: .venv/bin/python scripts/bench_chat_core.py [--sizes 100,1000,10000] [--reply-chars 10000,40000]
       [--repeat 3] [--label TEXT] [--out PATH] [--no-markdown]
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from app.config import Settings  # noqa: E402
from app.embedding.onnx_minilm import MiniLMEmbedder  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.entities import EMPLOYEES, PROJECTS, SPRINTS  # noqa: E402
from app.rag import citations, routing  # noqa: E402
from app.services.records import create_record  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402

QUESTIONS = (
    "which of my tasks are still in progress?",
    "what is Chen working on?",
    "how many story points are left in Payments Sprint 2?",
    "which tasks are overdue in sprint 3?",
    "¿cuántas tareas críticas hay sin asignar?",
    "what is wrong with the login bug on the refund flow tasks?",
)
FIRST = ("Ana", "Ben", "Chen", "Diego", "Emma", "Farah", "Grace", "Maria", "Luis", "Sofia", "Omar", "Noor")
LAST = ("Garcia", "Carter", "Wei", "Hernandez", "Schmidt", "Khan", "Okafor", "Lopez", "Perez", "Rossi")
WORDS = ("Payments", "Mobile", "Data", "Portal", "Billing", "Search", "Identity", "Growth", "Ledger", "Atlas")


def seed(engine: SQLiteEngine, n: int) -> None:
    """n people (first names repeat, as in a real directory), n projects, one sprint per project."""
    for i in range(n):
        create_record(engine, EMPLOYEES, {"first_name": FIRST[i % len(FIRST)], "last_name": f"{LAST[i % len(LAST)]}{i}",
                                          "email": f"e{i}@example.com", "role": "DEVELOPER"})
    for i in range(n):
        project = create_record(engine, PROJECTS, {"name": f"{WORDS[i % len(WORDS)]} {i}"})["project_id"]
        create_record(engine, SPRINTS, {"project_id": project, "name": f"{WORDS[i % len(WORDS)]} Sprint {i}"})


def ms(seconds: list[float]) -> float:
    return round(statistics.median(seconds) * 1000, 3)


def measure(n: int, repeat: int, embedder: MiniLMEmbedder) -> dict:
    today = dt.date.today()
    with tempfile.TemporaryDirectory(prefix="bench-routing-") as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp}/r.db", run_worker=False)
        engine = SQLiteEngine.open(settings, embedder=embedder)
        try:
            engine.migrate()
            started = time.perf_counter()
            seed(engine, n)
            seeded_s = time.perf_counter() - started
            vocab_s, route_s, embed_s = [], [], []
            for _ in range(repeat):
                for question in QUESTIONS:  # interleaved: read, route, embed, per question
                    t0 = time.perf_counter()
                    vocabulary = engine.vocabulary()
                    t1 = time.perf_counter()
                    routing.route(question, None, vocabulary, today)
                    t2 = time.perf_counter()
                    embedder.embed([question])
                    t3 = time.perf_counter()
                    vocab_s.append(t1 - t0)
                    route_s.append(t2 - t1)
                    embed_s.append(t3 - t2)
        finally:
            engine.close()
    return {"size": n, "seed_s": round(seeded_s, 1), "vocabulary_ms": ms(vocab_s), "route_ms": ms(route_s),
            "route_max_ms": round(max(route_s) * 1000, 3), "embed_ms": ms(embed_s),
            "ratio_to_embedding": round((statistics.median(vocab_s) + statistics.median(route_s))
                                        / statistics.median(embed_s), 2)}


def hostile_replies(chars: int) -> dict[str, str]:
    """Replies of about ``chars`` characters: the shapes that made the old cleaner backtrack, and a plain one."""
    pairs = chars // 2
    return {
        "comma runs": "x [TASK #1] y [TASK #5]" + " ," * pairs + " z",
        "whitespace run": "Known [TASK #1]" + " " * chars + "x [TASK #5].",
        "dangling conjunctions": "Known [TASK #1] and" + " and" * (chars // 4) + " [TASK #5].",
        "plain prose": " ".join(f"Claim {i} is true [TASK #{i % 7}]." for i in range(chars // 30)),
    }


def measure_cleaning(chars: int, repeat: int) -> dict:
    seconds: dict[str, list[float]] = {}
    for _ in range(repeat):
        for shape, reply in hostile_replies(chars).items():  # interleaved
            started = time.perf_counter()
            citations.clean(reply, {"[TASK #1]"})
            seconds.setdefault(shape, []).append(time.perf_counter() - started)
    plain = statistics.median(seconds["plain prose"])
    return {"chars": chars, **{f"{shape}_ms": ms(s) for shape, s in seconds.items()},
            "worst_to_plain": round(max(statistics.median(s) for s in seconds.values()) / plain, 2)}


def markdown_rows(result: dict) -> list[str]:
    """One docs/BENCHMARKS.md row per directory size and per reply length."""
    label = f" {result['label']}" if result["label"] else ""
    return [f"| {result['date']} | chat routing{label} (vocabulary read + route) | {r['size']} people, "
            f"projects, sprints | median ms: vocabulary / route (max) | {r['vocabulary_ms']} / "
            f"{r['route_ms']} ({r['route_max_ms']}) | query embedding {r['embed_ms']} ms | "
            f"{r['ratio_to_embedding']}× |" for r in result["routing"]] + [
        f"| {result['date']} | citation cleaning{label} (app/rag/citations.clean) | {c['chars']} chars | "
        f"median ms: comma runs / whitespace run / dangling conjunctions | {c['comma runs_ms']} / "
        f"{c['whitespace run_ms']} / {c['dangling conjunctions_ms']} | plain prose {c['plain prose_ms']} ms | "
        f"{c['worst_to_plain']}× |" for c in result["cleaning"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--reply-chars", default="2000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_chat_core.json"))
    parser.add_argument("--label", default="", help="a note for the markdown rows (e.g. 'before')")
    parser.add_argument("--no-markdown", action="store_true")
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    rows = [measure(int(n), args.repeat, embedder) for n in args.sizes.split(",")]
    cleaning = [measure_cleaning(int(n), args.repeat) for n in args.reply_chars.split(",")]
    result = {"bench": "chat_core", "date": dt.date.today().isoformat(), "machine": platform.platform(),
              "questions": list(QUESTIONS), "repeat": args.repeat, "label": args.label, "routing": rows,
              "cleaning": cleaning}
    save_result(Path(args.out), result)
    for row in [*rows, *cleaning]:
        print(row)
    if not args.no_markdown:
        append_rows(markdown_rows(result))


if __name__ == "__main__":
    main()
