"""Import and sync into the real SQLite engine from loopback Jira (v2, v3) and GitHub servers: what lands in the
tables, a second pass that writes nothing, an edit / new comment / deletion / move between two passes, a pass
that dies between two pages, and errors that write nothing."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from app.cli import CliEnv, cli
from app.entities import COMMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS, Condition
from app.sources import jira
from app.sources.github import GitHubIssues, github_client
from app.sources.http import SourceError
from app.sources.jira_rest import JiraREST, jira_client
from app.sources.pipeline import ReconcileRefusedError, run_pass
from tests.sources import jira_data
from tests.sources.fake_github import HUBOT, OCTOCAT, FakeGitHub
from tests.sources.fake_jira import FakeJira
from tests.support import drain_all, peek_queue

OVERLAP = dt.timedelta(minutes=2)


def rows(engine, entity, **where):
    conditions = [Condition(k, k.upper(), "eq", v) for k, v in where.items()]
    return engine.list_records(entity, conditions, None, 500).items


def task_by_key(engine, key):
    found = [r for r in rows(engine, TASKS) if r["external_key"] == key]
    return found[0] if found else None


def chunk_hashes(engine, task_ids):
    with engine.indexing() as tx:
        return tx.chunk_hashes("task", task_ids)


def jira_reader(fake: FakeJira, page_size: int = 100) -> JiraREST:
    if fake.api == "2":
        client, api = jira_client(fake.url, pat=fake.pat, sleep=lambda s: None)
    else:
        client, api = jira_client(fake.url, email=fake.email, api_token=fake.api_token, sleep=lambda s: None)
    return JiraREST(client, api, ["PAY", "MOB"], story_points_field="customfield_10016", page_size=page_size)


def seed(fake: FakeJira, api: str) -> None:
    for issue in jira_data.tracker(api):
        fake.put(issue)


def check_tracker_fields(engine, api: str) -> None:
    """Issue 31: every field of jira_data.tracker() lands in its column (the search asked for it: the fake returns
    only the system fields named), links by kind and direction, a sub-task's parent written after it."""
    pay1, pay2, pay3, pay4 = (task_by_key(engine, f"PAY-{n}") for n in range(1, 5))
    people = {e["employee_id"]: e["first_name"] for e in rows(engine, EMPLOYEES)}
    assert (people[pay1["reporter_id"]], people[pay4["reporter_id"]]) == ("Mia", "Emma")
    assert pay1["created_at"] == jira_data.BASE.replace(tzinfo=None)
    assert pay1["updated_at"] == jira_data.BASE.replace(tzinfo=None) + dt.timedelta(minutes=10)
    assert (pay1["fix_versions"], pay1["components"], pay1["affects_versions"]) == (
        ["2026.12", "Release 2.1"], ["Payments API"], ["2026.11"])
    assert pay1["environment"] == "Chrome 130 on macOS" and pay1["resolution"] is None and pay1["resolved_at"] is None
    assert (pay3["resolution"], pay3["resolved_at"]) == ("Won't Fix", jira_data.BASE.replace(tzinfo=None)
                                                        + dt.timedelta(minutes=29))
    assert pay3["created_at"] == jira_data.BASE.replace(tzinfo=None) - dt.timedelta(hours=1)
    assert (pay2["parent_key"], pay2["parent_id"]) == ("PAY-4", pay4["task_id"])
    links = {key: [(link.link_type, link.target_key) for link in engine.load_records("task", [t["task_id"]])[
        t["task_id"]].links] for key, t in (("PAY-2", pay2), ("PAY-3", pay3), ("PAY-4", pay4))}
    assert links == {"PAY-2": [("BLOCKS", "PAY-1"), ("CLONED_BY", "OPS-9")], "PAY-3": [("DUPLICATES", "PAY-1")],
                     "PAY-4": [("DEPENDS_ON", "PAY-2"), ("RELATES", "OPS-1")]}
    text = engine.load_records("task", [pay2["task_id"]])[pay2["task_id"]]
    assert (text.reporter_first, text.parent_key) == ("Mia", "PAY-4")


