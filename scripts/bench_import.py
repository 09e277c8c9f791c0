#!/usr/bin/env python
"""Import benchmark: 10,000 generated Jira issues with 50,000 comments, read from export files as
``ragctl import jira`` reads them, into a fresh SQLite database.

Figures: the import's wall time and peak RSS (before any embedding: the model is not loaded yet); a second
import of the same files (every row compared, nothing written: created / updated must be 0 and the queue must
not grow); and the time until the imported rows are searchable (the worker drained). Embedding 10,000
long tasks on this 2-core machine takes longer than a session allows, so ``--drain`` drains that many queue
sources (tasks, sprints, projects), and the drain figure is that fraction's time with the rate extrapolated to
every source, labelled so.

The issues are generated (Atlassian's documented shapes, fictional people): 40 people, 4 projects, 20
sprints in both of Jira's sprint forms, wiki markup in bodies, links between issues, 5 comments each on average.

Usage: .venv/bin/python scripts/bench_import.py [--issues 10000] [--comments 50000] [--drain 500]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("refund ledger export timeout login cache invoice payroll deploy rollback token mobile card retry "
         "webhook queue latency migration schema report").split()
STATUSES = (("To Do", "new"), ("In Progress", "indeterminate"), ("In QE Test", "indeterminate"),
            ("Code Review", "indeterminate"), ("Reopened", "indeterminate"), ("Done", "done"))
PRIORITIES = ("Blocker", "Highest", "High", "Major", "Medium", None, "Low", "Minor", "Trivial")


def generate(issues: int, comments: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    people = [{"key": f"JIRAUSER{10100 + i}", "name": f"user{i}", "displayName": f"Person{i} Example{i}",
               "emailAddress": f"user{i}@example.com"} for i in range(40)]
    projects = ["PAY", "MOB", "OPS", "WEB"]
    base = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    per_issue = [0] * issues
    for _ in range(comments):
        per_issue[rng.randrange(issues)] += 1
    out, cid = [], 0
    for n in range(issues):
        project = projects[n % 4]
        key = f"{project}-{n + 1}"
        words = lambda k: " ".join(rng.choice(WORDS) for _ in range(k))  # noqa: E731
        sprint_id = 1 + rng.randrange(20)
        sprint = ({"id": sprint_id, "name": f"Sprint {sprint_id}", "state": rng.choice(["active", "closed", "future"]),
                   "boardId": 1} if n % 2 else
                  f"com.atlassian.greenhopper.service.sprint.Sprint@a1[id={sprint_id},rapidViewId=1,state=ACTIVE,"
                  f"name=Sprint {sprint_id},startDate=2026-01-05T09:00:00.000Z,endDate=2026-01-19T17:00:00.000Z]")
        thread = []
        for c in range(per_issue[n]):
            cid += 1
            thread.append({"id": str(cid), "author": rng.choice(people), "body": f"*{words(3)}* {{{{code}}}} {words(25)}",
                           "created": (base + dt.timedelta(minutes=n * 3 + c)).strftime("%Y-%m-%dT%H:%M:%S.000+0000")})
        links = []
        if n and rng.random() < 0.3:
            target = rng.randrange(n)
            links.append({"type": {"name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
                          "inwardIssue": {"key": f"{projects[target % 4]}-{target + 1}"}})
        status = rng.choice(STATUSES)
        out.append({"id": str(10000 + n), "key": key, "self": f"https://acme.atlassian.net/rest/api/2/issue/{10000 + n}",
                    "fields": {
                        "summary": f"{words(6)} ({key})", "description": f"h2. Context\n{words(60)}\n* {words(5)}",
                        "issuetype": {"name": rng.choice(["Bug", "Story", "Task"])},
                        "status": {"name": status[0], "statusCategory": {"key": status[1]}},
                        "priority": {"name": p} if (p := rng.choice(PRIORITIES)) else None,
                        "assignee": rng.choice(people) if rng.random() < 0.85 else None, "reporter": rng.choice(people),
                        "comment": {"comments": thread, "total": len(thread), "maxResults": len(thread), "startAt": 0},
                        "issuelinks": links, "labels": rng.sample(["backend", "frontend", "infra", "security"], 2),
                        "fixVersions": [{"name": "2026.1"}], "components": [{"name": project.lower()}],
                        "project": {"key": project, "name": f"{project} project"},
                        "customfield_10020": [sprint], "customfield_10016": rng.choice([1, 2, 3, 5, 8, None]),
                        "duedate": (base + dt.timedelta(days=rng.randrange(365))).date().isoformat(),
                        "updated": (base + dt.timedelta(minutes=n * 3 + 2)).strftime("%Y-%m-%dT%H:%M:%S.000+0000")}})
    return out


def write_files(issues: list[dict], folder: Path) -> None:
    for start in range(0, len(issues), 100):
        (folder / f"page-{start // 100:04d}.json").write_text(json.dumps({"issues": issues[start:start + 100]}))


def import_once(engine, folder: Path):
    from app.sources import jira
    from app.sources.pipeline import import_issues

    export = jira.read_export(folder)
    mapped = [jira.issue_of(raw, story_points_field="customfield_10016", projects=export.projects)
              for raw in sorted(export.issues, key=jira.issue_order)]
    return import_issues(engine, "jira:https://acme.atlassian.net", mapped)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--issues", type=int, default=10_000)
    parser.add_argument("--comments", type=int, default=50_000)
    parser.add_argument("--drain", type=int, default=500, help="sources to index for the searchable figure")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench" / "bench_import.json")
    args = parser.parse_args()

    from app.config import Settings
    from app.embedding.tokens import count_tokens
    from app.engines.sqlite.engine import SQLiteEngine
    from app.entities import PROJECTS, SPRINTS, TASKS
    from app.services.indexing import drain
    from benchmarks_md import append_rows, save_result

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "export"
        folder.mkdir()
        write_files(generate(args.issues, args.comments, args.seed), folder)
        engine = SQLiteEngine.open(Settings(database_url=f"sqlite:///{tmp}/import.db"))
        try:
            engine.migrate()
            started = time.perf_counter()
            first = import_once(engine, folder)
            import_s = time.perf_counter() - started
            rss = peak_rss_mb()
            queued = engine.status(5).queue_rows  # rows: what the figures label "queue rows"
            started = time.perf_counter()
            second = import_once(engine, folder)
            second_s = time.perf_counter() - started
            queued_after = engine.status(5).queue_rows
            sources = sum(engine.list_records(entity, [], None, 1).total for entity in (TASKS, SPRINTS, PROJECTS))
            started = time.perf_counter()
            drained = 0
            while drained < min(args.drain, sources):
                result = drain(engine, count_tokens, 32, 5, max_batches=1)
                if not result.claimed:
                    break
                drained += result.sources
            drain_s = time.perf_counter() - started
        finally:
            engine.close()
    rate = drained / drain_s if drain_s else 0.0
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "issues": args.issues,
        "comments": args.comments, "import_s": round(import_s, 1), "peak_rss_mb_import": round(rss, 1),
        "first": {"created": first.created, "updated": first.updated, "unchanged": first.unchanged,
                  "failed": first.failed},
        "second": {"created": second.created, "updated": second.updated, "unchanged": second.unchanged,
                   "failed": second.failed},
        "second_s": round(second_s, 1), "queued": queued, "queued_after_second": queued_after,
        "sources_to_index": sources, "drained_sources": drained, "drain_s": round(drain_s, 1),
        "sources_per_s": round(rate, 2), "searchable_estimate_s": round(sources / rate, 0) if rate else None,
    }
    save_result(args.out, result)
    print(json.dumps(result, indent=2))
    size = f"{args.issues} issues, {args.comments} comments"
    if drained >= sources:  # drained to empty: the figure is measured, not extrapolated
        searchable = (f"| {dt.date.today()} | Jira import, until searchable (worker drained to empty) | all {sources} "
                      f"sources ({queued} queue rows) | s / sources per s | {result['drain_s']} / "
                      f"{result['sources_per_s']} | measured, not extrapolated | - |")
    else:
        searchable = (f"| {dt.date.today()} | Jira import, until searchable (worker drain) | {drained} of {sources} "
                      f"sources ({round(100 * drained / sources, 1) if sources else 0}%; {queued} queue rows) | "
                      f"s / sources per s | {result['drain_s']} / {result['sources_per_s']} | all {sources}: "
                      f"~{result['searchable_estimate_s']} s (extrapolated) | - |")
    append_rows([
        f"| {dt.date.today()} | Jira import from files (SQLite) | {size} | import s / peak RSS MB | "
        f"{result['import_s']} / {result['peak_rss_mb_import']} | {first.created} created, {first.failed} failed | - |",
        f"| {dt.date.today()} | Jira import, second run, same files | {size} | s / created+updated / queue growth | "
        f"{result['second_s']} / {second.created + second.updated} / {queued_after - queued} | must be 0 / 0 | "
        f"{round(second_s / import_s, 2) if import_s else '-'}× first |",
        searchable,
    ])
    sys.exit(0 if second.created + second.updated == 0 and queued_after == queued else 1)


if __name__ == "__main__":
    main()
