"""Issue 33, finding 8, replayed into the real SQLite engine: an import queues one row per entity (a task and its
comments, links and sprints queue the task once), and the import's indexing tells the truth when another worker
(a `ragctl serve` on the same file) holds the drain."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections import Counter

from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.engines.sqlite.drain_lock import DrainLock
from app.engines.sqlite.engine import SQLiteEngine
from app.entities import COMMENTS, TASKS
from app.sources import jira
from app.sources.pipeline import import_issues
from app.worker import Worker
from tests.sources import jira_data
from tests.sources.test_sync import rows
from tests.support import peek_queue

SITE = "jira:https://acme.atlassian.net"


def tracker_with_threads(n_issues: int = 20, n_comments: int = 6) -> list[dict]:
    issues = []
    for n in range(1, n_issues + 1):
        comments = [jira_data.comment(n * 100 + c, ("mia", "emma", "chen")[c % 3], f"note {c} on {n}", n + c)
                    for c in range(n_comments)]
        links = [jira_data.blocks(f"PAY-{n + 1}")] if n < n_issues else []
        issues.append(jira_data.issue(f"PAY-{n}", f"issue {n}", minutes=n, assignee="chen", comments=comments,
                                      links=links, sprint=jira_data.sprint_object(7, "PAY Sprint 7")))
    return issues


def test_an_import_queues_each_entity_once(sqlite_engine):
    raw = tracker_with_threads()
    counts = import_issues(sqlite_engine, SITE, [jira.issue_of(i) for i in raw], page_size=7)
    assert counts.created == 20 and len(rows(sqlite_engine, COMMENTS)) == 120
    queued = Counter((r.source_type, r.source_id) for r in peek_queue(sqlite_engine))
    assert queued and max(queued.values()) == 1, [k for k, v in queued.items() if v > 1][:5]
    tasks = {("task", t["task_id"]) for t in rows(sqlite_engine, TASKS)}
    assert tasks <= set(queued)  # every task is queued (once), as are its sprint and project
    assert len(queued) == 20 + 1 + 1  # 20 tasks, the sprint, the project: 22 rows for 22 entities (was 180+)


def test_the_import_follows_another_worker_that_holds_the_drain(tmp_path, sqlite_settings, sqlite_engine, embedder,
                                                                monkeypatch):
    export = tmp_path / "export"
    export.mkdir()
    (export / "page.json").write_text(json.dumps({"issues": tracker_with_threads(8, 2)}))
    serve = SQLiteEngine.open(sqlite_settings, embedder=embedder)  # the server's engine on the same file
    try:
        assert serve.drain_lock.acquire()  # its worker is busy: it holds the drain
        lock = sqlite_engine.drain_lock
        monkeypatch.setattr(lock, "acquire", functools.partial(DrainLock.acquire, lock, 0.2))

        def server_drains_later() -> None:
            time.sleep(1.5)
            Worker(serve, sqlite_settings).run_once()  # joins its own hold: drains everything
            serve.drain_lock.release()

        thread = threading.Thread(target=server_drains_later)
        thread.start()
        result = CliRunner().invoke(cli, ["import", "jira", str(export), "--source", "https://acme.atlassian.net"],
                                    obj=CliEnv(sqlite_settings, sqlite_engine))
        thread.join()
        assert result.exit_code == 0, result.output
        assert "indexed: 10 entities" in result.output  # 8 tasks, the sprint, the project: followed to the end
        assert peek_queue(sqlite_engine) == []
    finally:
        serve.close()


def test_a_queue_nobody_moves_is_said_not_passed_off_as_indexed(tmp_path, sqlite_settings, sqlite_engine, embedder,
                                                                monkeypatch):
    from app.cli import sources

    export = tmp_path / "export"
    export.mkdir()
    (export / "page.json").write_text(json.dumps({"issues": tracker_with_threads(3, 1)}))
    serve = SQLiteEngine.open(sqlite_settings, embedder=embedder)
    try:
        assert serve.drain_lock.acquire()  # a worker that holds the drain and never moves
        lock = sqlite_engine.drain_lock
        monkeypatch.setattr(lock, "acquire", functools.partial(DrainLock.acquire, lock, 0.2))
        monkeypatch.setattr(sources, "_index", functools.partial(sources._index, patience_s=1.0))
        result = CliRunner().invoke(cli, ["import", "jira", str(export), "--source", "https://acme.atlassian.net"],
                                    obj=CliEnv(sqlite_settings, sqlite_engine))
        assert result.exit_code == 0, result.output
        assert "5 entities still queued" in result.output and "indexed:" not in result.output
        serve.drain_lock.release()
    finally:
        serve.close()