@pytest.mark.parametrize("api", ["2", "3"])
def test_a_sync_pass_imports_everything_then_a_second_writes_nothing(api, sqlite_engine):
    with FakeJira(api, embedded_comments=1) as fake:
        seed(fake, api)
        first = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (first.created, first.updated, first.unchanged, first.deleted, first.failed) == (4, 0, 0, 0, 0)
        pay1 = task_by_key(sqlite_engine, "PAY-1")
        assert (pay1["status"], pay1["status_name"], pay1["priority"], pay1["issue_type"]) == \
            ("IN_REVIEW", "In QE Test", "CRITICAL", "Bug")
        assert pay1["labels"] == ["backend", "refunds"] and pay1["story_points"] == 5
        check_tracker_fields(sqlite_engine, api)
        # v2 bodies are wiki markup; v3 bodies ADF, whose text is literal (no markup to strip)
        assert pay1["description"] == ("Steps\n- pay\n- refund" if api == "2" else "h2. Steps\n\n* pay\n\n* refund")
        chen = next(e for e in rows(sqlite_engine, EMPLOYEES) if e["first_name"] == "Chen")
        assert (chen["last_name"], chen["role"], chen["email"]) == ("Wei", "DEVELOPER", "chen@example.com")
        assert pay1["assignee_id"] == chen["employee_id"]
        comments = rows(sqlite_engine, COMMENTS, task_id=pay1["task_id"])
        first_body = "Seen on prod" if api == "2" else "Seen on *prod*"
        assert [c["body"] for c in comments] == [first_body, "Fix in review", "Thanks"]  # 2 beyond the embedded 1
        sprint = rows(sqlite_engine, SPRINTS)
        assert [(s["name"], s["status"]) for s in sprint] == [("PAY Sprint 7", "ACTIVE")]  # both forms: one sprint
        assert pay1["sprint_id"] == task_by_key(sqlite_engine, "PAY-2")["sprint_id"] == sprint[0]["sprint_id"]
        source = sqlite_engine.load_records("task", [pay1["task_id"]])[pay1["task_id"]]
        assert [(link.link_type, link.target_key, link.target_task_id) for link in source.links] == \
            [("BLOCKED_BY", "PAY-2", task_by_key(sqlite_engine, "PAY-2")["task_id"])]
        assert [p["name"] for p in rows(sqlite_engine, PROJECTS)] == ["PAY project"]
        drain_all(sqlite_engine)
        hashes = chunk_hashes(sqlite_engine, [t["task_id"] for t in rows(sqlite_engine, TASKS)])

        second = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (second.created, second.updated, second.deleted, second.failed) == (0, 0, 0, 0)
        again = run_pass(sqlite_engine, jira_reader(fake), overlap=dt.timedelta(days=1), reconcile=True)
        assert (again.created, again.updated, again.unchanged) == (0, 0, 4)  # all re-read, none written
        assert peek_queue(sqlite_engine) == []  # nothing queued, so nothing is re-embedded
        assert chunk_hashes(sqlite_engine, list(hashes)) == hashes


