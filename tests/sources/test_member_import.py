"""Memberships of a file import (issue 32): `ragctl import jira FOLDER --members FILE` (source "file") and
`--members-from-activity` (source "activity", a heuristic), and `ragctl sync jira --once` printing the members
line of its pass (roles read from the loopback Jira), as the scheduled job's pass does, into the real SQLite engine."""

from __future__ import annotations

import json

from click.testing import CliRunner
from pydantic import SecretStr

from app.cli import CliEnv, cli
from app.entities import EMPLOYEES, PROJECTS
from app.sources import jira, memberships
from app.sources.job import sync_all
from tests.sources import jira_data
from tests.sources.fake_members import FakeJiraMembers

SOURCE = "jira:https://example"  # the site of jira_data's self links


def export(tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    issues = jira_data.tracker("2") + [jira_data.issue("MOB-1", "Crash on start", assignee="emma", reporter="emma")]
    for issue in issues:
        (folder / f"{issue['key']}.json").write_text(json.dumps(issue))
    return folder


def members(engine, key):
    project_id = engine.find_by_external(PROJECTS, SOURCE, [key])[key]
    names = {e["employee_id"]: e["first_name"] for e in engine.list_records(EMPLOYEES, [], None, 100).items}
    return {(names[m.employee_id], m.source) for m in engine.project_members(project_id, limit=100).items}


def test_import_with_a_members_file_then_from_activity(tmp_path, sqlite_settings, sqlite_engine):
    folder = export(tmp_path)
    mapping = tmp_path / "members.json"
    mapping.write_text(json.dumps({"PAY": ["JIRAUSER10100", "JIRAUSER99999"], "OPS": ["JIRAUSER10101"]}))
    run = lambda *a: CliRunner().invoke(cli, list(a), obj=CliEnv(sqlite_settings, sqlite_engine))  # noqa: E731
    result = run("import", "jira", str(folder), "--members", str(mapping), "--no-index")
    assert result.exit_code == 0, result.output
    assert f"{SOURCE}: members of 1 project(s): 1 added, 0 removed, 1 skipped (not imported yet)" in result.output
    assert "warning: OPS: not imported yet" in result.output
    assert members(sqlite_engine, "PAY") == {("Mia", "file")}

    mapping.write_text(json.dumps({"PAY": ["JIRAUSER10102"]}))  # the file changed: the "file" rows follow it
    result = run("import", "jira", str(folder), "--members", str(mapping), "--members-from-activity", "--no-index")
    assert result.exit_code == 0, result.output
    # PAY: Chen by the file (Mia's file row removed); Mia and Emma by activity (assignee, reporter, commenter), Chen
    # kept as the file made him (a source never takes over another's row); MOB: Emma alone.
    assert members(sqlite_engine, "PAY") == {("Chen", "file"), ("Emma", "activity"), ("Mia", "activity")}
    assert members(sqlite_engine, "MOB") == {("Emma", "activity")}

    plain = run("import", "jira", str(folder), "--no-index")  # no option: memberships untouched, no members line
    assert plain.exit_code == 0 and "members of" not in plain.output
    assert members(sqlite_engine, "MOB") == {("Emma", "activity")}

    mapping.write_text(json.dumps({"PAY": "JIRAUSER10100"}))
    bad = run("import", "jira", str(folder), "--members", str(mapping))
    assert bad.exit_code == 1 and "must map project keys to lists of account ids" in bad.output


def test_activity_is_assignees_reporters_and_commenters_per_project():
    issues = [jira.issue_of(i) for i in jira_data.tracker("3")]
    by_project = memberships.members_from_activity(issues)
    ids = {p["accountId"]: name for name, p in jira_data.PEOPLE.items()}
    assert {ids[person[0]] for person in by_project["PAY"]} == {"mia", "emma", "chen"}
    only_reporter = [jira.issue_of(jira_data.issue("MOB-1", "x", api="3", reporter="emma"))]
    assert memberships.members_from_activity(only_reporter) == {"MOB": [(jira_data.PEOPLE["emma"]["accountId"],)]}


def test_sync_jira_once_prints_the_members_of_its_pass_and_a_403_as_a_warning(sqlite_settings, sqlite_engine):
    with FakeJiraMembers("2") as fake:
        for issue in jira_data.tracker("2"):
            fake.put(issue)
        fake.role("PAY", 10000, "Developers", users=["emma"])
        settings = sqlite_settings.model_copy(update={"jira_url": fake.url, "jira_pat": SecretStr(fake.pat),
                                                      "jira_projects": "PAY"})
        run = lambda *a, s=settings: CliRunner().invoke(cli, list(a), obj=CliEnv(s, sqlite_engine))  # noqa: E731
        result = run("sync", "jira", "--once", "--no-index")
        assert result.exit_code == 0, result.output
        assert f"jira:{fake.url}: members of 1 project(s): 1 added, 0 removed, 0 skipped" in result.output
        fake.fail(r"/project/PAY/role$", 403)
        denied = run("sync", "jira", "--once", "--no-index")
        assert denied.exit_code == 0, denied.output
        assert "warning: PAY: members not read, left as they were" in denied.output and "403" in denied.output
        off = run("sync", "jira", "--once", "--no-index", s=settings.model_copy(update={"jira_members": "off"}))
        assert off.exit_code == 0 and "members of" not in off.output


def test_the_scheduled_jobs_pass_writes_the_members_too(sqlite_settings, sqlite_engine):
    with FakeJiraMembers("2") as fake:
        for issue in jira_data.tracker("2"):
            fake.put(issue)
        fake.group("pay-devs", ["chen"])
        fake.role("PAY", 10000, "Developers", users=["emma"], groups=["pay-devs"])
        settings = sqlite_settings.model_copy(update={"jira_url": fake.url, "jira_pat": SecretStr(fake.pat),
                                                      "jira_projects": "PAY", "sync_max_retries": 0})
        source = f"jira:{fake.url}"
        assert sync_all(sqlite_engine, settings, reconcile=True)[source].failed == 0
        pay = sqlite_engine.find_by_external(PROJECTS, source, ["PAY"])["PAY"]
        names = {e["employee_id"]: e["first_name"] for e in sqlite_engine.list_records(EMPLOYEES, [], None, 100).items}
        assert {(names[m.employee_id], m.source) for m in sqlite_engine.project_members(pay, limit=10).items} == {
            ("Emma", "jira"), ("Chen", "jira")}
