"""Questions answered on an imported Jira tracker, offline, through POST /api/v1/chat: a search by words, a count
by the mapped status, "my tasks" for an imported person, a developer who sees only their issues; and the chunk an
imported issue becomes (key, type, status name, links, comment authors and dates)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.domain import Caller, Role, Scope
from app.entities import EMPLOYEES, TASKS
from app.sources import jira
from app.sources.pipeline import import_issues
from app.worker import Worker
from tests.sources import jira_data

AUTH = {"Authorization": "Bearer test-token"}


@pytest.fixture
def imported(sqlite_engine, sqlite_settings):
    issues = [jira.issue_of(i, story_points_field="customfield_10016") for i in jira_data.tracker()]
    assert import_issues(sqlite_engine, "jira:https://example.atlassian.net", issues).created == 4
    people = {p["first_name"]: p["employee_id"] for p in sqlite_engine.list_records(EMPLOYEES, [], None, 50).items}
    sqlite_engine.update(EMPLOYEES, people["Mia"], {"ROLE": "MANAGER"})  # roles are the team's to edit
    Worker(sqlite_engine, sqlite_settings).run_once()
    tasks = {t["external_key"]: t["task_id"] for t in sqlite_engine.list_records(TASKS, [], None, 50).items}
    settings = sqlite_settings.model_copy(update={"run_worker": False, "backfill_on_startup": False})
    with TestClient(create_app(settings, engine=sqlite_engine)) as client:
        def ask(who: str, question: str) -> dict:
            response = client.post("/api/v1/chat", json={"message": question, "employee_id": people[who]}, headers=AUTH)
            assert response.status_code == 200, response.text
            return response.json()

        yield ask, tasks


def test_a_search_by_words_finds_the_imported_issue(imported):
    ask, tasks = imported
    body = ask("Mia", "ledger export times out")
    assert f"[TASK #{tasks['PAY-2']}]" in body["citations"] and "Ledger export times out" in body["answer"]


def test_counts_and_my_tasks_read_the_mapped_fields(imported):
    ask, tasks = imported
    review = ask("Mia", "how many tasks are in review?")
    assert review["citations"] == [f"[TASK #{tasks['PAY-1']}]"] and ": 1" in review["answer"]  # "In QE Test"
    mine = ask("Chen", "what are my tasks?")
    assert sorted(mine["citations"]) == sorted([f"[TASK #{tasks['PAY-1']}]", f"[TASK #{tasks['PAY-4']}]"])
    # status and priority (each with the tracker's own name), due, sprint
    assert "IN_REVIEW (In QE Test), CRITICAL (Blocker), due 2026-11-30, PAY Sprint 7" in mine["answer"]


def test_a_developer_sees_only_the_issues_assigned_to_them(imported):
    ask, tasks = imported
    body = ask("Emma", "refund fails for EUR")  # PAY-1 is Chen's
    assert f"[TASK #{tasks['PAY-1']}]" not in body["citations"] and f"TASK #{tasks['PAY-1']}" not in body["answer"]
    assert ask("Emma", "ledger export times out")["citations"] == [f"[TASK #{tasks['PAY-2']}]"]


def test_the_imported_chunk_carries_key_type_status_name_links_and_comment_authors(imported, sqlite_engine):
    ask, tasks = imported
    mia = next(p for p in sqlite_engine.list_records(EMPLOYEES, [], None, 50).items if p["first_name"] == "Mia")
    vector = sqlite_engine.embed_query("refund fails for EUR")
    hits = sqlite_engine.search(vector, "refund fails EUR", Caller(mia["employee_id"], Role.MANAGER), 5,
                                Scope(), "hybrid").hits
    text = next(h.content for h in hits if h.source_id == tasks["PAY-1"])
    assert text.startswith(f"[TASK #{tasks['PAY-1']}] PAY-1 (Bug) Refund fails for EUR")
    assert "Status: IN_REVIEW (In QE Test) | Priority: CRITICAL (Blocker) | Sprint: PAY Sprint 7" in text
    assert "Labels: backend, refunds" in text and "Blocked by: PAY-2" in text
    assert "- Emma Richards (2026-11-02): Seen on prod" in text and "- Chen Wei (2026-11-02): Fix in review" in text


def test_questions_by_key_on_the_imported_tracker(imported):
    ask, tasks = imported
    anchor = f"[TASK #{tasks['PAY-1']}]"
    status = ask("Mia", "what is the status of PAY-1?")
    assert status["citations"] == [anchor] and "IN_REVIEW (In QE Test)" in status["answer"]
    blocks = ask("Mia", "what blocks PAY-1?")  # the tasks it waits on, cited: the answer is them
    assert blocks["citations"] == [f"[TASK #{tasks['PAY-2']}]"] and "PAY-1" in blocks["answer"].splitlines()[0]
    assert ask("Mia", "what does PAY-1 depend on?")["citations"] == blocks["citations"]
    assert ask("Mia", "who commented on PAY-1?")["citations"] == [anchor]
    # Emma may not see PAY-1 (Chen's): asking for it answers exactly as it does once no PAY-1 exists at all (her own
    # PAY-2 still names it in "Blocks: PAY-1"), and never cites it.
    hidden = ask("Emma", "what is the status of PAY-1?")
    assert anchor not in hidden["citations"] and "PAY-1 (Bug)" not in hidden["answer"]


def test_a_hidden_key_answers_as_a_key_that_names_nothing(imported, sqlite_engine):
    ask, tasks = imported
    hidden = ask("Emma", "what is the status of PAY-1?")
    sqlite_engine.delete(TASKS, tasks["PAY-1"])  # its chunk goes at once; PAY-2's text (and link key) stays
    unknown = ask("Emma", "what is the status of PAY-1?")
    assert (hidden["answer"], hidden["citations"]) == (unknown["answer"], unknown["citations"])


def test_people_are_found_by_their_imported_names(imported):
    ask, tasks = imported
    chen = ask("Mia", "what is Chen Wei working on?")  # "Chen Wei" came from Jira's displayName
    assert sorted(chen["citations"]) == sorted([f"[TASK #{tasks['PAY-1']}]", f"[TASK #{tasks['PAY-4']}]"])
    assert "Chen Wei" in chen["answer"]
    assert ask("Mia", "tasks assigned to Emma Richards")["citations"] == [f"[TASK #{tasks['PAY-2']}]"]


def test_a_key_of_a_known_project_that_names_nothing_visible_is_answered_by_the_lookup_in_one_wording(imported):
    """Issue 31, point 6: a teammate's key, a key one number lower and a key that does not exist were answered by
    three wordings, two of them listing another record; now the lookup answers each, naming no other record."""
    ask, tasks = imported
    for key in ("PAY-1", "PAY-9999"):  # PAY-1 is Chen's, hidden from Emma; PAY-9999 does not exist
        body = ask("Emma", f"what is the status of {key}?")
        assert body["route"] == "lookup" and body["citations"] == []
        assert body["answer"] == f"I can't find {key} among what you can see."
    assert ask("Emma", "¿cuál es el estado de PAY-9999?")["answer"] == "No encuentro PAY-9999 entre lo que puedes ver."