@pytest.mark.parametrize("api", ["2", "3"])
def test_an_edit_a_new_comment_a_deletion_and_a_move_between_two_passes(api, sqlite_engine):
    with FakeJira(api, embedded_comments=1) as fake:
        seed(fake, api)
        run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        drain_all(sqlite_engine)
        old_pay4 = task_by_key(sqlite_engine, "PAY-4")
        pay1 = fake.issues["PAY-1"]
        pay1["fields"]["summary"] = "Refund fails for EUR and GBP"
        pay1["fields"]["updated"] = jira_data.stamp(100)
        pay2 = fake.issues["PAY-2"]
        pay2["fields"]["comment"]["comments"].append(jira_data.comment(6, "mia", "Still slow on Mondays", 101, api))
        pay2["fields"]["updated"] = jira_data.stamp(101)
        del fake.issues["PAY-3"]
        moved = fake.issues.pop("PAY-4")  # moved to MOB: a new key, the same comments
        moved["key"] = "MOB-9"
        moved["fields"]["project"] = {"key": "MOB", "name": "Mobile"}
        moved["fields"]["updated"] = jira_data.stamp(102)
        fake.put(moved)

        counts = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (counts.created, counts.updated, counts.deleted, counts.failed) == (1, 2, 2, 0)
        assert task_by_key(sqlite_engine, "PAY-1")["title"] == "Refund fails for EUR and GBP"
        pay2_id = task_by_key(sqlite_engine, "PAY-2")["task_id"]
        assert [c["body"] for c in rows(sqlite_engine, COMMENTS, task_id=pay2_id)][-1] == "Still slow on Mondays"
        assert task_by_key(sqlite_engine, "PAY-3") is None and task_by_key(sqlite_engine, "PAY-4") is None
        mob9 = task_by_key(sqlite_engine, "MOB-9")
        assert mob9["task_id"] != old_pay4["task_id"]
        assert [c["body"] for c in rows(sqlite_engine, COMMENTS, task_id=mob9["task_id"])] == ["Mobile team owns it"]
        assert {p["name"] for p in rows(sqlite_engine, PROJECTS)} == {"PAY project", "Mobile"}
        queued = {(r.source_type, r.source_id, r.action) for r in peek_queue(sqlite_engine)}
        assert ("task", old_pay4["task_id"], "DELETE") in queued and ("task", mob9["task_id"], "UPSERT") in queued
        jql = fake.searches()[-2]["jql"][0]  # the second pass's issue search (the last one listed keys)
        assert 'updated >= "2026-11-02 09:38"' in jql  # the first pass's newest (09:40) less the overlap


def test_a_pass_that_dies_after_its_first_page_resumes_without_a_gap_or_a_duplicate(sqlite_engine):
    with FakeJira("2") as fake:
        for n in range(1, 8):
            fake.put(jira_data.issue(f"PAY-{n}", f"issue {n}", minutes=10 * n,
                                     comments=[jira_data.comment(n, "mia", f"note {n}", 10 * n)]))
        fake.crash_after_pages = 1
        with pytest.raises(SourceError, match="500"):
            run_pass(sqlite_engine, jira_reader(fake, page_size=3), overlap=OVERLAP, reconcile=True)
        assert sorted(t["external_key"] for t in rows(sqlite_engine, TASKS)) == ["PAY-1", "PAY-2", "PAY-3"]
        assert sqlite_engine.sync_cursor(fake_source(fake)) == "2026-11-02T09:30:00"  # page 1's newest, committed
        fake.crash_after_pages = None
        counts = run_pass(sqlite_engine, jira_reader(fake, page_size=3), overlap=OVERLAP, reconcile=True)
        assert (counts.created, counts.failed) == (4, 0) and counts.unchanged == 1  # PAY-3 re-read in the overlap
        keys = [t["external_key"] for t in rows(sqlite_engine, TASKS)]
        assert sorted(keys) == [f"PAY-{n}" for n in range(1, 8)] and len(keys) == len(set(keys))
        assert len(rows(sqlite_engine, COMMENTS)) == 7


def fake_source(fake) -> str:
    return f"jira:{fake.url}"


@pytest.mark.parametrize("status, words", [(401, "401 Unauthorized"), (404, "404 Not Found"),
                                           (403, "403 Forbidden")])
def test_auth_and_missing_errors_end_the_pass_and_write_nothing(status, words, sqlite_engine):
    with FakeJira("2") as fake:
        seed(fake, "2")
        fake.fail("/search$", status, times=100)
        with pytest.raises(SourceError, match=words):
            run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert rows(sqlite_engine, TASKS) == [] and rows(sqlite_engine, EMPLOYEES) == []
        assert sqlite_engine.sync_cursor(fake_source(fake)) is None
        assert sum(1 for p, _ in fake.requests if p.endswith("/search")) == 1  # no retry storm


