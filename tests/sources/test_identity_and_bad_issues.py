"""Issue 33, findings 3 and 4, replayed against loopback Jira servers into the real SQLite engine: a person is who
their tracker account id says (an e-mail neither merges nor grants a role unless the operator confirmed it for that
account), and a malformed issue fails alone — counted, named, retried next pass — while the rest of its page,
a reassignment among it, lands."""

from __future__ import annotations

import copy
import datetime as dt
import json

import pytest

from app.entities import COMMENTS, EMPLOYEES, TASKS
from app.sources.people import read_people_map
from app.sources.pipeline import run_pass
from tests.sources import jira_data
from tests.sources.fake_jira import FakeJira
from tests.sources.test_sync import OVERLAP, fake_source, jira_reader, rows, task_by_key


def cloud_user(account: str, name: str, email: str) -> dict:
    return {"accountId": account, "displayName": name, "emailAddress": email}


def put(fake: FakeJira, key: str, minutes: int, assignee: dict | None, comment_by: dict | None = None,
        text: str = "a note") -> None:
    issue = jira_data.issue(key, f"issue {key}", api="3", minutes=minutes, reporter=None)
    issue["fields"]["assignee"] = assignee
    if comment_by is not None:
        body = jira_data.comment(minutes, "mia", text, minutes, "3")
        body["author"] = comment_by
        issue["fields"]["comment"] = {"comments": [body], "total": 1, "maxResults": 50, "startAt": 0}
    fake.put(issue)


def test_an_email_never_merges_an_account_nor_grants_a_role_unless_confirmed(tmp_path, sqlite_engine):
    """Finding 3: Eve and Mallory give the boss's e-mail (any case); the people map names the boss's e-mail as a
    MANAGER key. Neither becomes the boss nor a manager; the real boss, confirmed by account id, is the local boss."""
    boss = sqlite_engine.create(EMPLOYEES, {"FIRST_NAME": "Real", "LAST_NAME": "Boss", "EMAIL": "boss@corp.io",
                                            "ROLE": "MANAGER"})
    people = tmp_path / "people.json"
    people.write_text(json.dumps({"boss@corp.io": "MANAGER", "acc-lead": "MANAGER",
                                  "acc-boss": {"email": "Boss@corp.io"}}))
    roles = read_people_map(str(people))
    eve = cloud_user("acc-eve", "Eve Intern", "Boss@Corp.io")
    mallory = cloud_user("acc-mallory", "Mallory", "BOSS@corp.io")
    real = cloud_user("acc-boss", "The Boss", "boss@corp.io")
    lead = cloud_user("acc-lead", "Team Lead", "lead@corp.io")
    with FakeJira("3") as fake:
        put(fake, "PAY-1", 1, eve)  # Eve is imported before the real boss
        put(fake, "PAY-2", 2, mallory, comment_by=mallory, text="I approve the layoffs")
        put(fake, "PAY-3", 3, real)
        put(fake, "PAY-4", 4, lead)
        counts = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True, roles=roles)
        assert (counts.created, counts.failed) == (4, 0)
        by_account = {e["external_id"]: e for e in rows(sqlite_engine, EMPLOYEES) if e["external_id"]}
        assert set(by_account) == {"acc-eve", "acc-mallory", "acc-lead"}  # the boss is the local row, not a copy
        assert by_account["acc-eve"]["role"] == by_account["acc-mallory"]["role"] == "DEVELOPER"
        assert by_account["acc-lead"]["role"] == "MANAGER"  # a role by account id
        # the boss's e-mail is not given to a second row: it is nobody's identity but the boss's
        assert by_account["acc-eve"]["email"] is None and by_account["acc-mallory"]["email"] is None
        pay1, pay2, pay3 = (task_by_key(sqlite_engine, f"PAY-{n}") for n in (1, 2, 3))
        assert pay1["assignee_id"] == by_account["acc-eve"]["employee_id"] != boss["employee_id"]
        assert pay2["assignee_id"] == by_account["acc-mallory"]["employee_id"]
        assert pay3["assignee_id"] == boss["employee_id"]  # confirmed: the account is the team's boss
        said = rows(sqlite_engine, COMMENTS, task_id=pay2["task_id"])
        assert [(c["body"], c["author_id"]) for c in said] == [("I approve the layoffs",
                                                                  by_account["acc-mallory"]["employee_id"])]
        kept = sqlite_engine.get(EMPLOYEES, boss["employee_id"])
        assert (kept["first_name"], kept["role"], kept["source"]) == ("Real", "MANAGER", None)  # used as they are

        # Eve renames herself and takes the boss's name: a second pass changes nobody's identity or role.
        fake.issues["PAY-1"]["fields"]["assignee"] = cloud_user("acc-eve", "The Boss", "boss@corp.io")
        fake.issues["PAY-1"]["fields"]["updated"] = jira_data.stamp(50)
        run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True, roles=roles)
        assert task_by_key(sqlite_engine, "PAY-1")["assignee_id"] == by_account["acc-eve"]["employee_id"]
        assert sqlite_engine.get(EMPLOYEES, by_account["acc-eve"]["employee_id"])["role"] == "DEVELOPER"


