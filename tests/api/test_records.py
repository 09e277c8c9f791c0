"""CRUD round trips over the real SQLite engine: 201/200/204, 404, 409 and 422 with nothing changed."""

from __future__ import annotations

import pytest

from .conftest import AUTH


def post(client, name, body):
    return client.post(f"/api/v1/{name}", json=body, headers=AUTH)


def snapshot(client):
    return {name: client.get(f"/api/v1/{name}", headers=AUTH).json()
            for name in ("employees", "projects", "sprints", "tasks", "comments", "documents")}


@pytest.fixture
def seeded(client):
    emp = post(client, "employees", {"first_name": "Ana", "last_name": "Garcia", "email": "ana@example.com",
                                     "role": "DEVELOPER", "telegram_id": 4242}).json()
    proj = post(client, "projects", {"name": "Apollo", "status": "ACTIVE", "start_date": "2024-01-01",
                                     "end_date": "2024-06-30"}).json()
    spr = post(client, "sprints", {"project_id": proj["project_id"], "name": "Sprint 1", "goal": "Ship login"}).json()
    task = post(client, "tasks", {"title": "Fix login", "project_id": proj["project_id"], "sprint_id": spr["sprint_id"],
                                  "assignee_id": emp["employee_id"], "story_points": 3,
                                  "expected_end_date": "2024-02-01"}).json()
    return {"employee": emp, "project": proj, "sprint": spr, "task": task}


def test_round_trip_of_every_entity(client, seeded):
    emp, proj, task = seeded["employee"], seeded["project"], seeded["task"]
    assert emp["telegram_id"] == "4242" and emp["role"] == "DEVELOPER"
    assert proj["start_date"] == "2024-01-01" and proj["end_date"] == "2024-06-30"
    assert task["expected_end_date"] == "2024-02-01" and task["story_points"] == 3

    com = post(client, "comments", {"task_id": task["task_id"], "author_id": emp["employee_id"], "body": "On it"})
    assert com.status_code == 201 and com.json()["body"] == "On it"
    doc = post(client, "documents", {"title": "Runbook", "body": "Page the on-call.", "doc_type": "WIKI"})
    assert doc.status_code == 201 and doc.json()["owner_employee_id"] is None

    url = f"/api/v1/tasks/{task['task_id']}"
    assert client.get(url, headers=AUTH).json() == task
    patched = client.patch(url, json={"status": "DONE", "description": None}, headers=AUTH)
    assert patched.status_code == 200
    assert patched.json()["updated_at"] > task["updated_at"] == task["created_at"]  # stamped on every change
    assert patched.json() == {**task, "status": "DONE", "description": None,  # untouched fields stay
                              "updated_at": patched.json()["updated_at"]}
    listed = client.get("/api/v1/tasks", params={"limit": 10}, headers=AUTH).json()
    assert listed["total"] == 1 and listed["items"][0]["status"] == "DONE" and listed["next_cursor"] is None

    assert client.delete(f"/api/v1/comments/{com.json()['comment_id']}", headers=AUTH).status_code == 204
    assert client.delete(url, headers=AUTH).status_code == 204
    assert client.get(url, headers=AUTH).status_code == 404


def test_unknown_ids_are_404(client):
    for method in ("GET", "PATCH", "DELETE"):
        response = client.request(method, "/api/v1/projects/999", json={"status": "X"} if method == "PATCH" else None,
                                  headers=AUTH)
        assert response.status_code == 404
        assert response.json() == {"detail": "project 999 not found"}


def test_conflict_is_409_with_the_message_and_changes_nothing(client, seeded):
    before = snapshot(client)
    response = post(client, "comments", {"task_id": 999_999, "body": "orphan"})
    assert response.status_code == 409 and response.json()["detail"]
    response = client.patch(f"/api/v1/tasks/{seeded['task']['task_id']}", json={"assignee_id": 999_999}, headers=AUTH)
    assert response.status_code == 409
    assert snapshot(client) == before