def test_reconciliation_that_lists_nothing_deletes_nothing(sqlite_engine):
    with FakeJira("2") as fake:
        seed(fake, "2")
        run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        fake.issues.clear()
        with pytest.raises(ReconcileRefusedError, match="nothing deleted"):
            run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert len(rows(sqlite_engine, TASKS)) == 4


# --- GitHub -----------------------------------------------------------------------------------------

def github_reader(fake: FakeGitHub, page_size: int = 2) -> GitHubIssues:
    return GitHubIssues(github_client(fake.token, fake.url, sleep=lambda s: None), fake.repo, page_size=page_size)


def check_github_fields(engine) -> None:
    """Issue 31 on GitHub: the author is the reporter, created/updated/closed times, state_reason as the resolution,
    closed_by where the issue object has it (a listing does not), the milestone as the fix version (and sprint)."""
    bug, docs, closed, wont = (task_by_key(engine, f"octo-org/octo-repo#{n}") for n in (1, 3, 4, 5))
    people = {e["employee_id"]: e["external_id"] for e in rows(engine, EMPLOYEES)}
    assert (people[bug["reporter_id"]], people[docs["reporter_id"]]) == ("github:1", "github:2")
    start = dt.datetime(2026, 11, 2, 9, 0)
    assert (bug["created_at"], bug["updated_at"], bug["resolved_at"], bug["resolution"]) == (
        start, start + dt.timedelta(minutes=5), None, None)  # its comment at minute 5 updated it
    assert bug["fix_versions"] == ["v1.0"] and docs["fix_versions"] == []
    assert (closed["resolution"], closed["resolved_at"], closed["resolved_by_id"]) == (
        "Completed", start + dt.timedelta(minutes=4), None)  # listed: no closed_by
    assert (wont["resolution"], people[wont["resolved_by_id"]]) == ("Not planned", "github:2")


def test_github_import_then_an_edit_a_new_comment_and_a_deletion(sqlite_engine):
    with FakeGitHub() as fake:
        fake.issue(1, "Found a bug", 1, labels=["bug", "P1"], assignee=HUBOT, body="I'm having a problem with this.",
                   milestone={"number": 3, "title": "v1.0", "state": "open", "due_on": "2026-12-01T07:00:00Z"})
        fake.issue(2, "Fix the bug", 2, pull=True)
        fake.issue(3, "Docs are stale", 3, labels=["documentation"], user=HUBOT)
        fake.issue(4, "Closed one", 4, state="closed")
        fake.issue(5, "Won't do", 6, state="closed", state_reason="not_planned", closed_by=HUBOT)
        fake.comment(77, 1, OCTOCAT, "Me too", 5)
        reader = github_reader(fake)
        first = run_pass(sqlite_engine, reader, overlap=OVERLAP, reconcile=True)
        assert (first.created, first.failed) == (4, 0)
        check_github_fields(sqlite_engine)
        bug = task_by_key(sqlite_engine, "octo-org/octo-repo#1")
        assert (bug["priority"], bug["issue_type"], bug["status"]) == ("HIGH", "Bug", "TODO")
        hubot = sqlite_engine.get(EMPLOYEES, bug["assignee_id"])
        assert (hubot["first_name"], hubot["external_id"]) == ("hubot", "github:2")
        assert rows(sqlite_engine, SPRINTS)[0]["name"] == "v1.0"
        assert task_by_key(sqlite_engine, "octo-org/octo-repo#2") is None  # a pull request

        assert run_pass(sqlite_engine, reader, overlap=OVERLAP, reconcile=True).created == 0
        fake.issues[3]["title"] = "Docs are stale (API)"
        fake.issues[3]["updated_at"] = "2026-11-02T10:00:00Z"
        fake.comment(78, 1, HUBOT, "Fixed on main", 70)
        del fake.issues[4]
        counts = run_pass(sqlite_engine, reader, overlap=OVERLAP, reconcile=True)
        assert (counts.created, counts.updated, counts.deleted) == (0, 2, 1)
        assert task_by_key(sqlite_engine, "octo-org/octo-repo#3")["updated_at"] == dt.datetime(2026, 11, 2, 10, 0)
        assert [c["body"] for c in rows(sqlite_engine, COMMENTS, task_id=bug["task_id"])] == ["Me too", "Fixed on main"]
        assert task_by_key(sqlite_engine, "octo-org/octo-repo#4") is None
        assert fake.not_modified > 0  # the unchanged listing pages answered 304


