"""Search end to end (seed, drain, ask) with the role read from EMPLOYEES; rag status and reindex."""

from __future__ import annotations

import pytest

from app.worker import Worker
from tests.support import document, employee, project, sprint, task

from .conftest import AUTH


@pytest.fixture
def team(sqlite_engine, api_settings):
    e = sqlite_engine
    boss = employee(e, "Maria", "Lopez", role="MANAGER", telegram_id="111")
    ana = employee(e, "Ana", "Garcia", telegram_id="222")
    ben = employee(e, "Ben", "Carter")
    p = project(e, "Payments Platform", description="Card payments and refunds")
    s = sprint(e, p, "Payments Sprint 1", goal="Ship refunds")
    ana_task = task(e, "Fix login bug after password reset", "Users are logged out after a reset",
                    assignee_id=ana, project_id=p, sprint_id=s)
    ben_task = task(e, "Login bug on the checkout page", "Session expires during checkout login",
                    assignee_id=ben, project_id=p, sprint_id=s)
    document(e, "On-call runbook", "Page the primary on call first.")
    Worker(e, api_settings).run_once()
    return {"boss": boss, "ana": ana, "ben": ben, "project": p, "sprint": s, "ana_task": ana_task, "ben_task": ben_task}


def ask(client, **body):
    return client.post("/api/v1/search", json={"question": "login bug", **body}, headers=AUTH)


def task_ids(response):
    return {r["source_id"] for r in response.json()["results"] if r["source_type"] == "task"}


def test_search_returns_results_with_caller_and_timings(client, team, api_settings):
    response = ask(client, employee_id=team["boss"])
    assert response.status_code == 200
    body = response.json()
    assert body["caller"] == {"employee_id": team["boss"], "role": "MANAGER"}
    assert body["mode"] == api_settings.search_mode and body["answered_by"]
    assert set(body["timings_ms"]) == {"embed", "search"}
    assert len(body["results"]) == 5  # all 5 chunks (2 tasks, sprint, project, doc): top_k 8 > 5
    first = body["results"][0]
    assert set(first) == {"source_type", "source_id", "chunk_ix", "content", "distance", "score", "vector_rank",
                          "lexical_rank"}
    assert task_ids(response) == {team["ana_task"], team["ben_task"]}


def test_developer_sees_only_own_tasks_and_cannot_claim_a_role(client, team):
    mine = ask(client, employee_id=team["ana"])
    assert mine.json()["caller"]["role"] == "DEVELOPER"
    assert task_ids(mine) == {team["ana_task"]}
    # There is no field to claim a role: the body is refused instead of silently trusted.
    claimed = ask(client, employee_id=team["ana"], role="MANAGER")
    assert claimed.status_code == 422
    by_telegram = ask(client, telegram_id="222", top_k=50)
    assert by_telegram.json()["caller"] == {"employee_id": team["ana"], "role": "DEVELOPER"}
    assert task_ids(by_telegram) == {team["ana_task"]}


def test_scope_and_mode(client, team):
    only_tasks = ask(client, employee_id=team["boss"], source_types=["task"], mode="vector", top_k=1)
    body = only_tasks.json()
    assert body["mode"] == "vector" and len(body["results"]) == 1 and body["results"][0]["source_type"] == "task"
    no_project = ask(client, employee_id=team["boss"], project="none")
    assert {r["source_type"] for r in no_project.json()["results"]} == {"doc"}
    in_sprint = ask(client, employee_id=team["boss"], project=team["project"], sprint_id=team["sprint"])
    assert in_sprint.status_code == 200 and task_ids(in_sprint) == {team["ana_task"], team["ben_task"]}