@pytest.mark.parametrize("name,body", [
    ("employees", {"first_name": "A", "last_name": "B", "email": "not-an-email"}),
    ("employees", {"first_name": "A", "last_name": "B", "email": "a@b.io", "role": "CEO"}),
    ("employees", {"first_name": " ", "last_name": "B", "email": "a@b.io"}),
    ("projects", {"name": ""}),
    ("projects", {"name": "P", "start_date": "not a date"}),
    ("projects", {"name": "P", "start_date": "2024-05-01", "end_date": "2024-01-01"}),
    ("sprints", {"name": "S", "project_id": 0}),
    ("tasks", {"title": "T", "story_points": -1}),
    ("tasks", {"title": "T", "unknown_column": 1}),
    ("tasks", {"description": "no title"}),
    ("comments", {"task_id": -3, "body": "x"}),
    ("documents", {"title": "D", "owner_employee_id": "abc"}),
])
def test_bad_input_is_422_and_changes_nothing(client, seeded, name, body):
    before = snapshot(client)
    response = post(client, name, body)
    assert response.status_code == 422, response.text
    assert snapshot(client) == before


def test_patch_rejects_null_for_required_fields_and_bad_ids(client, seeded):
    before = snapshot(client)
    url = f"/api/v1/tasks/{seeded['task']['task_id']}"
    assert client.patch(url, json={"title": None}, headers=AUTH).status_code == 422
    assert client.patch(url, json={"title": "   "}, headers=AUTH).status_code == 422
    assert client.patch("/api/v1/tasks/0", json={"title": "x"}, headers=AUTH).status_code == 422
    assert client.get("/api/v1/tasks/abc", headers=AUTH).status_code == 422
    assert client.get("/api/v1/tasks", params={"limit": 0}, headers=AUTH).status_code == 422
    assert snapshot(client) == before


def test_empty_patch_returns_the_row_unchanged(client, seeded):
    url = f"/api/v1/projects/{seeded['project']['project_id']}"
    response = client.patch(url, json={}, headers=AUTH)
    assert response.status_code == 200 and response.json() == seeded["project"]


HUGE = 2**63  # one past SQLite's INTEGER range: the driver would raise OverflowError (a 500)


@pytest.mark.parametrize("method,path,body", [
    ("GET", f"/api/v1/tasks/{HUGE}", None),
    ("PATCH", f"/api/v1/tasks/{HUGE}", {"title": "x"}),
    ("DELETE", f"/api/v1/tasks/{HUGE}", None),
    ("GET", f"/api/v1/tasks?assignee_id={HUGE}", None),
    ("POST", "/api/v1/tasks", {"title": "T", "project_id": HUGE}),
    ("POST", "/api/v1/tasks", {"title": "T", "assignee_id": True}),  # a JSON boolean is not an id
    ("POST", "/api/v1/comments", {"task_id": "1", "body": "ids are numbers, not strings"}),
    ("POST", "/api/v1/rag/reindex", {"project_id": HUGE}),
])
def test_out_of_range_or_mistyped_ids_are_422_and_change_nothing(client, seeded, method, path, body):
    before = snapshot(client)
    response = client.request(method, path, json=body, headers=AUTH)
    assert response.status_code == 422, response.text
    assert snapshot(client) == before


def test_patch_cannot_put_the_end_before_the_stored_start(client, seeded):
    """Create refuses end_date < start_date; a PATCH of one date must not get round that."""
    before = snapshot(client)
    url = f"/api/v1/projects/{seeded['project']['project_id']}"  # 2024-01-01 -> 2024-06-30
    for body in ({"end_date": "2023-12-31"}, {"start_date": "2024-07-01"}):
        response = client.patch(url, json=body, headers=AUTH)
        assert response.status_code == 422, response.text
        assert "end_date is before start_date" in response.text
    assert snapshot(client) == before
    assert client.patch(url, json={"start_date": "2024-07-01", "end_date": "2024-12-31"}, headers=AUTH).status_code == 200
    assert client.patch(url, json={"start_date": None}, headers=AUTH).status_code == 200


JIRA = "jira:https://acme.atlassian.net"


