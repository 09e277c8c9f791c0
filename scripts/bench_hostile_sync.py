"""Hostile trackers against one sync pass (issue 33): does every pass end within its bounds, in memory and time?

Each scenario runs one pass in a child process (SQLite in a temporary folder, the settings' default bounds except
the pass budget, ``--budget``) against a loopback server in this process, and measures the child's peak RSS over
its idle RSS (engine open, before the pass), sampled from /proc every 20 ms, and the pass's wall time:
  * jira-comments-endless: a Jira v2 issue whose /comment pages answer ``total: 1e9`` with fresh comments for ever;
  * jira-comments-repeat: the same, ignoring ``startAt`` (the same page every time);
  * jira-token-repeat: a Jira v3 search naming the same ``nextPageToken`` on every page (100 issues a page);
  * github-link-endless: a GitHub listing whose every page links to a fresh next page (100 issues a page);
  * github-comments-endless: one GitHub issue whose comment pages link on for ever;
  * huge-response: a 300 MB answer to the first request.
Each scenario has the ending it must have (``EXPECTED``): most end by a bound (a ``SourceBoundError``); since the
per-issue comment cap keeps an issue's first RAG_SYNC_MAX_COMMENTS_PER_ISSUE comments instead of ending the pass,
an issue with endless fresh comments (jira-comments-endless, github-comments-endless) is written with its first
ones (a warning names it) and the pass ends normally; a comment page that repeats still ends the pass (no progress). Writes docs/bench/bench_hostile_sync.json and a
line in docs/BENCHMARKS.md. Run once: ``python scripts/bench_hostile_sync.py``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from benchmarks_md import append_rows, save_result  # noqa: E402

SCENARIOS = ("jira-comments-endless", "jira-comments-repeat", "jira-token-repeat", "github-link-endless",
             "github-comments-endless", "huge-response")
LIMIT_MIB = 150
# How each pass must end: "bound" (a SourceBoundError names the bound), or "capped" (no error: the issue is written
# with its first RAG_SYNC_MAX_COMMENTS_PER_ISSUE comments and a warning names it).
EXPECTED = {"jira-comments-endless": "capped", "jira-comments-repeat": "bound", "jira-token-repeat": "bound",
            "github-link-endless": "bound", "github-comments-endless": "capped", "huge-response": "bound"}


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def child(scenario: str, url: str, db: str, budget: float) -> None:
    """One pass of the scenario's source; prints its figures as JSON."""
    import gc
    import sqlite3

    from pydantic import SecretStr

    from app.config import Settings
    from app.engines import open_engine
    from app.sources import configured, passes, report

    update = {"database_url": f"sqlite:///{db}", "sync_pass_budget_s": budget, "sync_max_retries": 0}
    if scenario.startswith("jira") or scenario == "huge-response":
        update.update(jira_url=url, jira_projects="PAY", **(
            {"jira_email": "bot@example.com", "jira_api_token": SecretStr("api-secret")}
            if scenario == "jira-token-repeat" else {"jira_pat": SecretStr("pat-secret")}))
    else:
        update.update(github_api_url=url, github_token=SecretStr("ghp-secret"), github_repos="octo-org/octo-repo")
    settings = Settings(_env_file=None, **update)
    warnings = _Warnings()
    logging.getLogger("app.sources").addHandler(warnings)
    engine = open_engine(settings)
    engine.migrate()
    gc.collect()
    idle, peak, done = rss_mib(), [0.0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib())
            time.sleep(0.02)

    threading.Thread(target=sample, daemon=True).start()
    name, build = next(iter(configured.source_builders(settings).items()))
    started, error, written = time.monotonic(), None, None
    try:
        written = passes.run_reported(engine, build(), overlap=configured.overlap(settings), reconcile=False).summary()
    except Exception as exc:  # the bound that ended the pass: what this bench wants to see
        error = f"{type(exc).__name__}: {exc}"
    wall = time.monotonic() - started
    done.set()
    peak[0] = max(peak[0], rss_mib())
    last = report.last_passes(engine).get(name, {})
    engine.close()
    with sqlite3.connect(db) as conn:
        comments = conn.execute("SELECT COUNT(*) FROM COMMENTS").fetchone()[0]
    print(json.dumps({"scenario": scenario, "idle_rss_mib": round(idle, 1), "peak_rss_mib": round(peak[0], 1),
                      "over_idle_mib": round(peak[0] - idle, 1), "wall_s": round(wall, 2), "budget_s": budget,
                      "error": error, "written": written or last.get("summary"), "comments_stored": comments,
                      "cap_warnings": warnings.capped, "first_cap_warning": warnings.first}))


