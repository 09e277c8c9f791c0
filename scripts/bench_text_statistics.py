#!/usr/bin/env python
"""What the Oracle text arm's statistics cost, before and after REVIEW-4 W1, measured on SQLite side by side.

No Oracle runs on this machine, so the same design runs on a SQLite file holding RAG_CHUNK's access columns, its
CONTENT, the stored CONTENT_CHARS with RAG_CHUNK_STATS_IDX (SOURCE_TYPE, OWNER_EMPLOYEE_ID, CONTENT_CHARS), and an
FTS5 index standing in for Oracle Text. The Oracle engine's own code reads it: ``search._visible_statistics`` with
the Oracle statements (``text_statistics``, ``text_term_rows``; ``CONTAINS(CONTENT, :tq) > 0`` becomes an FTS5
rowid subquery, the braced term a quoted one) and the real ``TextStatisticsCache``. Per search, interleaved:
  * before: ``COUNT(*), AVG(LENGTH(CONTENT))`` under the access predicate, then one count per term;
  * after, uncached: ``COUNT(*), AVG(CONTENT_CHARS)`` (a covering-index scan: SQLite's plan is printed), per term;
  * after, cached: the same call once the cache holds the class and its terms (what every search after the first
    costs until a write commits).
Figures for a manager (no predicate) and a developer, with 3 query terms (one common, two rare). Appends rows to
docs/BENCHMARKS.md unless --no-markdown.

Usage: .venv/bin/python scripts/bench_text_statistics.py [--chunks 50000] [--rounds 30] [--no-markdown]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import apsw

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from app.domain import Caller, Role  # noqa: E402
from app.engines.oracle import search as oracle_search  # noqa: E402
from app.engines.oracle import search_statements as sql  # noqa: E402
from app.engines.oracle.text_statistics import TextStatisticsCache  # noqa: E402
from benchmarks_md import append_rows  # noqa: E402

DEVELOPERS = 50
WORDS = [f"w{i:04d}" for i in range(3000)]
COMMON = "sprint"  # in every task chunk, like a project name
RARE = ("w0007", "w2999")
_CONTAINS = re.compile(r"CONTAINS\(CONTENT, :tq\) > 0")


class SqliteCursor:
    """Just enough of an Oracle cursor for search._visible_statistics, over apsw."""

    def __init__(self, conn: apsw.Connection) -> None:
        self.conn, self.rows = conn, []

    def execute(self, statement: str, binds: dict | None = None) -> None:
        binds = dict(binds or {})
        if "tq" in binds:
            statement = _CONTAINS.sub("rowid IN (SELECT rowid FROM RAG_FTS WHERE RAG_FTS MATCH :tq)", statement)
            binds["tq"] = '"' + binds["tq"].strip("{}") + '"'
        self.rows = list(self.conn.execute(statement, binds))

    def fetchone(self):
        return self.rows[0] if self.rows else None


def build(path: str, chunks: int) -> apsw.Connection:
    conn = apsw.Connection(path)
    conn.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF")
    conn.execute("CREATE TABLE RAG_CHUNK (CHUNK_ID INTEGER PRIMARY KEY, SOURCE_TYPE TEXT NOT NULL, "
                 "OWNER_EMPLOYEE_ID INTEGER, CONTENT TEXT NOT NULL, CONTENT_CHARS INTEGER)")
    conn.execute("CREATE VIRTUAL TABLE RAG_FTS USING fts5(CONTENT, content='RAG_CHUNK', content_rowid='CHUNK_ID')")
    rng = random.Random(34)
    conn.execute("BEGIN")
    for chunk_id in range(1, chunks + 1):
        kind = rng.choices(("task", "doc", "sprint", "project"), (80, 12, 5, 3))[0]
        owner = rng.randint(1, DEVELOPERS) if kind in ("task", "doc") and rng.random() < 0.9 else None
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(90, 220)))
        if kind == "task":
            text = f"{COMMON} {text}"
        conn.execute("INSERT INTO RAG_CHUNK VALUES (?, ?, ?, ?, ?)", (chunk_id, kind, owner, text, len(text)))
    conn.execute("INSERT INTO RAG_FTS (RAG_FTS) VALUES ('rebuild')")
    conn.execute("CREATE INDEX RAG_CHUNK_STATS_IDX ON RAG_CHUNK (SOURCE_TYPE, OWNER_EMPLOYEE_ID, CONTENT_CHARS)")
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    return conn


def totals(cur: SqliteCursor, caller: Caller, before: bool) -> tuple:
    """N and the mean length: AVG(LENGTH(CONTENT)) before V20, AVG(CONTENT_CHARS) after."""
    text, binds = sql.text_statistics(caller)
    cur.execute(text.replace("AVG(CONTENT_CHARS)", "AVG(LENGTH(CONTENT))") if before else text, binds)
    return cur.fetchone()


def term_counts(cur: SqliteCursor, caller: Caller, terms: list[str]) -> None:
    """n(t) per term, uncached (the statement did not change)."""
    text, binds = sql.text_term_rows(caller)
    for term in terms:
        cur.execute(text, {**binds, "tq": oracle_search.braced(term)})


def timed(action, rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        out.append((time.perf_counter() - started) * 1000)
    return sorted(out)


def percentile(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def plan(conn: apsw.Connection, caller: Caller) -> str:
    text, binds = sql.text_statistics(caller)
    return "; ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + text, binds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--no-markdown", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        conn = build(f"{tmp}/bench.db", args.chunks)
        print(f"built {args.chunks} chunks in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        cur = SqliteCursor(conn)
        terms = [COMMON, *RARE]
        rows = []
        for who, caller in (("manager", Caller(1, Role.MANAGER)), ("developer", Caller(7, Role.DEVELOPER))):
            print(f"{who} plan (after): {plan(conn, caller)}", file=sys.stderr)
            cache = TextStatisticsCache()
            oracle_search._visible_statistics(cur, caller, terms, cache)  # fill it
            assert totals(cur, caller, True)[0] == totals(cur, caller, False)[0]  # the same N either way
            figures: dict[str, list[float]] = {"before": [], "after": [], "terms": [], "cached": []}
            for _ in range(args.rounds):  # interleaved: the same machine noise for all of them
                figures["before"] += timed(lambda: totals(cur, caller, True), 1)
                figures["after"] += timed(lambda: totals(cur, caller, False), 1)
                figures["terms"] += timed(lambda: term_counts(cur, caller, terms), 1)
                figures["cached"] += timed(lambda: oracle_search._visible_statistics(cur, caller, terms, cache), 1)
            p50 = {k: percentile(sorted(v), 0.5) for k, v in figures.items()}
            uncached_before, uncached_after = p50["before"] + p50["terms"], p50["after"] + p50["terms"]
            print(f"{who}: N/avgdl p50 {p50['before']:.2f} -> {p50['after']:.2f} ms; 3 term counts {p50['terms']:.2f} ms;"
                  f" a search's statistics {uncached_before:.2f} -> {uncached_after:.2f} ms uncached, "
                  f"{p50['cached']:.4f} ms cached")
            rows.append(f"| {dt.date.today().isoformat()} | Oracle text-arm statistics, the same design on SQLite "
                        f"(REVIEW-4 W1), {who}, 3 terms (1 in 80% of chunks) | {args.chunks} chunks | N+avgdl "
                        f"AVG(LENGTH(CONTENT)) / AVG(CONTENT_CHARS) p50 ms; + term counts; cached | "
                        f"{p50['before']:.2f} / {p50['after']:.2f}; +{p50['terms']:.2f}; {p50['cached']:.4f} | "
                        f"plan after: {plan(conn, caller)[:90]} | per search {uncached_before:.2f} -> "
                        f"{p50['cached']:.4f} ms ({uncached_before / max(p50['cached'], 1e-9):.0f}×) |")
        if not args.no_markdown:
            append_rows(rows)


if __name__ == "__main__":
    main()
