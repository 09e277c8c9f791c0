#!/usr/bin/env python
"""Peak memory of the indexing worker for one 100,000-character document, in three shapes.

Each shape runs in a fresh process (the worker, as `ragctl worker` runs it: the SQLite engine with
the in-process MiniLM), so one shape's allocations cannot hide in another's. The process loads the
model and indexes one short document first; that resident size is its baseline. The kernel's
peak-RSS mark (VmHWM) is then reset (``/proc/self/clear_refs``, value 5) and the long document is
written and drained; the figure is the new peak minus the baseline.

Shapes: English prose (sentences and paragraphs), CJK (one unbroken run of ideographs: a word piece
per character and no boundary to cut at) and one-character lines (50,000 lines of "x").
Target (issue 20): every shape within +200 MB of the baseline.

Usage: .venv/bin/python scripts/bench_long_text.py [--chars 100000] [--label after]
Writes docs/bench/bench_long_text[_<label>].json and appends rows to docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPES = ("prose", "cjk", "one_char_lines")
TARGET_MB = 200
PROSE = ("The payroll export failed again after the quarterly close, and the on-call engineer traced it to a "
         "timeout in the currency conversion service. ")


def text_of(shape: str, chars: int) -> str:
    if shape == "prose":
        paragraph = PROSE * 6 + "\n\n"
        return (paragraph * (chars // len(paragraph) + 1))[:chars]
    if shape == "cjk":
        ideographs = "工资导出在季度结算后再次失败值班工程师追踪到货币转换服务超时"
        return (ideographs * (chars // len(ideographs) + 1))[:chars]
    return ("x\n" * (chars // 2 + 1))[:chars]


def _status(field: str) -> int:
    """A VmRSS/VmHWM line of /proc/self/status, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def measure(shape: str, chars: int) -> dict:
    """Runs in the child process: baseline, reset the peak, index the document, read the peak."""
    from app.config import Settings
    from app.engines.sqlite.engine import SQLiteEngine
    from app.entities import DOCUMENTS
    from app.worker import Worker

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp}/long.db", run_worker=False)
        engine = SQLiteEngine.open(settings)
        try:
            engine.migrate()
            worker = Worker(engine, settings)
            engine.create(DOCUMENTS, {"TITLE": "warm-up", "BODY": PROSE})
            worker.run_once()  # the model is loaded and has run: a started worker
            baseline = _status("VmRSS")
            Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
            engine.create(DOCUMENTS, {"TITLE": f"long {shape}", "BODY": text_of(shape, chars)})
            started = time.perf_counter()
            result = worker.run_once()
            seconds = time.perf_counter() - started
            peak = _status("VmHWM")
            (chunks,) = engine.conn.execute("SELECT COUNT(*) FROM RAG_CHUNK WHERE SOURCE_TYPE = 'doc'").fetchone()
        finally:
            engine.close()
    if result.failed:
        raise RuntimeError(f"indexing failed: {result.errors}")
    return {"shape": shape, "chars": chars, "chunks": chunks - 1, "seconds": round(seconds, 2),
            "baseline_mb": round(baseline / 2**20, 1), "peak_mb": round(peak / 2**20, 1),
            "delta_mb": round((peak - baseline) / 2**20, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=100_000)
    parser.add_argument("--label", default="", help="suffix of the JSON file (e.g. before / after)")
    parser.add_argument("--child", choices=SHAPES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.chars)))
        return

    from benchmarks_md import append_rows, save_result

    runs = []
    for shape in SHAPES:  # a fresh process each
        out = subprocess.run([sys.executable, __file__, "--child", shape, "--chars", str(args.chars)],
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]))
    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "label": args.label,
              "target_delta_mb": TARGET_MB, "runs": runs}
    name = "bench_long_text" + (f"_{args.label}" if args.label else "") + ".json"
    save_result(ROOT / "docs" / "bench" / name, result)
    append_rows([
        f"| {dt.date.today()} | indexing one long document ({r['shape']}{', ' + args.label if args.label else ''}) "
        f"| {r['chars']} chars, {r['chunks']} chunks | worker peak RSS over baseline MB | {r['delta_mb']} "
        f"| baseline {r['baseline_mb']} MB, {r['seconds']} s | target ≤ +{TARGET_MB} MB |"
        for r in runs
    ])
    sys.exit(0 if all(r["delta_mb"] <= TARGET_MB for r in runs) else 1)


if __name__ == "__main__":
    main()
