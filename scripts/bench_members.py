#!/usr/bin/env python
"""A developer's search under RAG_ACCESS_RULE=project vs a manager's, side by side in one run (issue 32).

The embedded engine is loaded with synthetic chunks through its storage path (scripts/bench_search.py's
loader: 85% task chunks over 50 developers and 10 projects, the rest public), then the same query vectors are
searched, interleaved so every plan sees the same machine noise, by:
  * a manager (every chunk: no access mask),
  * a developer under the project rule, a member of ``--member-projects`` projects (their audience's
    partitions, plus every other partition masked to the tasks of those projects before the top-k),
  * the same developer under the assignee rule (their own partitions only), for reference,
in vector and hybrid mode, k=8. Target (issue 32): the project-rule developer within 1.5x the manager's p50.
Writes docs/bench/bench_members.json and appends rows to docs/BENCHMARKS.md (unless --no-markdown).

Usage: .venv/bin/python scripts/bench_members.py [--chunks 100000] [--queries 60] [--member-projects 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from app.domain import Caller, Role, Scope  # noqa: E402
from bench_search import DIM, percentile, seeded_engine, synthetic_chunks  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402

K = 8


def run(n: int, n_queries: int, member_projects: int, seed: int = 32) -> dict:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = synthetic_chunks(n, rng)
    projects = frozenset(range(1, member_projects + 1))
    callers = {"manager": Caller(10_000, Role.MANAGER),
               "developer_project": Caller(7, Role.DEVELOPER, projects),  # as engine.caller resolves it
               "developer_assignee": Caller(7, Role.DEVELOPER)}
    visible = sum(1 for c in chunks if c.source_type != "task" or c.owner_employee_id == 7 or c.project_id in projects)
    queries = rng.standard_normal((n_queries, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    timings: dict[str, list[float]] = {f"{mode}_{who}": [] for mode in ("vector", "hybrid") for who in callers}
    short = 0
    with tempfile.TemporaryDirectory() as tmp:
        engine = seeded_engine(tmp, vectors, chunks)
        t0 = time.perf_counter()
        engine.search(queries[0], "login", callers["manager"], K, Scope(), "hybrid")  # loads both indexes
        load_s = time.perf_counter() - t0
        for q in queries:  # interleaved
            for mode in ("vector", "hybrid"):
                for who, caller in callers.items():
                    t0 = time.perf_counter()
                    hits = engine.search(q, "login invoice", caller, K, Scope(), mode).hits
                    timings[f"{mode}_{who}"].append(time.perf_counter() - t0)
                    short += len(hits) < K
        engine.close()
    row: dict = {"chunks": n, "queries": n_queries, "member_projects": member_projects,
                 "developer_project_visible_chunks": visible, "short_results": short, "index_load_s": round(load_s, 2)}
    for name, values in timings.items():
        row[f"{name}_p50_ms"] = round(percentile(values, 50), 3)
        row[f"{name}_p95_ms"] = round(percentile(values, 95), 3)
    for mode in ("vector", "hybrid"):
        row[f"{mode}_project_developer_vs_manager_p50"] = round(
            row[f"{mode}_developer_project_p50_ms"] / row[f"{mode}_manager_p50_ms"], 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--member-projects", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_members.json"))
    parser.add_argument("--no-markdown", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    row = run(args.chunks, args.queries, args.member_projects)
    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()} {platform.python_version()}",
              "seconds": round(time.perf_counter() - started, 1), **row}
    save_result(Path(args.out), result)
    if not args.no_markdown:
        date, n = result["date"][:10], row["chunks"]
        append_rows([
            f"| {date} | search under RAG_ACCESS_RULE=project ({mode}, k={K}) | {n} | developer (member of "
            f"{row['member_projects']} of 10 projects) p50/p95 ms | {row[f'{mode}_developer_project_p50_ms']} / "
            f"{row[f'{mode}_developer_project_p95_ms']} | manager {row[f'{mode}_manager_p50_ms']} / "
            f"{row[f'{mode}_manager_p95_ms']} (assignee-rule developer {row[f'{mode}_developer_assignee_p50_ms']}) | "
            f"{row[f'{mode}_project_developer_vs_manager_p50']}× |"
            for mode in ("vector", "hybrid")])
    print(json.dumps(result, indent=2))
    sys.exit(1 if row["short_results"] else 0)


if __name__ == "__main__":
    main()
