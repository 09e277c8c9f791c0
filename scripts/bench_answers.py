#!/usr/bin/env python
"""What composing an answer from the records costs, and what a weak LLM's replies become (issue 23).

1. Sentence selection by meaning: for every question of the project golden set (tests/data/golden_demo.jsonl)
   and each of its askers, on the demo data seeded through the real write path, the offline free-text answer
   (app/services/answers.free_text: embed the candidate sentences, score them against the question's vector
   retrieval already made, as the chat does, and choose) beside the same
   answer without measuring meaning (each entity's first sentence), interleaved, ``--repeat`` times. The
   added cost per turn is the difference of the medians; the number of sentences embedded is bounded by
   app/rag/extractive.MAX_CHOSEN.
2. A weak model: every golden question, and each follow-up of its chains, through the chat service against a
   loopback model (tests/fake_llm.py) that replies "…[TASK #99999]. See also [SPRINT #1]." to every call;
   counted: turns whose reply was replaced, by llm_error, and turns whose answer is not the offline one (a
   follow-up's retrieval query is the model's rewrite, so a weak model can still move what retrieval finds).

Writes docs/bench/bench_answers.json (--out) and appends rows to docs/BENCHMARKS.md (unless --no-markdown).

Usage: .venv/bin/python scripts/bench_answers.py [--repeat 3] [--out PATH] [--no-markdown]
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from app.config import Settings  # noqa: E402
from app.domain import Scope  # noqa: E402
from app.embedding.onnx_minilm import MiniLMEmbedder  # noqa: E402
from app.rag import extractive  # noqa: E402
from app.services import answers, golden_eval  # noqa: E402
from app.services.search import search  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden_demo.jsonl"
WEAK = "The answer is in the tracker [TASK #99999]. See also [SPRINT #1]."


def selection_cost(engine, settings, golden, repeat: int) -> dict:
    callers = golden_eval.demo_callers(engine, {a for q in golden for a in q.expect})
    with_meaning, without, query, measured = [], [], [], []
    for q in golden:
        for asker in q.expect:
            found = search(engine, q.question, callers[asker], settings.top_k, Scope(), "hybrid")
            hits = found.result.hits
            planned = extractive.plan(q.question, hits, settings.answer_max_distance)
            if planned is None:
                continue  # "I don't know": nothing is chosen
            measured.append(len(extractive.to_measure(planned)))
            for _ in range(repeat):
                started = time.perf_counter()
                answers.free_text(engine, q.question, hits, settings.answer_max_distance, None, found.vector)
                middle = time.perf_counter()
                extractive.extractive_answer(q.question, hits, settings.answer_max_distance)
                plain = time.perf_counter()
                engine.embed_query(q.question)  # what every turn pays anyway: the reference
                query.append((time.perf_counter() - plain) * 1000)
                without.append((plain - middle) * 1000)
                with_meaning.append((middle - started) * 1000)
    return {"answers": len(measured), "sentences_embedded_median": statistics.median(measured),
            "sentences_embedded_max": max(measured), "cap": extractive.MAX_CHOSEN,
            "with_meaning_ms_p50": statistics.median(with_meaning),
            "without_ms_p50": statistics.median(without),
            "added_ms_p50": statistics.median(with_meaning) - statistics.median(without),
            "query_embed_ms_p50": statistics.median(query),
            "with_meaning_ms_p95": statistics.quantiles(with_meaning, n=20)[-1]}


def weak_model(engine, settings, golden) -> dict:
    import anyio
    import httpx

    from app.services import chat
    from tests.fake_llm import FakeLLM, Reply

    callers = golden_eval.demo_callers(engine, {a for q in golden for a in q.expect})
    reasons: collections.Counter = collections.Counter()
    changed, turns = [], 0
    with FakeLLM(Reply.plain(WEAK)) as llm:
        online = settings.model_copy(update={"llm_url": llm.url, "llm_model": "weak", "llm_timeout_s": 10.0})
        offline = settings.model_copy(update={"llm_url": None, "llm_model": None})

        async def talk(config, q, caller):
            said, conversation = [], None
            async with httpx.AsyncClient() as client:
                for text in q.turns:
                    prep = chat.prepare(engine, config, caller, chat.ChatInput(text, conversation))
                    answer = await chat.chat(engine, config, prep, client)
                    conversation = answer.conversation_id
                    said.append(answer)
            return said

        for q in golden:
            for asker in q.expect:
                weak = anyio.run(talk, online, q, callers[asker])
                plain = anyio.run(talk, offline, q, callers[asker])
                for w, p in zip(weak, plain):
                    turns += 1
                    reasons[w.llm_error or "accepted"] += 1
                    if w.answer != p.answer:
                        changed.append({"question": q.qid, "asker": asker, "turn": w.route,
                                        "weak": w.answer[:200], "offline": p.answer[:200]})
    return {"turns": turns, "by_llm_error": dict(reasons), "answers_not_the_offline_one": len(changed),
            "differing": changed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench" / "bench_answers.json")
    parser.add_argument("--no-markdown", action="store_true")
    args = parser.parse_args()
    golden = golden_eval.load_golden(GOLDEN)
    base = Settings(_env_file=None, run_worker=False, backfill_on_startup=False)
    with golden_eval.demo_engine(base, MiniLMEmbedder()) as (engine, settings):
        cost = selection_cost(engine, settings, golden, args.repeat)
        weak = weak_model(engine, settings, golden)
    result = {"date": dt.date.today().isoformat(), "machine": platform.machine(), "python": platform.python_version(),
              "selection": cost, "weak_model": weak}
    save_result(args.out, result)
    print(result)
    if not args.no_markdown:
        today = result["date"]
        by = ", ".join(f"{k} {v}" for k, v in sorted(weak["by_llm_error"].items()))
        append_rows([
            f"| {today} | sentences chosen by meaning (offline answer, demo data, golden questions × askers) | "
            f"{cost['answers']} answers | added ms per turn p50 (with − without meaning); sentences embedded "
            f"median / max | {cost['added_ms_p50']:.1f}; {cost['sentences_embedded_median']:g} / "
            f"{cost['sentences_embedded_max']} | embedding the question {cost['query_embed_ms_p50']:.1f} ms; without "
            f"meaning {cost['without_ms_p50']:.2f} ms; cap {cost['cap']} | "
            f"{cost['added_ms_p50'] / cost['query_embed_ms_p50']:.1f}× the question's embedding |",
            f"| {today} | weak loopback LLM (invents [TASK #99999], cites [SPRINT #1]), golden questions and chains | "
            f"{weak['turns']} turns | replies by llm_error; answers not the offline one | {by}; "
            f"{weak['answers_not_the_offline_one']} (follow-ups retrieved with the model's rewrite) | every reply "
            f"replaced | - |",
        ])


if __name__ == "__main__":
    main()