def test_an_imported_task_round_trips_and_is_found_by_its_key(client):
    body = {"title": "Refund fails", "source": JIRA, "external_key": "PAY-1210", "issue_type": "Bug",
            "status": "IN_REVIEW", "status_name": "In QE Test", "labels": ["backend", "refunds"],
            "fix_versions": ["2026.12"], "components": ["Payments API"]}
    created = post(client, "tasks", body)
    assert created.status_code == 201, created.text
    assert {k: created.json()[k] for k in body} == body
    post(client, "tasks", {**body, "source": "github:octo/repo"})  # the same key in another source
    post(client, "tasks", {"title": "Native"})
    found = client.get("/api/v1/tasks", params={"external_key": "PAY-1210"}, headers=AUTH).json()
    assert [t["source"] for t in found["items"]] == [JIRA, "github:octo/repo"] and found["total"] == 2
    one = client.get("/api/v1/tasks", params={"external_key": "PAY-1210", "source": JIRA}, headers=AUTH).json()
    assert [t["task_id"] for t in one["items"]] == [created.json()["task_id"]]
    assert client.get("/api/v1/tasks", params={"external_key": "pay-1210"}, headers=AUTH).json()["total"] == 0
    person = post(client, "employees", {"first_name": "Chen", "last_name": "Wei", "email": "chen@example.com",
                                        "source": JIRA, "external_id": "5b10ac8d82e05b22cc7d4ef5"})
    assert person.status_code == 201 and person.json()["external_id"] == "5b10ac8d82e05b22cc7d4ef5"
    listed = client.get("/api/v1/employees", params={"external_id": "5b10ac8d82e05b22cc7d4ef5"}, headers=AUTH).json()
    assert [e["employee_id"] for e in listed["items"]] == [person.json()["employee_id"]]


@pytest.mark.parametrize("body", [
    {"title": "Key without source", "external_key": "PAY-1"},
    {"title": "Source without key", "source": JIRA},
    {"title": "Blank edge", "source": JIRA, "external_key": " PAY-1"},
    {"title": "Control char", "source": JIRA, "external_key": "PAY\n1"},
    {"title": "Too long", "source": JIRA, "external_key": "K" * 201},
])
def test_a_malformed_import_key_is_a_422_and_changes_nothing(client, body):
    before = snapshot(client)
    response = post(client, "tasks", body)
    assert response.status_code == 422, response.text
    assert snapshot(client) == before


def test_a_duplicate_key_in_one_source_or_a_lone_key_patched_in_is_a_409(client):
    first = post(client, "tasks", {"title": "One", "source": JIRA, "external_key": "PAY-1"}).json()
    again = post(client, "tasks", {"title": "Two", "source": JIRA, "external_key": "PAY-1"})
    assert again.status_code == 409
    native = post(client, "tasks", {"title": "Native"}).json()
    patched = client.patch(f"/api/v1/tasks/{native['task_id']}", json={"external_key": "PAY-2"}, headers=AUTH)
    assert patched.status_code == 409  # the CHECK: a key needs its source
    assert client.get(f"/api/v1/tasks/{native['task_id']}", headers=AUTH).json()["external_key"] is None
    assert client.get(f"/api/v1/tasks/{first['task_id']}", headers=AUTH).json()["title"] == "One"


