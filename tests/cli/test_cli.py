"""ragctl over the real SQLite engine (injected through CliEnv so the test shares one embedder)."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from app import demo_data
from app.cli import CliEnv, cli
from tests.support import peek_queue


@pytest.fixture
def run(sqlite_settings, sqlite_engine):
    def invoke(*args):
        return CliRunner().invoke(cli, list(args), obj=CliEnv(sqlite_settings, sqlite_engine), catch_exceptions=False)

    return invoke


def test_demo_seeds_indexes_and_is_idempotent(run, sqlite_engine):
    first = run("demo", "--tasks", "12")
    assert first.exit_code == 0, first.output
    assert "created 8 employees, 4 projects, 8 sprints, 12 tasks" in first.stdout
    status = json.loads(run("status", "--json").stdout)
    assert status["pending"] == 0 and status["failing"] == 0
    assert status["chunks_by_source_type"] == {"task": 12, "sprint": 8, "project": 4, "doc": 9}
    again = run("demo", "--tasks", "12")
    assert again.exit_code == 0 and "created nothing (already seeded)" in again.stdout
    assert json.loads(run("status", "--json").stdout)["chunks_by_source_type"] == status["chunks_by_source_type"]
    manager = sqlite_engine.caller(1)
    assert manager is not None and manager.role == "MANAGER"


def test_demo_reset_starts_over(run, sqlite_engine):
    assert run("demo", "--tasks", "3").exit_code == 0
    result = run("demo", "--tasks", "5", "--reset")
    assert result.exit_code == 0 and "5 tasks" in result.stdout
    assert json.loads(run("status", "--json").stdout)["chunks_by_source_type"]["task"] == 5


def test_the_real_demo_meets_the_minimum_counts():
    data = demo_data.build()
    assert data == demo_data.build()  # deterministic
    assert len(data.projects) >= 3 and len(data.sprints) >= 6 and len(data.tasks) >= 150
    commented = {c["task"] for c in data.comments}
    assert commented == set(range(len(data.tasks)))  # every task has comments
    assert len({t["title"] for t in data.tasks}) == len(data.tasks)  # the seeder's natural key
    spanish = data.languages["es"] / sum(data.languages.values())
    assert 0.10 <= spanish <= 0.20
    assert data.employees[0]["role"] == "MANAGER"
    assert sum(e["role"] == "DEVELOPER" for e in data.employees) >= 4
    assert sum(e["telegram_id"] is not None for e in data.employees) >= 4
    kinds = {d["doc_type"] for d in data.documents}
    assert {"WIKI", "MEETING_NOTES"} <= kinds
    assert any(d["owner"] is None for d in data.documents) and any(d["owner"] is not None for d in data.documents)
    assert any(t["assignee"] is None for t in data.tasks) and any(t["sprint"] is None for t in data.tasks)


def test_search_json_is_one_object_with_results(run):
    run("demo", "--tasks", "12")
    result = run("search", "login bug", "--as", "1", "--top-k", "4", "--project", "all", "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)  # exactly one JSON document on stdout
    assert body["caller"] == {"employee_id": 1, "role": "MANAGER"} and len(body["results"]) == 4
    for hit in body["results"]:
        assert set(hit) == {"source_type", "source_id", "chunk_ix", "content", "distance"}
    scoped = json.loads(run("search", "sprint goal", "--as", "2", "--source-types", "sprint,project",
                            "--mode", "vector", "--json").stdout)
    assert {h["source_type"] for h in scoped["results"]} <= {"sprint", "project"} and scoped["mode"] == "vector"
    words = json.loads(run("search", "login bug", "--as", "1", "--mode", "lexical", "--top-k", "100", "--json").stdout)
    assert words["mode"] == "lexical" and words["results"]  # only chunks that contain one of the words
    assert all("login" in h["content"].lower() or "bug" in h["content"].lower() for h in words["results"])
    notes = json.loads(run("search", "sync notes", "--as", "1", "--source-types", "task,doc", "--doc-types",
                           "meeting_notes", "--top-k", "100", "--json").stdout)
    meeting_notes = {title for title, *_, kind in demo_data.DOCUMENTS if kind == "MEETING_NOTES"}
    doc_titles = {h["content"].split("\n")[0].split("] ", 1)[1] for h in notes["results"] if h["source_type"] == "doc"}
    assert doc_titles == meeting_notes and {h["source_type"] for h in notes["results"]} == {"task", "doc"}
    human = run("search", "login bug", "--as", "1", "--top-k", "2")
    assert human.exit_code == 0 and "2 result(s) for employee 1 (MANAGER)" in human.stdout


def test_search_errors_exit_non_zero_with_a_hint(run):
    run("demo", "--tasks", "2")
    unknown = run("search", "x", "--as", "99")
    assert unknown.exit_code == 1 and "employee 99 does not exist" in unknown.output and "Hint" in unknown.output
    bad_scope = run("search", "x", "--as", "1", "--project", "moon")
    assert bad_scope.exit_code == 2 and "project must be a positive id" in bad_scope.output
    bad_types = run("search", "x", "--as", "1", "--source-types", "task,nope")
    assert bad_types.exit_code == 2 and "unknown source type" in bad_types.output
    bad_doc_types = run("search", "x", "--as", "1", "--doc-types", "WIKI,no;pe")
    assert bad_doc_types.exit_code == 2 and "document type 'no;pe'" in bad_doc_types.output
    for args in (["--as", str(2**63)], ["--as", "1", "--project", str(2**63)], ["--as", "1", "--sprint", str(2**63)]):
        too_big = run("search", "x", *args)  # past SQLite's INTEGER range: a usage error, not a traceback
        assert too_big.exit_code == 2, too_big.output


def test_backfill_dry_run_changes_nothing_then_backfill_drains(run, sqlite_engine):
    run("demo", "--tasks", "4")
    dry = run("backfill", "--dry-run", "--force", "--source-types", "task,doc")
    assert dry.exit_code == 0 and "would queue 13 row(s)" in dry.stdout
    assert peek_queue(sqlite_engine) == []
    done = run("backfill", "--force", "--source-types", "task", "--project", "1", "--limit", "1")
    assert done.exit_code == 0 and "queued 1 row(s)" in done.stdout and "0 chunk(s) written, 1 unchanged" in done.stdout
    assert peek_queue(sqlite_engine) == []
    assert run("retry").stdout.startswith("released 0 stuck row(s)")


def test_status_human_and_worker_once(run, sqlite_engine):
    from tests.support import task

    task(sqlite_engine, "Drained by the worker command")
    assert "1 entity pending (1 rows" in run("status").stdout
    assert run("worker", "--once").exit_code == 0
    assert "0 entities pending (0 rows" in run("status").stdout


def test_migrate_reads_the_environment(tmp_path):
    env = {"RAG_DATABASE_URL": f"sqlite:///{tmp_path}/fresh.db"}
    first = CliRunner().invoke(cli, ["migrate"], env=env)
    assert first.exit_code == 0 and first.stdout.startswith("applied ")
    assert CliRunner().invoke(cli, ["migrate"], env=env).stdout == "schema is up to date\n"
    bad = CliRunner().invoke(cli, ["status"], env={"RAG_DATABASE_URL": "postgres://x"})
    assert bad.exit_code == 1 and "bad configuration" in bad.output


def test_oracle_commands_refuse_a_sqlite_url(run):
    result = run("oracle", "bootstrap")
    assert result.exit_code == 1 and "oracle://" in result.output


def test_every_command_has_help_with_an_example():
    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    for path, command in walk(cli, []):
        result = CliRunner().invoke(cli, [*path, "--help"])
        assert result.exit_code == 0 and "Example:" in result.output, path
    assert isinstance(cli, click.Group)


def test_scheduler_chatter_stays_out_of_the_log(run):
    """`ragctl serve` logs at INFO: APScheduler's two lines per drain (every 2 s) must not drown it."""
    import logging

    root, scheduler = logging.getLogger(), logging.getLogger("apscheduler")
    saved = root.level, scheduler.level
    root.setLevel(logging.INFO)  # what `serve` and `worker` set
    scheduler.setLevel(logging.NOTSET)
    try:
        run("status")
        assert not logging.getLogger("apscheduler.executors.default").isEnabledFor(logging.INFO)
        assert scheduler.isEnabledFor(logging.WARNING)
    finally:
        root.setLevel(saved[0])
        scheduler.setLevel(saved[1])