# --- the CLI -----------------------------------------------------------------------------------------

def test_import_jira_files_prints_the_summary_and_a_second_run_writes_nothing(tmp_path, sqlite_settings, sqlite_engine):
    export = tmp_path / "export"
    (export / "pages").mkdir(parents=True)
    with FakeJira("2") as fake:
        seed(fake, "2")
        issues = [{**i, "self": f"https://acme.atlassian.net/rest/api/2/issue/{i['id']}"} for i in fake.issues.values()]
    (export / "pages" / "page1.json").write_text(json.dumps({"issues": issues[:2]}))
    for issue in issues[2:]:
        (export / f"{issue['key']}.json").write_text(json.dumps(issue))
    (export / "project.json").write_text(json.dumps(jira_data.project("PAY", "Payments")))
    run = lambda *a: CliRunner().invoke(cli, list(a), obj=CliEnv(sqlite_settings, sqlite_engine))  # noqa: E731
    first = run("import", "jira", str(export))
    assert first.exit_code == 0, first.output
    assert "jira:https://acme.atlassian.net: 4 created, 0 updated, 0 unchanged, 0 deleted, 0 failed" in first.output
    assert rows(sqlite_engine, PROJECTS)[0]["name"] == "Payments" and peek_queue(sqlite_engine) == []  # indexed
    second = run("import", "jira", str(export))
    assert "4 unchanged" in second.output and "0 created, 0 updated" in second.output
    assert peek_queue(sqlite_engine) == []


def test_sync_jira_once_from_the_settings_and_a_clear_401(sqlite_settings, sqlite_engine):
    with FakeJira("2") as fake:
        seed(fake, "2")
        settings = sqlite_settings.model_copy(update={"jira_url": fake.url, "jira_pat": SecretStr(fake.pat),
                                                      "jira_projects": "PAY,MOB"})
        run = lambda *a, s=settings: CliRunner().invoke(cli, list(a), obj=CliEnv(s, sqlite_engine))  # noqa: E731
        result = run("sync", "jira", "--once", "--no-index")
        assert result.exit_code == 0, result.output
        assert f"jira:{fake.url}: 4 created, 0 updated, 0 unchanged, 0 deleted, 0 failed" in result.output
        wrong = settings.model_copy(update={"jira_pat": SecretStr("wrong")})
        result = run("sync", "jira", "--once", s=wrong)
        assert result.exit_code == 1 and "401 Unauthorized" in result.output and "Traceback" not in result.output


