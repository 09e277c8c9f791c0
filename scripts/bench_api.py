#!/usr/bin/env python
"""API load on the embedded engine: 50 concurrent loopback clients searching and writing.

It seeds the demo data into a temporary SQLite database and indexes it, starts the API under
uvicorn on 127.0.0.1 (a separate process, with its in-process worker re-indexing what the
writes change), then runs N concurrent httpx clients for a bounded time, each looping over a mix:
searches as the manager and as developers, task updates (PATCH) and new comments (POST).
Reports throughput and p50/p95 latency for searches and for writes separately, and the error
count (any non-2xx answer or transport failure; it must be 0).
Writes docs/bench/bench_api.json and appends rows to docs/BENCHMARKS.md (scripts/benchmarks_md.py).

Usage: .venv/bin/python scripts/bench_api.py [--seconds 20] [--clients 50]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import demo_data  # noqa: E402
from app.config import Settings  # noqa: E402
from app.engines import open_engine  # noqa: E402
from app.services.demo import seed  # noqa: E402
from app.worker import Worker  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402

TOKEN = "bench-token"  # a plain RAG_API_TOKENS token: full access
QUESTIONS = ["what is blocking the login work?", "invoice rounding bug", "who is working on payments refunds?",
             "offline mode for the mobile app", "estado de la migración del portal", "ETL dashboards migration",
             "facturas en moneda local", "onboarding flow redesign", "what did the retro decide?", "release checklist"]
STATUSES = ["TODO", "IN_PROGRESS", "IN_REVIEW", "DONE"]
# Share of each operation in the mix (a chat bot mostly reads).
MIX = {"search_manager": 0.2, "search_developer": 0.5, "update_task": 0.15, "add_comment": 0.15}


def prepare_database(url: str) -> None:
    """Seed the demo data and index all of it, so the load starts on a warm, complete index."""
    settings = Settings(database_url=url, api_tokens=TOKEN)
    engine = open_engine(settings)
    try:
        engine.migrate()
        seed(engine, demo_data.build())
        Worker(engine, settings).run_once()
    finally:
        engine.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(url: str, port: int, log_path: Path) -> subprocess.Popen:
    env = {**os.environ, "RAG_DATABASE_URL": url, "RAG_API_TOKENS": TOKEN, "RAG_WORKER_DELAY_MS": "500",
           "RAG_WORKER_INITIAL_DELAY_MS": "0"}
    cmd = [sys.executable, "-m", "uvicorn", "app.api.main:create_app", "--factory",
           "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log_path.open("w"), stderr=subprocess.STDOUT)


def wait_ready(base: str, server: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the API exited with {server.returncode} before it was ready")
        try:
            if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError("the API was not ready in time")


class Load:
    """Timings and errors of one run, shared by the client tasks (one event loop: no locks)."""

    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = {op: [] for op in MIX}
        self.errors: Counter[str] = Counter()
        self.details: list[str] = []  # transport failures, as raised


async def one_request(client: httpx.AsyncClient, op: str, rng: random.Random, ids: dict) -> httpx.Response:
    if op.startswith("search"):
        who = ids["manager"] if op == "search_manager" else rng.choice(ids["developers"])
        return await client.post("/api/v1/search", json={"question": rng.choice(QUESTIONS), "employee_id": who})
    task = rng.choice(ids["tasks"])
    if op == "update_task":
        return await client.patch(f"/api/v1/tasks/{task}", json={"status": rng.choice(STATUSES),
                                                                 "estimated_hours": rng.randint(1, 40)})
    body = f"bench note {rng.randint(0, 10**6)}: checked the {rng.choice(QUESTIONS)}"
    return await client.post("/api/v1/comments", json={"task_id": task, "author_id": rng.choice(ids["developers"]),
                                                       "body": body})


async def client_loop(client: httpx.AsyncClient, seed_: int, deadline: float, ids: dict, load: Load) -> None:
    rng = random.Random(seed_)
    ops, weights = list(MIX), list(MIX.values())
    while time.perf_counter() < deadline:
        op = rng.choices(ops, weights)[0]
        t0 = time.perf_counter()
        try:
            response = await one_request(client, op, rng, ids)
            if response.is_success:
                load.latencies[op].append(time.perf_counter() - t0)
            else:
                load.errors[f"{op} {response.status_code}"] += 1
        except httpx.HTTPError as exc:
            load.errors[f"{op} {type(exc).__name__}"] += 1
            load.details.append(f"{time.perf_counter() - t0:.2f}s after sending: {exc!r} {exc.__cause__!r}")


async def run_load(base: str, clients: int, seconds: float) -> tuple[Load, float, dict]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    # Drop idle connections before uvicorn does (its keep-alive timeout is 5 s, httpx's default
    # expiry too): reusing one the server is closing is a client-side ReadError, not an API error.
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients, keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as client:
        employees = (await client.get("/api/v1/employees", params={"limit": 100})).json()["items"]
        tasks = (await client.get("/api/v1/tasks", params={"limit": 500})).json()["items"]
        ids = {"manager": next(e["employee_id"] for e in employees if e["role"] == "MANAGER"),
               "developers": [e["employee_id"] for e in employees if e["role"] == "DEVELOPER"],
               "tasks": [t["task_id"] for t in tasks]}
        load = Load()
        start = time.perf_counter()
        await asyncio.gather(*(client_loop(client, i, start + seconds, ids, load) for i in range(clients)))
        elapsed = time.perf_counter() - start
        status = (await client.get("/api/v1/rag/status")).json()
    return load, elapsed, status


def summarise(load: Load, elapsed: float, groups: dict[str, list[str]]) -> dict:
    out = {}
    for group, ops in groups.items():
        values = np.asarray([v for op in ops for v in load.latencies[op]]) * 1000.0
        out[group] = {
            "requests": int(values.size),
            "per_s": round(values.size / elapsed, 1),
            "p50_ms": round(float(np.percentile(values, 50)), 1) if values.size else None,
            "p95_ms": round(float(np.percentile(values, 95)), 1) if values.size else None,
        }
    return out


def markdown_rows(result: dict) -> list[str]:
    date, n, s = result["date"][:10], result["clients"], result["seconds"]
    size = f"{n} clients, {s} s"
    rows = [f"| {date} | API load (uvicorn, embedded engine, demo data) | {size} | {group}: req/s, p50/p95 ms | "
            f"{r['per_s']}, {r['p50_ms']} / {r['p95_ms']} | {r['requests']} requests | - |"
            for group, r in result["groups"].items()]
    rows.append(f"| {date} | API load (uvicorn, embedded engine, demo data) | {size} | errors | "
                f"{result['errors_total']} | must be 0 | - |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the clients run")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_api.json"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        prepare_database(url)
        port = free_port()
        server = start_server(url, port, Path(tmp) / "server.log")
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(base, server)
            load, elapsed, status = asyncio.run(run_load(base, args.clients, args.seconds))
        finally:
            server.terminate()
            server.wait(timeout=30)
        server_log = (Path(tmp) / "server.log").read_text()[-4000:]

    groups = {"search": ["search_manager", "search_developer"], "search as manager": ["search_manager"],
              "search as developer": ["search_developer"], "writes": ["update_task", "add_comment"]}
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {platform.python_version()}, {os.cpu_count()} cores (clients and server share them)",
        "clients": args.clients,
        "seconds": args.seconds,
        "elapsed_s": round(elapsed, 2),
        "mix": MIX,
        "groups": summarise(load, elapsed, groups),
        "errors_total": sum(load.errors.values()),
        "errors": dict(load.errors),
        "error_details": load.details[:20],
        "queue_after": {k: status.get(k) for k in ("pending", "failing", "oldest_pending_age_s") if k in status},
    }
    if result["errors_total"]:
        result["server_log_tail"] = server_log
    out = Path(args.out)
    save_result(out, result)
    append_rows(markdown_rows(result))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
