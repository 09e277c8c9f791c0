#!/usr/bin/env python
"""The typed tracker query on a generated SQLite tracker of 100k tasks: a manager's and a developer's count,
group-by assignee, label filter and ordered list (and the blocked predicate, which reads every description and
comment; and tracker_values, read once per chat turn), side by side, interleaved, each against a full scan of the
same table (COUNT(*) WHERE LENGTH(TITLE) > 0: what reading every row costs at all). The rows are generated (no
real data) and written straight into the tables.

Every answer is checked against a count made in Python from the generated rows, so a fast wrong answer fails.
Writes docs/bench/bench_tracker_query.json (--out) and appends its rows to docs/BENCHMARKS.md (unless
--no-markdown). The query plans of each case are kept in the JSON (EXPLAIN QUERY PLAN).

Usage: .venv/bin/python scripts/bench_tracker_query.py [--tasks 100000] [--repeats 7] [--no-markdown]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks_md import append_rows, save_result  # noqa: E402
from app.domain import DONE_STATUSES, Caller, Role  # noqa: E402
from app.engines.sqlite import tracker_statements  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.engines.sqlite.tracker import register_functions  # noqa: E402
from app.rag.understanding.query import Predicate, TrackerQuery  # noqa: E402

DEVELOPERS = 200
STATUSES = ("TODO", "IN_PROGRESS", "IN_REVIEW", "BLOCKED", "DONE", "DONE", "DONE", "CLOSED")
PRIORITIES = ("CRITICAL", "HIGH", "MEDIUM", "MEDIUM", "LOW", None)
LABELS = tuple(f"label-{i}" for i in range(60))
WORDS = "login invoice deploy payroll cache api factura timeout migration release ledger export".split()
SAYS = ("waiting on the vendor", "blocked by the API contract", "esperando al banco")


class _NoModel:
    """The engine is opened without an embedding model: this benchmark never embeds."""

    model_name = "none"
    dimensions = 384


def generate(engine: SQLiteEngine, n: int, seed: int) -> dict[str, Any]:
    """Write a tracker of ``n`` tasks; return the counts the answers are checked against."""
    rng = random.Random(seed)
    conn = engine.conn
    start = dt.datetime(2024, 1, 1)
    truth = {"open": 0, "label": 0, "per_assignee_open": {}, "dev_open": 0}
    with conn:
        conn.executemany("INSERT INTO EMPLOYEES (EMPLOYEE_ID, FIRST_NAME, LAST_NAME, ROLE) VALUES (?, ?, ?, ?)",
                         [(i, f"First{i}", f"Last {i}", "MANAGER" if i == 1 else "DEVELOPER")
                          for i in range(1, DEVELOPERS + 2)])
        conn.executemany("INSERT INTO PROJECTS (PROJECT_ID, NAME) VALUES (?, ?)",
                         [(i, f"Project {i}") for i in range(1, 21)])
        tasks, values, comments = [], [], []
        for tid in range(1, n + 1):
            status, assignee = rng.choice(STATUSES), rng.choice([None, *range(2, DEVELOPERS + 2)])
            description = " ".join(rng.sample(WORDS, 4)) + (f". {rng.choice(SAYS)}" if rng.random() < 0.03 else "")
            created = start + dt.timedelta(minutes=rng.randrange(3 * 365 * 24 * 60))
            tasks.append((tid, f"Task {tid} {rng.choice(WORDS)}", description, status, rng.choice(PRIORITIES),
                          rng.randrange(1, 21), assignee, rng.choice([1, 2, 3, 5, 8, None]),
                          (created.date() + dt.timedelta(days=rng.randrange(90))).isoformat(),
                          created.isoformat(timespec="milliseconds"), rng.choice([None, *range(1, DEVELOPERS + 2)])))
            labels = rng.sample(LABELS, rng.choice([0, 1, 1, 2, 3]))
            values += [(tid, "LABEL", v) for v in labels]
            if rng.random() < 0.5:
                comments.append((tid, rng.choice(["looks fine", "merged", "needs review", *SAYS])))
            is_open = status not in DONE_STATUSES
            truth["open"] += is_open
            truth["label"] += "label-7" in labels
            truth["per_assignee_open"][assignee] = truth["per_assignee_open"].get(assignee, 0) + is_open
        conn.executemany(
            "INSERT INTO TASKS (TASK_ID, TITLE, DESCRIPTION, STATUS, PRIORITY, PROJECT_ID, ASSIGNEE_ID, STORY_POINTS,"
            " EXPECTED_END_DATE, CREATED_AT, REPORTER_ID) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", tasks)
        conn.executemany("INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (?, ?, ?)", values)
        conn.executemany("INSERT INTO COMMENTS (TASK_ID, BODY) VALUES (?, ?)", comments)
        conn.execute("DELETE FROM RAG_DIRTY")  # the triggers queued every row; nothing here indexes
    conn.execute("ANALYZE")
    return truth


def cases(developer: int) -> dict[str, TrackerQuery]:
    open_ = Predicate("open", (True,))
    return {
        "count open": TrackerQuery(where=(open_,), returns="count"),
        "group open by assignee": TrackerQuery(where=(open_,), returns="group", group_by="assignee"),
        "label filter (list 20 + total)": TrackerQuery(where=(Predicate("label", ("label-7",)),), limit=20),
        "open by priority (list 20 + total)": TrackerQuery(where=(open_,), order="priority", descending=True),
        "blocked open (count)": TrackerQuery(where=(open_, Predicate("blocked", (True,))), returns="count"),
    }


def check(name: str, caller: Caller, result: Any, truth: dict[str, Any]) -> None:
    mine = caller.employee_id if not caller.sees_everything else None
    if name == "count open":
        want = truth["open"] if mine is None else truth["per_assignee_open"].get(mine, 0)
        assert result.total == want, (name, caller, result.total, want)
    if name == "group open by assignee":
        got = {g.key: g.count for g in result.groups}
        want = {k: v for k, v in truth["per_assignee_open"].items() if v and (mine is None or k == mine)}
        assert got == want, (name, caller)
    if name == "label filter (list 20 + total)" and mine is None:
        assert result.total == truth["label"], (name, result.total, truth["label"])


def plans(engine: SQLiteEngine, caller: Caller, queries: dict[str, TrackerQuery]) -> dict[str, list[str]]:
    register_functions(engine.conn)
    out = {}
    for name, query in queries.items():
        statement, binds = (tracker_statements.groups(caller, query) if query.returns == "group"
                            else tracker_statements.rows(caller, query) if query.returns == "list"
                            else tracker_statements.aggregate(caller, query))
        out[name] = [row[3] for row in engine.conn.execute("EXPLAIN QUERY PLAN " + statement, binds)]
    return out


def run(engine: SQLiteEngine, truth: dict[str, Any], repeats: int) -> dict[str, Any]:
    manager = Caller(1, Role.MANAGER)
    developer = Caller(max((k for k in truth["per_assignee_open"] if k), key=lambda k: truth["per_assignee_open"][k]),
                       Role.DEVELOPER)
    queries = cases(developer.employee_id)
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(repeats):  # interleaved: every case once per round, the scan beside them
        started = time.perf_counter()
        engine.conn.execute("SELECT COUNT(*) FROM TASKS WHERE LENGTH(TITLE) > 0").fetchone()
        times.setdefault(("scan", "plain"), []).append(time.perf_counter() - started)
        for name, query in queries.items():
            for who, caller in (("manager", manager), ("developer", developer)):
                started = time.perf_counter()
                result = engine.run_tracker_query(caller, query)
                times.setdefault((name, who), []).append(time.perf_counter() - started)
                check(name, caller, result, truth)
        for who, caller in (("manager", manager), ("developer", developer)):  # read once per chat turn
            started = time.perf_counter()
            engine.tracker_values(caller)
            times.setdefault(("tracker_values (the words of a turn)", who), []).append(time.perf_counter() - started)
    scan = statistics.median(times[("scan", "plain")]) * 1000
    figures = {}
    for name in [*queries, "tracker_values (the words of a turn)"]:
        manager_ms = statistics.median(times[(name, "manager")]) * 1000
        developer_ms = statistics.median(times[(name, "developer")]) * 1000
        figures[name] = {"manager_ms": round(manager_ms, 2), "developer_ms": round(developer_ms, 2),
                         "manager_over_scan": round(manager_ms / scan, 2),
                         "developer_over_manager": round(developer_ms / manager_ms, 3)}
    return {"scan_ms": round(scan, 2), "developer_id": developer.employee_id,
            "developer_open_tasks": truth["per_assignee_open"][developer.employee_id], "cases": figures,
            "plans": {"manager": plans(engine, manager, queries), "developer": plans(engine, developer, queries)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_tracker_query.json"))
    parser.add_argument("--no-markdown", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = SQLiteEngine(f"{tmp}/tracker.db", embedder=_NoModel())
        try:
            engine.migrate()
            started = time.perf_counter()
            truth = generate(engine, args.tasks, args.seed)
            built = time.perf_counter() - started
            result = {"tasks": args.tasks, "repeats": args.repeats, "seed": args.seed, "build_s": round(built, 1),
                      **run(engine, truth, args.repeats)}
        finally:
            engine.close()
    save_result(Path(args.out), result)
    print(json_dump(result))
    if not args.no_markdown:
        append_rows([
            f"| {dt.date.today()} | typed tracker query (SQLite, {name}) | {args.tasks} tasks | manager / developer ms "
            f"| {fig['manager_ms']} / {fig['developer_ms']} | a full scan reading every title {result['scan_ms']} ms | "
            f"manager {fig['manager_over_scan']}x scan, developer {fig['developer_over_manager']}x manager |"
            for name, fig in result["cases"].items()])


def json_dump(result: dict[str, Any]) -> str:
    import json

    return json.dumps(result, indent=2)


if __name__ == "__main__":
    main()
