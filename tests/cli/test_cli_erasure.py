"""ragctl erase-employee over the real SQLite engine."""

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
    assert "proof: first name [" in result.stdout and "in raw bytes of rag.db: not found" in result.stdout
    assert result.stdout.rstrip().endswith("PROVEN: no erased string remains outside the tracker's own data")
    assert "Zorbalina" not in result.stdout and sqlite_engine.get(EMPLOYEES, ana) is None


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


def test_erase_employee_exits_non_zero_when_a_string_is_still_found(run, sqlite_engine, ana):
    # A stuck queue row whose error message quotes the employee: the drain leaves it (past max
    # attempts), so the last name is still in RAG_DIRTY.LAST_ERROR and the proof must say so.
    sqlite_engine.conn.execute("INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION, ATTEMPTS, LAST_ERROR) "
                               "VALUES ('task', 999, 'UPSERT', 99, 'boom while indexing Quixotewick')")
    result = run("erase-employee", str(ana), "--delete-documents")
    assert result.exit_code == 1
    assert "proof: last name [" in result.stdout and "in queue RAG_DIRTY: found - RAG_DIRTY.LAST_ERROR" in result.stdout
    assert "erasure NOT proven: last name" in result.output and "Quixotewick" not in result.output
