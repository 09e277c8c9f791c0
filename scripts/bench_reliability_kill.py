#!/usr/bin/env python
"""Nothing is lost when the worker is killed: SIGKILL `ragctl worker` mid-drain, again and again.

It seeds the demo data into a temporary SQLite database and leaves all of it queued, starts
`ragctl worker` as a separate process, waits until the chunk table has moved (so the kill lands
mid-drain), makes a few writes of its own (task edits, new comments and tasks, deletes, a sprint
rename) racing the worker, SIGKILLs it (odd kills at a random moment, even ones while it holds the
write lock of a batch), writes again while it is down, restarts it, and repeats. Then one
`ragctl worker --once` drains what is left, and scripts/reliability_verdict.py compares the database
with what a fresh index of the current source rows would hold.

The test tests/reliability/test_worker_sigkill.py runs the same functions with 3 kills.
Writes docs/bench/bench_reliability_kill.json and appends rows to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_reliability_kill.py [--kills 12] [--tasks 300] [--seed 7]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import demo_data  # noqa: E402
from app.config import Settings  # noqa: E402
from app.engines.sqlite.engine import SQLiteEngine  # noqa: E402
from app.entities import COMMENTS, DOCUMENTS, SPRINTS, TASKS  # noqa: E402
from app.services.demo import seed  # noqa: E402
from scripts.reliability_verdict import verify  # noqa: E402

RAGCTL = str(Path(sys.executable).with_name("ragctl"))
STATUSES = ["TODO", "IN_PROGRESS", "IN_REVIEW", "DONE"]


@dataclass
class Kill:
    at_s: float  # since the first worker started
    chunks: int  # RAG_CHUNK rows just before the kill
    queued: int  # RAG_DIRTY rows just before the kill (> 0: the queue was not drained yet)
    in_commit: bool  # the worker held the write lock (its batch's transaction) when the kill was sent
    rolled_back: bool  # ... and none of that transaction is visible after the kill


@dataclass
class KillRun:
    kills: list[Kill] = field(default_factory=list)
    writes: Counter = field(default_factory=Counter)
    deleted: set[tuple[str, int]] = field(default_factory=set)
    touched: set[tuple[str, int]] = field(default_factory=set)  # sources the writes changed
    stale_skips: int = 0  # worker log lines: a batch met a source our writes changed meanwhile
    final_drain_s: float = 0.0


def open_engine(url: str, embedder=None) -> SQLiteEngine:
    """The real engine; without an embedder it loads none unless asked to embed (CRUD needs none)."""
    return SQLiteEngine.open(Settings(database_url=url), embedder=embedder)


def seed_queued(url: str, tasks: int) -> int:
    """Migrate and seed the demo data; everything stays queued. Returns the queue length."""
    engine = open_engine(url)
    try:
        engine.migrate()
        seed(engine, demo_data.build(tasks=tasks))
        return engine.conn.execute("SELECT COUNT(*) FROM RAG_DIRTY").fetchone()[0]
    finally:
        engine.close()


def worker_env(url: str, batch_size: int) -> dict[str, str]:
    return {**os.environ, "RAG_DATABASE_URL": url, "RAG_WORKER_INITIAL_DELAY_MS": "0",
            "RAG_WORKER_DELAY_MS": "50", "RAG_BACKFILL_ON_STARTUP": "false", "RAG_LOG_FORMAT": "text",
            "RAG_BATCH_SIZE": str(batch_size)}


def start_worker(url: str, batch_size: int, log_path: Path) -> subprocess.Popen:
    with log_path.open("ab") as log:  # the child keeps its own copy of the descriptor
        return subprocess.Popen([RAGCTL, "worker"], env=worker_env(url, batch_size),
                                stdout=log, stderr=subprocess.STDOUT)


def progress(conn) -> tuple[int, int, str | None]:
    """(chunks, queued, last chunk write): moves whenever a batch commits."""
    chunks, last = conn.execute("SELECT COUNT(*), MAX(UPDATED_AT) FROM RAG_CHUNK").fetchone()
    return chunks, conn.execute("SELECT COUNT(*) FROM RAG_DIRTY").fetchone()[0], last


def wait_for_progress(engine: SQLiteEngine, worker: subprocess.Popen, timeout_s: float) -> None:
    """Return once a batch of this worker has committed; fail if it died or never did."""
    before = progress(engine.conn)[::2]
    deadline = time.monotonic() + timeout_s
    while progress(engine.conn)[::2] == before:
        if worker.poll() is not None:
            raise RuntimeError(f"the worker exited on its own (code {worker.returncode})")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the worker committed nothing in {timeout_s} s")
        time.sleep(0.02)


class Writer:
    """Random writes through the engine's CRUD, as the API or another client would make them."""

    def __init__(self, engine: SQLiteEngine, rng: random.Random, run: KillRun) -> None:
        self.engine, self.rng, self.run = engine, rng, run

    def ids(self, table: str, pk: str) -> list[int]:
        return [r[0] for r in self.engine.conn.execute(f"SELECT {pk} FROM {table} ORDER BY {pk}")]

    def burst(self, count: int) -> None:
        """The kinds of write take turns, so even a short run makes each kind; their targets are random."""
        ops = [self.edit_task, self.add_comment, self.delete_task, self.add_task, self.rename_sprint, self.delete_doc]
        for _ in range(count):
            ops[sum(self.run.writes.values()) % len(ops)]()

    def edit_task(self) -> None:
        task_id = self.rng.choice(self.ids("TASKS", "TASK_ID"))
        n = sum(self.run.writes.values())
        self.engine.update(TASKS, task_id, {"DESCRIPTION": f"Edited during kill run, write {n}: re-check the "
                                            f"{self.rng.choice(['ledger', 'cache', 'gateway', 'backlog'])}.",
                                            "STATUS": self.rng.choice(STATUSES)})
        self.note("task edited", ("task", task_id))

    def add_comment(self) -> None:
        task_id = self.rng.choice(self.ids("TASKS", "TASK_ID"))
        self.engine.create(COMMENTS, {"TASK_ID": task_id, "BODY": f"Comment {self.rng.random():.6f} while killed"})
        self.note("comment added", ("task", task_id))

    def add_task(self) -> None:
        row = self.engine.create(TASKS, {"TITLE": f"Task born mid-kill {self.rng.random():.6f}", "STATUS": "TODO"})
        self.note("task added", ("task", row["task_id"]))

    def delete_task(self) -> None:
        task_id = self.rng.choice(self.ids("TASKS", "TASK_ID"))
        self.engine.delete(TASKS, task_id)
        self.run.deleted.add(("task", task_id))
        self.note("task deleted", ("task", task_id))

    def delete_doc(self) -> None:
        docs = self.ids("DOCUMENTS", "DOCUMENT_ID")
        if len(docs) <= 2:  # keep a few documents in the index
            return self.edit_task()
        doc_id = self.rng.choice(docs)
        self.engine.delete(DOCUMENTS, doc_id)
        self.run.deleted.add(("doc", doc_id))
        self.note("document deleted", ("doc", doc_id))

    def rename_sprint(self) -> None:
        """A sprint's name is in its tasks' text: the rename queues all of them (the fan-out path)."""
        sprint_id = self.rng.choice(self.ids("SPRINTS", "SPRINT_ID"))
        self.engine.update(SPRINTS, sprint_id, {"NAME": f"Sprint renamed {self.rng.random():.6f}"})
        self.note("sprint renamed", ("sprint", sprint_id))

    def note(self, what: str, source: tuple[str, int]) -> None:
        self.run.writes[what] += 1
        self.run.touched.add(source)


