"""Issue 31: the tracker's own priority (name and rank) and every sprint an issue was in, imported for real into the
SQLite engine — from loopback Jira REST (v2 and v3: the rank from GET /priority, fetched once per pass; its ids when
the account may not read it) and from export files (the rank from the priority ids) — and what the typed query
makes of them."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.domain import Caller, Role
from app.entities import SPRINTS
from app.rag.understanding.query import Predicate, TrackerQuery
from app.sources import jira, mapping
from app.sources.pipeline import run_pass
from tests.sources import jira_data
from tests.sources.fake_jira import FakeJira
from tests.sources.test_sync import jira_reader, rows, task_by_key
from tests.support import drain_all, peek_queue

OVERLAP = dt.timedelta(minutes=2)
MANAGER = Caller(1, Role.MANAGER)
# The site's order: an admin put a custom "Urgent" (a high id) above Jira's defaults.
SITE_ORDER = ("Urgent", "Blocker", "Critical", "Major", "Minor", "Trivial")
REST_RANKS = {"PAY-1": 2, "PAY-2": 3, "PAY-3": 6, "PAY-4": 1, "PAY-5": 5}
ID_RANKS = {"PAY-1": 1, "PAY-2": 2, "PAY-3": 5, "PAY-4": 10000, "PAY-5": 4}


def sprint(sid: int, state: str) -> dict:
    return jira_data.sprint_object(sid, f"PAY Sprint {sid - 5}", state)


def issues(api: str) -> list[dict]:
    """PAY-1 carried over from Sprint 6 into Sprint 7; PAY-3 in Sprints 5 and 6, both closed; PAY-4 in none."""
    return [
        jira_data.issue("PAY-1", "Refund fails", api=api, minutes=10, priority="Blocker", assignee="chen",
                        sprint=[sprint(11, "closed"), sprint(12, "active")]),
        jira_data.issue("PAY-2", "Ledger export slow", api=api, minutes=20, priority="Critical", assignee="chen",
                        due="2026-11-20", sprint=sprint(12, "active")),
        jira_data.issue("PAY-3", "Typo on the receipt", api=api, minutes=30, priority="Trivial",
                        sprint=[sprint(10, "closed"), sprint(11, "closed")]),
        jira_data.issue("PAY-4", "Card tokens expire", api=api, minutes=40, priority="Urgent"),
        jira_data.issue("PAY-5", "Old browser banner", api=api, minutes=50, priority="Minor",
                        sprint=sprint(12, "active")),
    ]


def sprint_id(engine, name: str) -> int:
    return next(s["sprint_id"] for s in rows(engine, SPRINTS) if s["name"] == name)


def keys(engine, *where: Predicate, order: str = "id", descending: bool = False) -> list[str]:
    result = engine.run_tracker_query(MANAGER, TrackerQuery(where=where, order=order, descending=descending))
    return [r["external_key"] for r in result.rows]


def check_imported(engine, ranks: dict[str, int]) -> None:
    """Names, our levels and ranks as stored; the sprint sets as the typed query reads them."""
    tasks = {f"PAY-{n}": task_by_key(engine, f"PAY-{n}") for n in range(1, 6)}
    assert {k: (t["priority"], t["priority_name"], t["priority_rank"]) for k, t in tasks.items()} == {
        "PAY-1": ("CRITICAL", "Blocker", ranks["PAY-1"]), "PAY-2": ("CRITICAL", "Critical", ranks["PAY-2"]),
        "PAY-3": ("LOW", "Trivial", ranks["PAY-3"]), "PAY-4": ("MEDIUM", "Urgent", ranks["PAY-4"]),
        "PAY-5": ("LOW", "Minor", ranks["PAY-5"])}
    six, seven, five = (sprint_id(engine, f"PAY Sprint {n}") for n in (6, 7, 5))
    # TASKS.SPRINT_ID stays the latest: the active sprint, else the last closed one listed
    assert (tasks["PAY-1"]["sprint_id"], tasks["PAY-3"]["sprint_id"], tasks["PAY-4"]["sprint_id"]) == (seven, six, None)
    assert keys(engine, Predicate("sprint", (six,))) == ["PAY-1", "PAY-3"]  # PAY-1 was carried over from it
    assert keys(engine, Predicate("sprint", (five,))) == ["PAY-3"]
    assert keys(engine, Predicate("sprint", (seven,)), Predicate("open", (True,))) == ["PAY-1", "PAY-2", "PAY-5"]
    groups = engine.run_tracker_query(MANAGER, TrackerQuery(returns="group", group_by="sprint")).groups
    assert {g.label: g.count for g in groups} == {"PAY Sprint 7": 3, "PAY Sprint 6": 1, "no sprint": 1}
    # "minor" is not "trivial" any more; our LOW holds both
    assert keys(engine, Predicate("priority_name", ("minor",))) == ["PAY-5"]
    assert keys(engine, Predicate("priority", ("LOW",))) == ["PAY-3", "PAY-5"]
    # the most important: among two CRITICAL ones, the Blocker first, although the Critical one is due
    assert keys(engine, Predicate("priority", ("CRITICAL",)), order="priority", descending=True) == ["PAY-1", "PAY-2"]
    values = engine.tracker_values(MANAGER).values["priority_name"]
    assert values == ("Blocker", "Critical", "Minor", "Trivial", "Urgent")


@pytest.mark.parametrize("api", ["2", "3"])
def test_a_rest_pass_reads_the_priority_order_once_and_every_sprint_then_a_resync_replaces_the_set(api,
                                                                                                   sqlite_engine):
    with FakeJira(api) as fake:
        fake.priorities = jira_data.priorities(*SITE_ORDER)
        for issue in issues(api):
            fake.put(issue)
        first = run_pass(sqlite_engine, jira_reader(fake, page_size=2), overlap=OVERLAP, reconcile=True)
        assert (first.created, first.failed) == (5, 0)
        assert sum(path.endswith("/priority") for path, _ in fake.requests) == 1  # once for three pages
        check_imported(sqlite_engine, REST_RANKS)
        drain_all(sqlite_engine)

        again = run_pass(sqlite_engine, jira_reader(fake), overlap=dt.timedelta(days=1), reconcile=True)
        assert (again.created, again.updated, again.unchanged) == (0, 0, 5) and peek_queue(sqlite_engine) == []

        # PAY-1 is taken out of Sprint 6's history (a sprint field edited), and PAY-5 is now a Trivial
        pay1, pay5 = fake.issues["PAY-1"]["fields"], fake.issues["PAY-5"]["fields"]
        pay1["customfield_10020"] = [sprint(12, "active")]
        pay5["priority"] = jira_data.priority_object("Trivial")
        pay1["updated"], pay5["updated"] = jira_data.stamp(100), jira_data.stamp(101)
        counts = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (counts.created, counts.updated, counts.failed) == (0, 2, 0)
        six = sprint_id(sqlite_engine, "PAY Sprint 6")
        assert keys(sqlite_engine, Predicate("sprint", (six,))) == ["PAY-3"]
        assert (task_by_key(sqlite_engine, "PAY-5")["priority_name"], task_by_key(sqlite_engine, "PAY-5")[
            "priority_rank"]) == ("Trivial", 6)


def test_an_account_that_may_not_read_the_priorities_ranks_them_by_id(sqlite_engine):
    with FakeJira("3") as fake:
        fake.fail(r"/priority$", 403)
        for issue in issues("3"):
            fake.put(issue)
        counts = run_pass(sqlite_engine, jira_reader(fake), overlap=OVERLAP, reconcile=True)
        assert (counts.created, counts.failed) == (5, 0)
        check_imported(sqlite_engine, ID_RANKS)


def test_the_file_import_ranks_by_the_priority_ids_and_keeps_every_sprint(tmp_path, sqlite_settings, sqlite_engine):
    export = tmp_path / "export"
    export.mkdir()
    for issue in issues("2"):
        (export / f"{issue['key']}.json").write_text(json.dumps(issue))
    run = lambda *a: CliRunner().invoke(cli, list(a), obj=CliEnv(sqlite_settings, sqlite_engine))  # noqa: E731
    first = run("import", "jira", str(export), "--source", "https://acme.atlassian.net")
    assert first.exit_code == 0, first.output
    check_imported(sqlite_engine, ID_RANKS)
    second = run("import", "jira", str(export), "--source", "https://acme.atlassian.net")
    assert "5 unchanged" in second.output and peek_queue(sqlite_engine) == []


def test_the_mapping_of_priorities_and_sprints():
    ranks = mapping.priority_ranks(jira_data.priorities(*SITE_ORDER))
    assert ranks == {"10000": 1, "1": 2, "2": 3, "3": 4, "4": 5, "5": 6}
    assert mapping.priority_rank({"id": "1", "name": "Blocker"}, ranks) == 2
    assert mapping.priority_rank({"id": "777", "name": "Gone"}, ranks) is None  # the site's order does not hold it
    assert mapping.priority_rank({"id": "4", "name": "Minor"}, {}) == 4
    assert [mapping.priority_rank(p, None) for p in ({"name": "Major"}, {"id": "x"}, {"id": "0"}, None)] == [
        None, None, None, None]
    both = [jira_data.sprint_string(11, "PAY Sprint 6", "CLOSED"), sprint(11, "closed"), sprint(12, "active")]
    assert [(s.external_id, s.status) for s in mapping.all_sprints([*both, "garbage"])] == [
        ("11", "CLOSED"), ("12", "ACTIVE")]
    long_name = jira_data.issue("PAY-9", "x", priority="P" * 150)
    issue = jira.issue_of(long_name)
    assert (issue.priority, issue.priority_name, issue.priority_rank) == ("MEDIUM", "P" * 100, 10000)
    assert jira.issue_of(jira_data.issue("PAY-9", "x", priority=None)).priority_name is None


def test_asked_in_chat_minor_is_not_trivial_the_blocker_comes_first_and_a_past_sprint_holds_its_issues(
        sqlite_engine, sqlite_settings):
    """Offline through POST /api/v1/chat on the imported issues: the measured failures of the brief, answered."""
    from fastapi.testclient import TestClient

    from app.api.main import create_app
    from app.entities import EMPLOYEES
    from app.sources.pipeline import import_issues
    from app.worker import Worker

    written = import_issues(sqlite_engine, "jira:https://example.atlassian.net",
                            [jira.issue_of(i) for i in issues("2")])
    assert written.created == 5
    people = {p["first_name"]: p["employee_id"] for p in sqlite_engine.list_records(EMPLOYEES, [], None, 50).items}
    sqlite_engine.update(EMPLOYEES, people["Mia"], {"ROLE": "MANAGER"})
    Worker(sqlite_engine, sqlite_settings).run_once()
    tasks = {k: task_by_key(sqlite_engine, k)["task_id"] for k in ("PAY-1", "PAY-3", "PAY-5")}
    settings = sqlite_settings.model_copy(update={"run_worker": False, "backfill_on_startup": False})
    with TestClient(create_app(settings, engine=sqlite_engine)) as client:
        def ask(question: str) -> str:
            response = client.post("/api/v1/chat", json={"message": question, "employee_id": people["Mia"]},
                                   headers={"Authorization": "Bearer test-token"})
            assert response.status_code == 200, response.text
            return response.json()["answer"]

        assert ask("how many minor issues are there?").startswith(f"Tasks (priority Minor): 1 — [TASK #{tasks['PAY-5']}]")
        assert ask("how many trivial issues?").startswith(f"Tasks (priority Trivial): 1 — [TASK #{tasks['PAY-3']}]")
        # PAY-2 (Critical) is due and PAY-1 (Blocker) is not: the tracker's order decides within CRITICAL
        top = ask("what is the most important open issue?")
        assert f"- [TASK #{tasks['PAY-1']}] PAY-1 Refund fails — TODO (To Do), CRITICAL (Blocker)" in top.split("\n")[1]
        past = ask("what was open in PAY Sprint 5?")  # closed: only the issue that was in it finds it
        assert f"[TASK #{tasks['PAY-3']}] PAY-3" in past and "PAY-1" not in past