def test_import_github_and_sync_github_once_from_the_cli(sqlite_settings, sqlite_engine):
    with FakeGitHub() as fake:
        fake.issue(1, "Found a bug", 1, labels=["bug"], assignee=HUBOT)
        fake.issue(2, "Fix the bug", 2, pull=True)
        settings = sqlite_settings.model_copy(update={"github_token": SecretStr(fake.token), "github_api_url": fake.url,
                                                      "github_repos": fake.repo})
        run = lambda *a, s=settings: CliRunner().invoke(cli, list(a), obj=CliEnv(s, sqlite_engine))  # noqa: E731
        first = run("import", "github", fake.repo, "--no-index")
        assert first.exit_code == 0, first.output
        assert "github:octo-org/octo-repo: 1 created, 0 updated, 0 unchanged, 0 deleted, 0 failed" in first.output
        fake.issue(3, "Another", 90)
        again = run("sync", "github", "--once")
        assert again.exit_code == 0, again.output
        assert "github:octo-org/octo-repo: 1 created, 0 updated, 1 unchanged, 0 deleted, 0 failed" in again.output
        assert peek_queue(sqlite_engine) == []  # indexed after the pass
        bad = run("import", "github", "not a repo")
        assert bad.exit_code == 2 and "OWNER/REPO" in bad.output
        denied = run("sync", "github", "--once", s=settings.model_copy(update={"github_token": SecretStr("nope")}))
        assert denied.exit_code == 1 and "401 Unauthorized" in denied.output


def test_an_issue_that_fails_to_write_holds_the_cursor_for_the_rest_of_the_pass(sqlite_engine):
    with FakeJira("2") as fake:
        for n in range(1, 7):
            fake.put(jira_data.issue(f"PAY-{n}", f"issue {n}", minutes=10 * n))
        bad = jira_data.issue("PAY-2", "issue 2", minutes=20, sprint=jira_data.sprint_object(1, "Sprint 1"))
        bad["fields"]["customfield_10020"][0]["id"] = "1\n2"  # a sprint id no engine stores: the write is refused
        fake.put(bad)
        counts = run_pass(sqlite_engine, jira_reader(fake, page_size=2), overlap=OVERLAP, reconcile=False)
        assert (counts.created, counts.failed) == (5, 1) and "PAY-2" in counts.errors[0]
        # Later pages wrote, but the cursor stays just before the failed issue, so the next pass reads it again.
        assert sqlite_engine.sync_cursor(fake_source(fake)) == "2026-11-02T09:19:59.999999"
        fake.put(jira_data.issue("PAY-2", "issue 2 fixed", minutes=20))
        again = run_pass(sqlite_engine, jira_reader(fake, page_size=2), overlap=OVERLAP, reconcile=False)
        assert (again.created, again.failed) == (1, 0) and task_by_key(sqlite_engine, "PAY-2")["title"] == "issue 2 fixed"
        assert sqlite_engine.sync_cursor(fake_source(fake)) == "2026-11-02T10:00:00"


def test_the_people_file_names_managers_and_an_edited_role_survives_a_reimport(tmp_path, sqlite_engine):
    from app.sources.mapping import read_people_map

    people_file = tmp_path / "people.json"
    people_file.write_text(json.dumps({jira_data.PEOPLE["emma"]["key"]: "manager"}))  # by account id (issue 33)
    roles = read_people_map(str(people_file))
    with FakeJira("2") as fake:
        seed(fake, "2")
        run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=False, roles=roles)
        people = {e["first_name"]: e for e in rows(sqlite_engine, EMPLOYEES)}
        assert people["Emma"]["role"] == "MANAGER" and people["Chen"]["role"] == "DEVELOPER"
        sqlite_engine.update(EMPLOYEES, people["Chen"]["employee_id"], {"ROLE": "ADMIN"})  # the team edits a role
        sqlite_engine.set_sync_cursor(fake_source(fake), None)
        run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=False, roles=roles)
        assert sqlite_engine.get(EMPLOYEES, people["Chen"]["employee_id"])["role"] == "ADMIN"
    people_file.write_text(json.dumps({"mia": "BOSS"}))
    with pytest.raises(ValueError, match="unknown role 'BOSS'"):
        read_people_map(str(people_file))