class _Warnings(logging.Handler):
    """Counts the comment cap's warnings (the first one kept as said)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.capped, self.first = 0, None

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "RAG_SYNC_MAX_COMMENTS_PER_ISSUE" in message:
            self.capped += 1
            self.first = self.first or message


def ended_as_expected(r: dict) -> bool:
    """Whether a scenario's pass ended as EXPECTED says, within its budget and the memory limit."""
    if EXPECTED[r["scenario"]] == "capped":
        ended = r["error"] is None and r["cap_warnings"] >= 1 and r["comments_stored"] >= 1
    else:
        ended = bool(r["error"]) and "Bound" in r["error"]
    return ended and r["over_idle_mib"] <= LIMIT_MIB and r["wall_s"] <= r["budget_s"] + 5


def serve(scenario: str):
    """The hostile server of a scenario (a context manager with ``.url``)."""
    from tests.sources.fake_hostile import HostileJira, Reply, ScriptedServer, endless, endless_github_route, seeded

    if scenario == "jira-comments-endless":
        return seeded(HostileJira("2", "comments_endless", embedded_comments=2), 1, comments=3)
    if scenario == "jira-comments-repeat":
        return seeded(HostileJira("2", "comments_repeat", embedded_comments=2), 1, comments=3)
    if scenario == "jira-token-repeat":
        return seeded(HostileJira("3", "repeat_token"), 250, comments=0)
    if scenario == "huge-response":
        return ScriptedServer(lambda p, q, s: Reply(200, {"Content-Type": "application/json"},
                                                    endless(b'"' + b"x" * 65534 + b'",')))
    return ScriptedServer(endless_github_route(comments=scenario == "github-comments-endless"))


def run(scenario: str, budget: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp, serve(scenario) as server:
        out = subprocess.run([sys.executable, __file__, "--child", scenario, server.url, f"{tmp}/rag.db",
                              str(budget)], capture_output=True, text=True, cwd=ROOT, timeout=budget * 3 + 120)
        if out.returncode != 0:
            raise RuntimeError(f"{scenario}: {out.stderr[-2000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=60.0, help="RAG_SYNC_PASS_BUDGET_S of each pass")
    parser.add_argument("--out", default=str(ROOT / "docs/bench/bench_hostile_sync.json"))
    parser.add_argument("--child", nargs=4, metavar=("SCENARIO", "URL", "DB", "BUDGET"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        scenario, url, db, budget = args.child
        child(scenario, url, db, float(budget))
        return
    results = [run(s, args.budget) for s in SCENARIOS]
    for r in results:
        print(json.dumps(r), flush=True)
    worst = max(r["over_idle_mib"] for r in results)
    longest = max(r["wall_s"] for r in results)
    for r in results:
        r["expected"], r["as_expected"] = EXPECTED[r["scenario"]], ended_as_expected(r)
    result = {"date": dt.date.today().isoformat(), "budget_s": args.budget, "limit_over_idle_mib": LIMIT_MIB,
              "worst_over_idle_mib": worst, "longest_wall_s": longest,
              "all_as_expected": all(r["as_expected"] for r in results), "scenarios": results}
    save_result(Path(args.out), result)
    capped = sum(EXPECTED[s] == "capped" for s in SCENARIOS)
    append_rows([f"| {result['date']} | hostile sync passes (loopback Jira v2/v3, GitHub; default bounds, pass budget "
                 f"{args.budget:g} s) | {len(results)} scenarios | worst peak RSS over idle / longest pass | "
                 f"{worst:.1f} MiB / {longest:.1f} s | ≤ {LIMIT_MIB} MiB / ≤ budget; every pass ended as expected "
                 f"({len(results) - capped} by a bound, {capped} by the comment cap keeping an issue's first comments): "
                 f"{result['all_as_expected']} | - |"])


if __name__ == "__main__":
    main()