def test_a_task_takes_and_shows_every_tracker_field(client, seeded):
    """Issue 31: reporter, times, resolution, environment, versions, parent and resolved-by round trip; lists are
    whole values in a fixed order (duplicates collapse), the display text is written from the same list."""
    emp, parent = seeded["employee"]["employee_id"], seeded["task"]["task_id"]
    body = {"title": "Crash on save", "reporter_id": emp, "resolved_by_id": emp, "created_at": "2026-11-02T09:30:00Z",
            "updated_at": "2026-11-20T10:00:00+01:00", "resolved_at": "2026-11-21T08:00:00", "resolution": "Won't Fix",
            "environment": "Android 14, Pixel 8", "labels": ["ui", "Release blocker", "ui"],
            "components": ["Mobile app"], "fix_versions": ["2.1.0"], "affects_versions": ["2.0.0", "1.9.4"],
            "parent_key": "MOB-7", "parent_id": parent}
    created = post(client, "tasks", body)
    assert created.status_code == 201, created.text
    row = created.json()
    assert row["labels"] == ["Release blocker", "ui"] and row["affects_versions"] == ["1.9.4", "2.0.0"]
    assert row["created_at"] == "2026-11-02T09:30:00Z" and row["updated_at"] == "2026-11-20T09:00:00Z"  # UTC
    assert (row["resolution"], row["reporter_id"], row["resolved_by_id"], row["parent_id"], row["parent_key"]) == (
        "Won't Fix", emp, emp, parent, "MOB-7")
    assert client.get(f"/api/v1/tasks/{row['task_id']}", headers=AUTH).json() == row
    patched = client.patch(f"/api/v1/tasks/{row['task_id']}", json={"labels": [], "components": ["Sync"]},
                           headers=AUTH).json()
    assert patched["labels"] == [] and patched["components"] == ["Sync"] and patched["fix_versions"] == ["2.1.0"]
    assert patched["created_at"] == row["created_at"] and patched["updated_at"] > row["updated_at"]


@pytest.mark.parametrize("body", [
    {"title": "T", "reporter_id": 0},
    {"title": "T", "created_at": "yesterday"},
    {"title": "T", "resolved_at": "2026-13-01T00:00:00"},
    {"title": "T", "labels": "backend, ui"},  # a list, never a string to split
    {"title": "T", "labels": ["x" * 201]},
    {"title": "T", "components": [" padded"]},
    {"title": "T", "fix_versions": ["a\nb"]},
    {"title": "T", "affects_versions": [""]},
    {"title": "T", "resolution": "R" * 201},
    {"title": "T", "parent_key": "K" * 201},
    {"title": "T", "labels": [str(i) for i in range(201)]},
])
def test_bad_tracker_fields_are_422_and_change_nothing(client, seeded, body):
    before = snapshot(client)
    response = post(client, "tasks", body)
    assert response.status_code == 422, response.text
    assert snapshot(client) == before


@pytest.mark.parametrize("field", ["reporter_id", "resolved_by_id", "parent_id"])
def test_a_tracker_field_naming_a_missing_row_is_409_and_changes_nothing(client, seeded, field):
    before = snapshot(client)
    assert post(client, "tasks", {"title": "T", field: 999_999}).status_code == 409
    url = f"/api/v1/tasks/{seeded['task']['task_id']}"
    assert client.patch(url, json={field: 999_999, "labels": ["kept out"]}, headers=AUTH).status_code == 409
    assert snapshot(client) == before


def test_a_task_takes_and_shows_the_trackers_own_priority_and_refuses_a_bad_one(client):
    """V16: the tracker's own priority name and rank beside ours, round trip; a blank or overlong name, a rank that
    is not a positive integer are a 422 that changes nothing."""
    body = {"title": "Refund fails", "priority": "HIGH", "priority_name": "Major", "priority_rank": 3}
    created = post(client, "tasks", body)
    assert created.status_code == 201, created.text
    assert {k: created.json()[k] for k in body} == body
    url = f"/api/v1/tasks/{created.json()['task_id']}"
    patched = client.patch(url, json={"priority_name": "Blocker", "priority_rank": 1}, headers=AUTH)
    assert (patched.json()["priority_name"], patched.json()["priority_rank"]) == ("Blocker", 1)
    assert client.patch(url, json={"priority_name": None, "priority_rank": None}, headers=AUTH).status_code == 200
    assert (client.get(url, headers=AUTH).json()["priority_name"], post(client, "tasks", {"title": "Native"}).json()[
        "priority_rank"]) == (None, None)
    before = snapshot(client)
    for bad in ({"priority_name": " "}, {"priority_name": "P" * 101}, {"priority_rank": 0}, {"priority_rank": "2"},
                {"priority_rank": 1.5}, {"priority_rank": True}):
        assert post(client, "tasks", {"title": "Bad", **bad}).status_code == 422, bad
    assert snapshot(client) == before