def test_a_page_that_breaks_midway_leaves_nothing_of_itself_not_even_its_cursor(sqlite_engine):
    from dataclasses import replace

    from app.sources.pipeline import PageWriter

    good, broken = (jira.issue_of(raw) for raw in jira_data.tracker()[:2])
    broken = replace(broken, updated=None)  # written, then the cursor arithmetic breaks: an error out of the page
    writer = PageWriter(sqlite_engine, "jira:https://example.atlassian.net")
    with pytest.raises(TypeError):
        writer.write([good, broken])
    assert rows(sqlite_engine, TASKS) == [] and rows(sqlite_engine, COMMENTS) == [] and rows(sqlite_engine, EMPLOYEES) == []
    assert sqlite_engine.sync_cursor("jira:https://example.atlassian.net") is None and peek_queue(sqlite_engine) == []
    counts, cursor = writer.write([good])  # the writer forgot the rolled-back ids: the page is written again whole
    assert counts.created == 1 and task_by_key(sqlite_engine, "PAY-1") is not None


def test_a_sync_process_killed_after_its_first_page_resumes_without_a_gap_or_a_duplicate(sqlite_settings, sqlite_engine):
    """The real thing: `ragctl sync jira --once` in its own process, killed (SIGKILL) while it waits for page 2."""
    import os
    import signal
    import subprocess
    import sys
    import time

    with FakeJira("2") as fake:
        for n in range(1, 151):  # two pages of 100
            fake.put(jira_data.issue(f"PAY-{n}", f"issue {n}", minutes=n, assignee="chen",
                                     comments=[jira_data.comment(n, "mia", f"note {n}", n)]))
        fake.hold_after_pages = 1
        env = {**os.environ, "RAG_DATABASE_URL": sqlite_settings.database_url, "RAG_JIRA_URL": fake.url,
               "RAG_JIRA_PAT": fake.pat, "RAG_JIRA_PROJECTS": "PAY", "RAG_API_TOKENS": "x"}
        proc = subprocess.Popen([sys.executable, "-c", "from app.cli import main; main()", "sync", "jira", "--once",
                                 "--no-index"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while sqlite_engine.sync_cursor(fake_source(fake)) is None:  # page 1 committed, with its cursor
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()[-2000:]
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        assert sorted(int(t["external_key"][4:]) for t in rows(sqlite_engine, TASKS)) == list(range(1, 101))
        assert sqlite_engine.sync_cursor(fake_source(fake)) == "2026-11-02T10:40:00"  # PAY-100's update time
        fake.hold_after_pages = None
        counts = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (counts.created, counts.failed, counts.deleted) == (50, 0, 0) and counts.unchanged == 3  # the overlap
        keys = [t["external_key"] for t in rows(sqlite_engine, TASKS)]
        assert len(keys) == len(set(keys)) == 150 and len(rows(sqlite_engine, COMMENTS)) == 150


def test_a_malformed_github_issue_fails_alone_and_the_rest_of_its_page_lands(sqlite_engine):
    """Issue 33, finding 4 on GitHub: an issue whose shape is not GitHub's (labels a number, a title an object) is
    counted and named as failed; the issues beside it on the same page are written, and the next pass reads it again
    (fixed, it lands)."""
    with FakeGitHub() as fake:
        fake.issue(1, "Fine before", 1)
        broken = fake.issue(2, "Broken", 2)
        fake.issue(3, "Fine after", 3, assignee=HUBOT)
        broken["labels"] = 5
        reader = github_reader(fake, page_size=10)
        first = run_pass(sqlite_engine, reader, overlap=OVERLAP, reconcile=False)
        assert (first.created, first.failed) == (2, 1)
        assert task_by_key(sqlite_engine, "octo-org/octo-repo#3")["assignee_id"] is not None
        assert task_by_key(sqlite_engine, "octo-org/octo-repo#2") is None
        broken["labels"] = []
        second = run_pass(sqlite_engine, reader, overlap=OVERLAP, reconcile=False)
        assert (second.created, second.failed) == (1, 0)
        assert task_by_key(sqlite_engine, "octo-org/octo-repo#2")["title"] == "Broken"