def test_lexical_mode_keeps_access_and_finds_nothing_without_a_searchable_term(client, team):
    mine = ask(client, employee_id=team["ana"], mode="lexical", top_k=50)
    body = mine.json()
    assert mine.status_code == 200 and body["mode"] == "lexical" and body["answered_by"] == "memory"
    # The chunks that name login or bug, as Ana may see them: her task, not Ben's.
    assert [(r["source_type"], r["source_id"]) for r in body["results"]] == [("task", team["ana_task"])]
    assert 0 <= body["results"][0]["distance"] <= 2 and body["results"][0]["score"] > 0
    boss = ask(client, employee_id=team["boss"], mode="lexical", top_k=50)
    assert task_ids(boss) == {team["ana_task"], team["ben_task"]}
    nothing = ask(client, employee_id=team["boss"], mode="lexical", question="what is the and of it?")
    assert nothing.status_code == 200 and nothing.json()["results"] == []


def test_doc_types_narrow_documents_only(client, team):
    wiki = ask(client, employee_id=team["boss"], doc_types=["wiki"], top_k=50)  # the fixture's doc is a WIKI
    assert wiki.status_code == 200
    assert {r["source_type"] for r in wiki.json()["results"]} == {"task", "sprint", "project", "doc"}
    notes = ask(client, employee_id=team["boss"], source_types=["task", "doc"], doc_types=["MEETING_NOTES"], top_k=50)
    assert {r["source_type"] for r in notes.json()["results"]} == {"task"}  # no meeting notes: only the tasks


@pytest.mark.parametrize("doc_types, detail", [
    (["WIKI", "wiki;drop"], "document type 'wiki;drop'"),
    ([""], "document type ''"),
    (["x" * 41], "1-40 letters"),
    ([], "at least 1 item"),
])
def test_bad_doc_type_is_422_with_the_reason(client, team, doc_types, detail):
    response = ask(client, employee_id=team["boss"], doc_types=doc_types)
    assert response.status_code == 422 and detail in response.json()["detail"][0]["msg"]


@pytest.mark.parametrize("body", [
    {"employee_id": 1, "telegram_id": "222"},
    {},
    {"employee_id": 1, "project": "some"},
    {"employee_id": 1, "source_types": ["bogus"]},
    {"employee_id": 1, "source_types": []},
    {"employee_id": 1, "top_k": 0},
    {"employee_id": 1, "top_k": 101},
    {"employee_id": 1, "mode": "fuzzy"},
    {"employee_id": 1, "question": ""},
    {"employee_id": 1, "question": "x" * 2001},
    {"employee_id": 2**63},
    {"employee_id": True},
    {"employee_id": 1, "top_k": True},
    {"employee_id": 1, "sprint_id": 2**63},
])
def test_bad_search_input_is_422(client, team, body):
    response = client.post("/api/v1/search", json={"question": "login", **body}, headers=AUTH)
    assert response.status_code == 422


def test_unknown_caller_is_404(client, team):
    response = ask(client, employee_id=987)
    assert response.status_code == 404 and response.json() == {"detail": "employee 987 does not exist"}
    assert ask(client, telegram_id="999").status_code == 404


def test_rag_status_and_reindex(client, team):
    status = client.get("/api/v1/rag/status", headers=AUTH).json()
    assert status["engine"] == "sqlite" and status["pending"] == 0 and status["dimensions"] == 384
    assert status["chunks_by_source_type"] == {"task": 2, "sprint": 1, "project": 1, "doc": 1}
    assert client.post("/api/v1/rag/reindex", json={}, headers=AUTH).json() == {"enqueued": 0, "retried": 0}
    forced = client.post("/api/v1/rag/reindex", json={"source_types": ["task"], "force": True}, headers=AUTH)
    assert forced.status_code == 202 and forced.json()["enqueued"] == 2
    assert client.get("/api/v1/rag/status", headers=AUTH).json()["pending"] == 2
    client.post("/api/v1/rag/reindex", json={"source_types": ["task"], "force": True}, headers=AUTH)
    again = client.get("/api/v1/rag/status", headers=AUTH).json()  # the same two tasks queued twice
    assert (again["pending"], again["queue_rows"]) == (2, 4)
    scoped = client.post("/api/v1/rag/reindex", json={"project_id": 999, "force": True}, headers=AUTH)
    assert scoped.json()["enqueued"] == 0
    assert client.post("/api/v1/rag/reindex", json={"source_types": ["nope"]}, headers=AUTH).status_code == 422
