"""``ragctl members add|remove|list`` over the real SQLite engine."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli
from tests.support import employee, project


@pytest.fixture
def run(sqlite_settings, sqlite_engine):
    def invoke(*args):
        return CliRunner().invoke(cli, list(args), obj=CliEnv(sqlite_settings, sqlite_engine), catch_exceptions=False)

    return invoke


def test_add_list_and_remove(run, sqlite_engine):
    ana, bob = employee(sqlite_engine, "Ana", "Ruiz"), employee(sqlite_engine, "Bob", "Stone")
    pay = project(sqlite_engine, "Payments Platform")
    added = run("members", "add", str(pay), str(ana))
    assert added.exit_code == 0 and f"employee {ana} is a member of project {pay} since" in added.stdout
    assert run("members", "add", str(pay), str(bob), "--source", "jira").exit_code == 0
    listed = run("members", "list", str(pay), "--json")
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(r["employee_id"], r["source"]) for r in rows] == [(ana, "manual"), (bob, "jira")]
    removed = run("members", "remove", str(pay), str(bob))
    assert removed.exit_code == 0 and "is no longer a member" in removed.stdout
    assert "was not a member" in run("members", "remove", str(pay), str(bob)).stdout
    assert [line.split("\t")[0] for line in run("members", "list", str(pay)).stdout.splitlines()] == [str(ana)]


def test_unknown_ids_and_sources_fail_with_one_line(run, sqlite_engine):
    ana = employee(sqlite_engine, "Ana", "Ruiz")
    pay = project(sqlite_engine, "Payments Platform")
    for args in (("add", "999", str(ana)), ("add", str(pay), "999"), ("remove", "999", str(ana)), ("list", "999")):
        result = run("members", *args)
        assert result.exit_code == 1 and "unknown" in result.output and "Traceback" not in result.output
    assert run("members", "add", str(pay), str(ana), "--source", "ldap").exit_code == 2
    assert sqlite_engine.project_members(pay, limit=10).total == 0