def wait_for_write_lock(path: str, worker: subprocess.Popen, timeout_s: float) -> tuple | None:
    """Spin until the worker holds SQLite's write lock (its batch is being applied); return what
    ``progress`` read just before that transaction began (None: it never came).

    Most of a batch's time is embedding, outside any transaction, so a random kill rarely lands
    inside the commit; this aims every other kill there. BEGIN IMMEDIATE without a busy timeout
    fails at once while another connection writes, and only the worker writes while we spin.
    """
    import apsw

    conn = apsw.Connection(path)
    deadline = time.monotonic() + timeout_s
    before = None
    try:
        while time.monotonic() < deadline and worker.poll() is None:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except apsw.BusyError:
                return before
            before = progress(conn)  # under our lock: the state the worker's next transaction starts from
            conn.execute("ROLLBACK")
        return None
    finally:
        conn.close()


def kill_cycles(url: str, kills: int, rng: random.Random, log_dir: Path, batch_size: int = 8,
                writes_per_burst: int = 3, max_jitter_s: float = 1.0, timeout_s: float = 60) -> KillRun:
    """Start, let a batch commit, write, SIGKILL, write, restart: ``kills`` times. Odd kills come at a
    random moment, even ones while the worker is inside its write transaction."""
    run = KillRun()
    engine = open_engine(url)
    writer = Writer(engine, rng, run)
    started = time.monotonic()
    try:
        for n in range(kills):
            worker = start_worker(url, batch_size, log_dir / f"worker-{n}.log")
            try:
                wait_for_progress(engine, worker, timeout_s)
                writer.burst(writes_per_burst)  # races the batches the worker has in hand
                chunks, queued, _ = progress(engine.conn)
                if n % 2:
                    before_commit = wait_for_write_lock(engine.path, worker, timeout_s)
                else:
                    time.sleep(rng.uniform(0, max_jitter_s))
                    before_commit = None
                if worker.poll() is not None:
                    raise RuntimeError(f"the worker exited on its own (code {worker.returncode})")
                worker.send_signal(signal.SIGKILL)
                worker.wait()
                rolled_back = before_commit is not None and progress(engine.conn) == before_commit
                run.kills.append(Kill(round(time.monotonic() - started, 3), chunks, queued,
                                      before_commit is not None, rolled_back))
            finally:
                worker.kill()
                worker.wait()
            writer.burst(writes_per_burst)  # while no worker runs
    finally:
        engine.close()
    run.stale_skips = sum(p.read_text().count("skipped ") for p in log_dir.glob("worker-*.log"))
    return run


