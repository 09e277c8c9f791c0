"""ragctl erase-employee (and --resume) over the real SQLite engine."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.entities import DOCUMENTS, EMPLOYEES
from tests.support import comment, document, employee, task


@pytest.fixture
def run(sqlite_settings, sqlite_engine):
    def invoke(*args):
        return CliRunner().invoke(cli, list(args), obj=CliEnv(sqlite_settings, sqlite_engine), catch_exceptions=False)

    return invoke


@pytest.fixture
def ana(sqlite_engine):
    ana = employee(sqlite_engine, "Zorbalina", "Quixotewick")
    t = task(sqlite_engine, "Fix login", assignee_id=ana)
    comment(sqlite_engine, t, "Flibbertigibbet", author_id=ana)
    document(sqlite_engine, "Hyperborean plan", "Souffle", owner_id=ana)
    return ana


def test_erase_employee_prints_the_proof_and_exits_zero(run, sqlite_engine, ana):
    result = run("erase-employee", str(ana), "--delete-documents")
    assert result.exit_code == 0, result.output
    assert "searched for: full name [" in result.stdout and ", as whole words" in result.stdout
    assert "not searched: comment #1 body: shorter than 24 characters" in result.stdout
    assert "proof: full name [" in result.stdout and "in raw bytes of rag.db: not found" in result.stdout
    assert "bytes of the person's strings left in the database files: 0" in result.stdout
    assert result.stdout.rstrip().endswith("PROVEN: no erased string remains outside the tracker's own data")
    assert "Zorbalina" not in result.stdout and sqlite_engine.get(EMPLOYEES, ana) is None
    assert [line for line in result.stderr.splitlines() if line.startswith("step ")] == [
        f"step {step}: done" for step in ("delete", "reindex", "redact", "purge", "compact", "prove", "forget")]


def test_erase_employee_json_and_reassign(run, sqlite_engine, ana):
    boss = employee(sqlite_engine, "Mia", "Boss", role="MANAGER")
    result = run("erase-employee", str(ana), "--reassign-documents-to", str(boss), "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["ok"] is True and len(body["erased"]["documents_reassigned"]) == 1
    assert sqlite_engine.list_records(DOCUMENTS, [], None, 10).items[0]["owner_employee_id"] == boss


def test_erase_employee_refuses_without_a_document_flag(run, sqlite_engine, ana):
    result = run("erase-employee", str(ana))
    assert result.exit_code == 1
    assert "--delete-documents or --reassign-documents-to OTHER_ID" in result.output
    assert sqlite_engine.get(EMPLOYEES, ana) is not None


def test_erase_employee_bad_input(run, ana):
    both = run("erase-employee", str(ana), "--delete-documents", "--reassign-documents-to", "2")
    assert both.exit_code == 1 and "choose one" in both.output
    assert run("erase-employee", "999999", "--delete-documents").exit_code == 1
    assert run("erase-employee", "0").exit_code == 2  # click's own range check


def test_erase_employee_exits_non_zero_when_a_string_is_still_found_and_resume_finishes_it(run, sqlite_engine, ana):
    # A chunk of a task that no longer exists names her: nothing the erasure does reaches it.
    sqlite_engine.conn.execute("INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, CONTENT_HASH, "
                               "AUDIENCE) VALUES ('task', 999, 0, 'boom while indexing Zorbalina Quixotewick', 'x', -1)")
    result = run("erase-employee", str(ana), "--delete-documents")
    assert result.exit_code == 1
    assert "proof: full name [" in result.stdout and "in chunk table RAG_CHUNK: found - RAG_CHUNK.CONTENT" in result.stdout
    assert "erasure NOT proven: full name" in result.output and "Quixotewick" not in result.output
    assert f"ragctl erase-employee {ana} --resume" in result.output
    assert f"erasure:  employee {ana} stopped after step delete (not proven)" in run("status").stdout
    again = run("erase-employee", str(ana), "--delete-documents")  # not a second start
    assert again.exit_code == 1 and "--resume" in again.output
    sqlite_engine.conn.execute("DELETE FROM RAG_CHUNK WHERE SOURCE_ID = 999")
    resumed = run("erase-employee", str(ana), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "job: finished (proven); this run: reindex, redact, purge, compact, prove, forget" in resumed.stdout
    assert "erasure:" not in run("status").stdout


def test_resume_takes_no_document_flags_and_needs_a_started_erasure(run, ana):
    assert run("erase-employee", str(ana), "--resume", "--delete-documents").exit_code == 2
    nothing = run("erase-employee", str(ana), "--resume")
    assert nothing.exit_code == 1 and "no erasure of employee" in nothing.output and "without --resume" in nothing.output