def test_the_people_file_forms_and_its_errors(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([{"account_id": "5b10", "email": "A@B.io", "role": "admin"}, {"account_id": "x"}]))
    roles = read_people_map(str(path))
    assert (roles.role("5B10").value, roles.confirmed_email("5b10"), roles.role("x")) == ("ADMIN", "a@b.io", None)
    path.write_text(json.dumps([{"email": "a@b.io"}]))
    with pytest.raises(ValueError, match="account_id"):
        read_people_map(str(path))
    path.write_text(json.dumps({"5b10": {"role": "BOSS"}}))
    with pytest.raises(ValueError, match="unknown role 'BOSS'"):
        read_people_map(str(path))


MALFORMED = {  # finding 4: each of these once stopped its page (REST) or the whole import (files)
    "issuelinks": lambda f: f.update(issuelinks=["x"]),
    "status as a string": lambda f: f.update(status="Done"),
    "priority as a string": lambda f: f.update(priority="High"),
    "type as a string": lambda f: f.update(issuetype="Bug"),
    "fixVersions of strings": lambda f: f.update(fixVersions=["1.0"]),
    "labels a number": lambda f: f.update(labels=5),
    "deep nesting": lambda f: f.update(description=nested(400)),
    "a comment without created": lambda f: f["comment"]["comments"][0].pop("created"),
}


def nested(depth: int) -> dict:
    node: dict = {"type": "text", "text": "deep"}
    for _ in range(depth):
        node = {"type": "paragraph", "content": [node]}
    return {"type": "doc", "version": 1, "content": [node]}