def final_drain(url: str, batch_size: int, log_dir: Path, timeout_s: float = 300) -> float:
    """One worker that is not killed: `ragctl worker --once` drains until the queue is empty."""
    began = time.monotonic()
    with (log_dir / "worker-final.log").open("wb") as log:
        done = subprocess.run([RAGCTL, "worker", "--once"], env=worker_env(url, batch_size),
                              stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s)
    if done.returncode != 0:
        raise RuntimeError(f"the final drain failed: {(log_dir / 'worker-final.log').read_text()[-2000:]}")
    return time.monotonic() - began


# --- one whole run: the test and the benchmark both call this -------------------------------------

def run(workdir: Path, kills: int, tasks: int, seed_: int, embedder, batch_size: int = 8,
        sample: int = 16) -> dict:
    """Seed, kill ``kills`` times, drain with one last worker, verify. Returns the figures."""
    url = f"sqlite:///{workdir}/rag.db"
    began = time.monotonic()
    queued = seed_queued(url, tasks)
    cycles = kill_cycles(url, kills, random.Random(seed_), workdir, batch_size)
    cycles.final_drain_s = final_drain(url, batch_size, workdir)
    engine = open_engine(url, embedder)
    try:
        verdict = verify(engine, embedder, cycles.deleted, cycles.touched, sample, seed_)
    finally:
        engine.close()
    return {
        "kills": len(cycles.kills),
        "kills_mid_drain": sum(k.queued > 0 for k in cycles.kills),
        "kills_in_commit": sum(k.in_commit for k in cycles.kills),
        "commits_rolled_back": sum(k.rolled_back for k in cycles.kills),
        "kill_log": [asdict(k) for k in cycles.kills],
        "queued_at_start": queued,
        "writes": dict(cycles.writes),
        "deleted_sources": len(cycles.deleted),
        "stale_skips_logged": cycles.stale_skips,
        "sources_indexed": verdict.sources,
        "chunks": verdict.chunks,
        "vectors_re_embedded": verdict.vectors_checked,
        "mismatches": len(verdict.problems),
        "problems": verdict.problems[:50],
        "final_drain_s": round(cycles.final_drain_s, 2),
        "wall_s": round(time.monotonic() - began, 2),
    }


def markdown_rows(result: dict) -> list[str]:
    date = result["date"]
    bench = "worker SIGKILL mid-drain (embedded engine, demo data)"
    size = f"{result['kills']} kills, {result['tasks']} tasks, batch {result['batch_size']}"
    writes = sum(result["writes"].values())
    in_commit = (f"{result['kills_in_commit']} sent inside a batch's write transaction "
                 f"({result['commits_rolled_back']} of those rolled back)")
    return [
        f"| {date} | {bench} | {size} | kills survived (mid-drain) | {result['kills']} ({result['kills_mid_drain']}) "
        f"| {in_commit}; {writes} racing writes, {result['deleted_sources']} deletes | - |",
        f"| {date} | {bench} | {size} | sources / chunks indexed | {result['sources_indexed']} / {result['chunks']} "
        f"| {result['vectors_re_embedded']} vectors re-embedded and compared | - |",
        f"| {date} | {bench} | {size} | mismatches with a fresh index | {result['mismatches']} | must be 0 | - |",
        f"| {date} | {bench} | {size} | wall time, s | {result['wall_s']} "
        f"| final drain {result['final_drain_s']} s, verdict included | - |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=12, help="SIGKILLs, each mid-drain [12]")
    parser.add_argument("--tasks", type=int, default=300,
                        help="demo tasks to seed (enough to outlast the kills) [300]")
    parser.add_argument("--batch-size", type=int, default=8, help="RAG_BATCH_SIZE of the worker [8]")
    parser.add_argument("--sample", type=int, default=-1, help="untouched chunks re-embedded and compared; -1: all")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_reliability_kill.json"))
    args = parser.parse_args()

    from app.embedding.onnx_minilm import MiniLMEmbedder
    from scripts.benchmarks_md import append_rows, save_result

    with tempfile.TemporaryDirectory(prefix="rag-kill-") as workdir:
        result = run(Path(workdir), args.kills, args.tasks, args.seed, MiniLMEmbedder(), args.batch_size, args.sample)
    result.update(date=dt.date.today().isoformat(), tasks=args.tasks, batch_size=args.batch_size, seed=args.seed,
                  machine=f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    out = Path(args.out)
    save_result(out, result)
    append_rows(markdown_rows(result))
    print(json.dumps({k: v for k, v in result.items() if k != "kill_log"}, indent=2))
    if result["mismatches"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
