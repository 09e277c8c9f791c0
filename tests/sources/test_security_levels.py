"""Issue 32, "Synced from the tracker": a Jira issue-security level (fields.security) withholds an issue from the
members of its project. Imported for real into the SQLite engine from loopback Jira REST (v2 and v3: the search asks
for the field, and the fake returns only the fields named) and from export files: a pass sets TASKS.RESTRICTED, a
later pass that sees the level removed clears it, and a member of the project sees the issue exactly when it is not
restricted. GitHub has no such level: its issues are never restricted."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.entities import PROJECTS
from app.rag.understanding.query import TrackerQuery
from app.sources import github, jira
from app.sources.pipeline import run_pass
from tests.sources import jira_data
from tests.sources.fake_jira import FakeJira
from tests.sources.test_sync import jira_reader, rows, task_by_key
from tests.support import employee

OVERLAP = dt.timedelta(minutes=2)
LEVEL = {"self": "https://example/rest/api/2/securitylevel/10100", "id": "10100", "name": "Embargoed",
         "description": "Security team only"}


def issues(api: str) -> list[dict]:
    """PAY-1 under a security level, PAY-2 and PAY-3 not."""
    found = [jira_data.issue(f"PAY-{n}", f"Refund issue {n}", api=api, minutes=10 * n, assignee="chen")
             for n in (1, 2, 3)]
    found[0]["fields"]["security"] = dict(LEVEL)
    return found


def restricted(engine) -> dict[str, bool]:
    ids = {task_by_key(engine, f"PAY-{n}")["task_id"]: f"PAY-{n}" for n in (1, 2, 3)}
    return {ids[i]: r.restricted for i, r in engine.load_records("task", list(ids)).items()}


def member_of_pay(engine) -> int:
    """A member of PAY under the project rule, assigned none of its issues."""
    engine.access_rule = "project"
    ana = employee(engine, "Ana", "Member")
    pay = next(p["project_id"] for p in rows(engine, PROJECTS) if p["external_key"] == "PAY")
    engine.put_project_member(pay, ana, "manual")
    return ana


def seen(engine, member: int) -> list[str]:
    """The keys the member lists (the typed query)."""
    listed = engine.run_tracker_query(engine.caller(member), TrackerQuery(returns="list")).rows
    return sorted(r["external_key"] for r in listed)


def set_level(issue: dict, level: dict | None, minutes: int) -> None:
    issue["fields"]["security"] = level
    issue["fields"]["updated"] = jira_data.stamp(minutes)


@pytest.mark.parametrize("api", ["2", "3"])
def test_a_rest_pass_sets_the_flag_from_the_level_and_a_later_pass_clears_it(api, sqlite_engine):
    with FakeJira(api) as fake:
        for issue in issues(api):
            fake.put(issue)
        first = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (first.created, first.failed) == (3, 0)
        assert any("security" in query.get("fields", [""])[0] for path, query in fake.requests
                   if path.endswith("/search") or path.endswith("/search/jql"))
        assert restricted(sqlite_engine) == {"PAY-1": True, "PAY-2": False, "PAY-3": False}
        ana = member_of_pay(sqlite_engine)
        assert seen(sqlite_engine, ana) == ["PAY-2", "PAY-3"]
        again = run_pass(sqlite_engine, jira_reader(fake), overlap=dt.timedelta(days=1), reconcile=True)
        assert (again.created, again.updated, again.unchanged) == (0, 0, 3)

        set_level(fake.issues["PAY-1"], None, 100)  # the level removed in the tracker
        set_level(fake.issues["PAY-2"], dict(LEVEL, id="10101", name="Staff"), 101)
        counts = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (counts.created, counts.updated, counts.failed) == (0, 2, 0)
        assert restricted(sqlite_engine) == {"PAY-1": False, "PAY-2": True, "PAY-3": False}
        assert seen(sqlite_engine, ana) == ["PAY-1", "PAY-3"]


def test_the_file_import_sets_and_clears_the_flag(tmp_path, sqlite_settings, sqlite_engine):
    export = tmp_path / "export"
    export.mkdir()
    found = issues("2")
    for issue in found:
        (export / f"{issue['key']}.json").write_text(json.dumps(issue))
    run = lambda *a: CliRunner().invoke(cli, list(a), obj=CliEnv(sqlite_settings, sqlite_engine))  # noqa: E731
    first = run("import", "jira", str(export), "--source", "https://acme.atlassian.net")
    assert first.exit_code == 0, first.output
    assert restricted(sqlite_engine) == {"PAY-1": True, "PAY-2": False, "PAY-3": False}
    ana = member_of_pay(sqlite_engine)
    assert seen(sqlite_engine, ana) == ["PAY-2", "PAY-3"]
    set_level(found[0], None, 100)
    (export / "PAY-1.json").write_text(json.dumps(found[0]))
    second = run("import", "jira", str(export), "--source", "https://acme.atlassian.net")
    assert second.exit_code == 0 and "1 updated" in second.output, second.output
    assert restricted(sqlite_engine) == {"PAY-1": False, "PAY-2": False, "PAY-3": False}
    assert seen(sqlite_engine, ana) == ["PAY-1", "PAY-2", "PAY-3"]


def test_the_mapping_reads_a_level_object_only():
    def level_of(value):
        raw = jira_data.issue("PAY-9", "x")
        raw["fields"]["security"] = value
        return jira.issue_of(raw).restricted

    assert level_of(dict(LEVEL)) is True
    assert [level_of(v) for v in (None, {}, "Embargoed", 5, [])] == [False, False, False, False, False]
    assert jira.issue_of(jira_data.issue("PAY-9", "x")).restricted is False  # no field at all
    assert "security" in jira.SEARCH_FIELDS


def test_a_github_issue_is_never_restricted():
    raw = {"number": 3, "title": "t", "state": "open", "user": {"id": 1, "login": "o"},
           "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-03T10:00:00Z", "security": dict(LEVEL)}
    assert github.issue_of(raw, "o/r", []).restricted is False
