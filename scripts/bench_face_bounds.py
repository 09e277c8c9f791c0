#!/usr/bin/env python
"""Worst-case CPU per request on the faces issue 26 bounded: MCP's search_projects and the OpenAI face.

The real app under uvicorn (embedded engine, the chat tests' data, an admin token), called as an agent or an
OpenAI client would over loopback HTTP. For each case, CPU seconds of this whole process (server and client:
an upper bound of the server's) per request, median and max of ``--repeat`` requests; and /healthz latency
while four of the heaviest accepted OpenAI requests run at once. Cases: the longest query MCP accepts (200
characters) and the issue's attacks, now refused (200,000 characters; 1.92 MB); the largest message list the
OpenAI face accepts (200 messages, 200,000 characters, counted for usage) and the issue's attack, refused
(19 × 100,000 characters). Before (issue 26, main 13fb438): 4.4 s of CPU per 200,000-character MCP query,
199.8 s for 1.92 MB; 2.5-3.4 s per 19 × 100,000 OpenAI request, /healthz p95 2.7-4.0 s with four at once.
Writes docs/bench/face_bounds.json and appends rows to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_face_bounds.py [--repeat 5] [--label after]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
import httpx  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from app.api.main import create_app  # noqa: E402
from app.config import Settings  # noqa: E402
from app.embedding.onnx_minilm import MiniLMEmbedder  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from tests.api.chat_data import seed  # noqa: E402
from tests.api.servers import serve  # noqa: E402

TOKEN = "bench-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def cpu_of(call) -> float:
    began = time.process_time()
    call()
    return time.process_time() - began


def mcp_case(url: str, query: str, employee_id: int) -> None:
    async def go() -> None:
        async with httpx2.AsyncClient(headers=AUTH, timeout=600) as http:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
                await client.call_tool("search_projects", {"query": query, "employee_id": employee_id})

    anyio.run(go)


def openai_body(messages: list[tuple[str, str]], employee_id: int) -> dict:
    return {"model": "rag-extractive", "user": str(employee_id),
            "messages": [{"role": role, "content": text} for role, text in messages]}


def openai_case(url: str, body: dict, expect: int) -> None:
    response = httpx.post(f"{url}/v1/chat/completions", json=body, headers=AUTH, timeout=600)
    assert response.status_code == expect, response.text[:300]


def largest_accepted() -> list[tuple[str, str]]:
    """200 messages, 200,000 characters in all, the last one the question."""
    filler = [("user" if i % 2 == 0 else "assistant", ("login bug password reset " * 41)[:1000]) for i in range(198)]
    used = sum(len(text) for _, text in filler)
    return [*filler, ("assistant", "x" * (200_000 - used - 33)), ("user", "what is wrong with the login bug?")]


def healthz_while(url: str, work, clients: int = 4) -> list[float]:
    """/healthz latencies (s) sampled while ``clients`` threads each run ``work`` once."""
    threads = [threading.Thread(target=work) for _ in range(clients)]
    for t in threads:
        t.start()
    latencies = []
    while any(t.is_alive() for t in threads):
        began = time.monotonic()
        httpx.get(f"{url}/healthz", timeout=60)
        latencies.append(time.monotonic() - began)
        time.sleep(0.05)
    for t in threads:
        t.join()
    return latencies


def run(repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(database_url=f"sqlite:///{tmp}/rag.db", api_tokens=TOKEN, run_worker=False,
                            backfill_on_startup=False)
        engine = SQLiteEngine.open(settings, embedder=MiniLMEmbedder())
        engine.migrate()
        ids = seed(engine, settings)
        with serve(create_app(settings, engine=engine), timeout_graceful_shutdown=2) as url:
            accepted = openai_body(largest_accepted(), ids["ana"])
            attack = openai_body([("user" if i % 2 == 0 else "assistant", "x" * 100_000) for i in range(18)]
                                 + [("user", "login bug")], ids["ana"])
            cases = {
                "MCP search_projects, 200-character query (the longest accepted)":
                    lambda: mcp_case(url, ("payments refunds " * 12)[:200], ids["ana"]),
                "MCP search_projects, 200,000-character query (refused)":
                    lambda: mcp_case(url, "payments " * 22_222, ids["ana"]),
                "MCP search_projects, 1.92 MB query (refused)":
                    lambda: mcp_case(url, "p" * 1_920_000, ids["ana"]),
                "OpenAI, 200 messages / 200,000 characters (the largest accepted)":
                    lambda: openai_case(url, accepted, 200),
                "OpenAI, 19 × 100,000 characters (refused)": lambda: openai_case(url, attack, 400),
            }
            for call in cases.values():
                call()  # warm: model, caches, connections
            cpu = {name: [cpu_of(call) for _ in range(repeat)] for name, call in cases.items()}
            health = healthz_while(url, lambda: openai_case(url, accepted, 200))
        engine.close()
    health.sort()
    return {"cpu_s": {name: {"median": round(statistics.median(v), 3), "max": round(max(v), 3)}
                      for name, v in cpu.items()},
            "healthz_four_largest_openai_s": {"p95": round(health[int(0.95 * (len(health) - 1))], 3),
                                              "max": round(health[-1], 3), "samples": len(health)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--label", default="after")
    args = parser.parse_args()
    from scripts.benchmarks_md import append_rows, save_result

    result = run(args.repeat) | {"label": args.label, "date": dt.date.today().isoformat()}
    print(result)
    save_result(ROOT / "docs" / "bench" / "face_bounds.json", result)
    rows = [f"| {result['date']} | face bounds ({args.label}): {name} | {args.repeat} requests | CPU s per request, "
            f"median / max | {v['median']} / {v['max']} | whole process (server and client) | - |"
            for name, v in result["cpu_s"].items()]
    h = result["healthz_four_largest_openai_s"]
    rows.append(f"| {result['date']} | face bounds ({args.label}): /healthz while 4 of the largest accepted OpenAI "
                f"requests run | {h['samples']} samples | p95 / max s | {h['p95']} / {h['max']} | before: "
                f"p95 2.7-4.0 s (19 × 100,000 characters) | - |")
    append_rows(rows)


if __name__ == "__main__":
    main()