@pytest.mark.parametrize("api", ["2", "3"])
def test_a_malformed_issue_fails_alone_and_the_rest_of_its_page_lands(api, sqlite_engine):
    with FakeJira(api) as fake:
        fake.put(jira_data.issue("PAY-1", "first", api=api, minutes=1, assignee="chen"))
        for n, (name, spoil) in enumerate(MALFORMED.items(), start=2):
            issue = jira_data.issue(f"PAY-{n}", name, api=api, minutes=n,
                                    comments=[jira_data.comment(n, "mia", "hello", n, api)])
            spoil(issue["fields"])
            fake.put(issue)
        bad = jira_data.issue("PAY-20", "key too long", api=api, minutes=20)
        bad["key"] = "PAY-" + "9" * 300
        fake.issues[bad["key"]] = bad
        fake.put(jira_data.issue("PAY-21", "links to a key no engine stores", api=api, minutes=21,
                                 links=[jira_data.blocks("PAY-" + "1" * 300)]))
        first = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        # Read as absent, the shapes above still import; markup nested past what can be read, the key over 200
        # characters and the issue linking to one fail alone, each named
        assert first.failed == 3 and first.created == len(MALFORMED), first.errors
        assert {e.split(":")[0][:8] for e in first.errors} == {"PAY-8", "PAY-9999", "PAY-21"}
        assert "RecursionError" in next(e for e in first.errors if e.startswith("PAY-8:"))
        assert task_by_key(sqlite_engine, "PAY-2")["title"] == "issuelinks"
        assert task_by_key(sqlite_engine, "PAY-6")["fix_versions"] == ["1.0"]
        comment = rows(sqlite_engine, COMMENTS, task_id=task_by_key(sqlite_engine, "PAY-9")["task_id"])[0]
        assert comment["created_at"] is not None  # the issue's time stands in for the missing one

        # the same page again, with a reassignment beside the issues that fail: the reassignment lands at once
        fake.issues["PAY-1"]["fields"]["assignee"] = jira_data.user("emma", api)
        fake.issues["PAY-1"]["fields"]["updated"] = jira_data.stamp(30)
        second = run_pass(sqlite_engine, jira_reader(fake), overlap=dt.timedelta(days=1), reconcile=True)
        assert second.failed == 3 and second.updated == 1
        emma = next(e for e in rows(sqlite_engine, EMPLOYEES) if e["first_name"] == "Emma")
        assert task_by_key(sqlite_engine, "PAY-1")["assignee_id"] == emma["employee_id"]
        # PAY-21's link is mended in the tracker, the long key is deleted: the next pass imports PAY-21
        fake.issues["PAY-21"]["fields"]["issuelinks"] = [jira_data.blocks("PAY-1")]
        fake.issues["PAY-21"]["fields"]["updated"] = jira_data.stamp(40)
        del fake.issues[bad["key"]]
        third = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (third.failed, third.created) == (1, 1) and task_by_key(sqlite_engine, "PAY-21") is not None
        assert third.errors[0].startswith("PAY-8:")  # still in the tracker as it was: retried by every pass


def test_an_issue_the_engine_refuses_holds_the_cursor_and_is_retried(sqlite_engine):
    with FakeJira("2") as fake:
        for n in range(1, 5):
            fake.put(jira_data.issue(f"PAY-{n}", f"issue {n}", minutes=10 * n))
        spoilt = copy.deepcopy(fake.issues["PAY-2"])
        spoilt["fields"]["labels"] = ["bad\x01label"]  # a label no engine stores: refused before the page is written
        fake.put(spoilt)
        counts = run_pass(sqlite_engine, jira_reader(fake, page_size=2), overlap=OVERLAP, reconcile=False)
        assert (counts.created, counts.failed) == (3, 1) and counts.errors[0].startswith("PAY-2: labels")
        assert task_by_key(sqlite_engine, "PAY-2") is None and len(rows(sqlite_engine, TASKS)) == 3
        assert sqlite_engine.sync_cursor(fake_source(fake)) == "2026-11-02T09:19:59.999999"


def test_ragctl_status_names_the_failed_issues_of_each_source_s_last_pass(sqlite_settings, sqlite_engine):
    from click.testing import CliRunner

    from app.cli import CliEnv, cli
    from app.sources.http import SourceError

    with FakeJira("2") as fake:
        fake.put(jira_data.issue("PAY-1", "fine", minutes=1))
        fake.put(jira_data.issue("PAY-2", "bad link", minutes=2, links=[jira_data.blocks("PAY-" + "1" * 300)]))
        run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        status = CliRunner().invoke(cli, ["status"], obj=CliEnv(sqlite_settings, sqlite_engine))
        assert status.exit_code == 0, status.output
        assert f"sync:     jira:{fake.url} at " in status.output and "1 created" in status.output
        assert "failed issues (tried again next pass): PAY-2" in status.output
        as_json = CliRunner().invoke(cli, ["status", "--json"], obj=CliEnv(sqlite_settings, sqlite_engine))
        assert json.loads(as_json.output)["last_passes"][f"jira:{fake.url}"]["failed"] == ["PAY-2"]
        fake.fail("/search$", 401, times=10)
        with pytest.raises(SourceError):
            run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        status = CliRunner().invoke(cli, ["status"], obj=CliEnv(sqlite_settings, sqlite_engine))
        assert "ended by: SourceAuthError" in status.output and "401" in status.output
