"""REST conventions over HTTP: one envelope for every collection, keyset cursors, filters, unknown
parameters refused by name, and `question` as the alias of /chat's `message`."""

from __future__ import annotations

import base64
import json

import pytest

from app import paging
from tests.support import employee, project, task

from .conftest import AUTH

ENVELOPE = {"items", "total", "next_cursor"}


def test_every_collection_answers_the_one_envelope(client):
    """Every GET whose path does not end in an id is a collection, and its 200 schema is the envelope; but for
    two single documents: who a chat answers as, and the calling token."""
    spec = client.get("/openapi.json").json()
    documents = {"/api/v1/chat/caller", "/api/v1/token"}
    collections = [path for path, ops in spec["paths"].items() if "get" in ops and path.startswith("/api/")
                   and not path.endswith("}") and "/rag/" not in path and path not in documents]
    assert len(collections) == 10  # six record lists, conversations, a conversation's messages, a chat's projects,
    # a project's members
    for path in collections:
        ref = spec["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        schema = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert set(schema["properties"]) == ENVELOPE and set(schema["required"]) == {"items", "total", "next_cursor"}, path
        names = {p["name"] for p in spec["paths"][path]["get"]["parameters"]}
        assert {"limit", "cursor"} <= names and "offset" not in names, path


def test_tasks_filter_and_page_over_http(client, sqlite_engine):
    ana, ben = employee(sqlite_engine, "Ana", "Ruiz"), employee(sqlite_engine, "Ben", "Ode")
    ids = [task(sqlite_engine, f"T{i}", assignee_id=ana if i % 2 else ben, status="DONE" if i < 2 else "TODO",
                expected_end_date=f"2026-05-0{i + 1}") for i in range(5)]
    got = client.get("/api/v1/tasks", params={"assignee_id": ana, "status": "todo"}, headers=AUTH).json()
    assert [t["task_id"] for t in got["items"]] == [ids[3]] and got["total"] == 1 and got["next_cursor"] is None
    due = client.get("/api/v1/tasks", params={"due_after": "2026-05-02", "due_before": "2026-05-05"}, headers=AUTH)
    assert [t["task_id"] for t in due.json()["items"]] == [ids[2], ids[3]]
    assert client.get("/api/v1/tasks", params={"assignee_id": "none"}, headers=AUTH).json()["total"] == 0

    seen, cursor = [], None
    while True:  # pages of two, a task inserted in the middle of the walk
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = client.get("/api/v1/tasks", params=params, headers=AUTH).json()
        seen += [t["task_id"] for t in page["items"]]
        if len(seen) == 2:
            ids.append(task(sqlite_engine, "late"))
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids and page["total"] == 6


@pytest.mark.parametrize("params,loc", [
    ({"asignee_id": 3}, ["query", "asignee_id"]),  # a misspelt filter must not return every task
    ({"offset": 10}, ["query", "offset"]),  # offsets are gone: keyset cursors only
    ({"cursor": "not-a-cursor"}, ["query", "cursor"]),
    ({"cursor": "%%%"}, ["query", "cursor"]),
    ({"due_before": "tomorrow"}, ["query", "due_before"]),
    ({"assignee_id": "nobody"}, ["query", "assignee_id"]),
    ({"limit": 501}, ["query", "limit"]),
])
def test_bad_list_parameters_are_a_422_naming_the_parameter(client, params, loc):
    response = client.get("/api/v1/tasks", params=params, headers=AUTH)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][:2] == loc


def test_an_unknown_parameter_says_which_ones_the_endpoint_takes(client):
    detail = client.get("/api/v1/tasks", params={"assignee": 3}, headers=AUTH).json()["detail"][0]
    assert detail["type"] == "extra_forbidden"
    assert detail["msg"] == ("unknown query parameter (this endpoint takes: assignee_id, cursor, due_after, due_before, "
                             "external_key, limit, priority, project_id, source, sprint_id, status)")


def test_a_cursor_from_other_filters_is_refused(client, sqlite_engine):
    for i in range(3):
        task(sqlite_engine, f"T{i}")
    cursor = client.get("/api/v1/tasks", params={"limit": 1}, headers=AUTH).json()["next_cursor"]
    assert client.get("/api/v1/tasks", params={"limit": 1, "cursor": cursor}, headers=AUTH).status_code == 200
    other = client.get("/api/v1/tasks", params={"limit": 1, "cursor": cursor, "status": "TODO"}, headers=AUTH)
    assert other.status_code == 422 and "other filters" in other.json()["detail"][0]["msg"]
    assert client.get("/api/v1/projects", params={"cursor": cursor}, headers=AUTH).status_code == 422


def test_question_is_an_alias_of_message_on_chat(client, sqlite_engine):
    boss = employee(sqlite_engine, "Maria", "Lopez", role="MANAGER")
    by_alias = client.post("/api/v1/chat", json={"employee_id": boss, "question": "login bug"}, headers=AUTH)
    assert by_alias.status_code == 200, by_alias.text
    both = client.post("/api/v1/chat", json={"employee_id": boss, "question": "a", "message": "b"}, headers=AUTH)
    assert both.status_code == 422 and "not both" in both.text
    schema = client.get("/openapi.json").json()["components"]["schemas"]["ChatRequest"]
    assert "message" in schema["required"] and "question" not in schema["properties"]  # one canonical name
    assert "alias" in schema["properties"]["message"]["description"]


def test_due_after_the_last_day_there_is_a_422_not_a_500(client, sqlite_engine):
    task(sqlite_engine, "T", expected_end_date="9999-12-31")
    last = client.get("/api/v1/tasks", params={"due_after": "9999-12-31"}, headers=AUTH)
    assert last.status_code == 422 and "due_after must be before 9999-12-31" in last.text
    assert client.get("/api/v1/tasks", params={"due_before": "9999-12-31"}, headers=AUTH).json()["total"] == 0
    assert client.get("/api/v1/tasks", params={"due_after": "9999-12-30"}, headers=AUTH).json()["total"] == 1


def _rekeyed(cursor: str, key: str) -> str:
    """An issued cursor with its key replaced by ``key`` (JSON text) and its checksum recomputed: what anyone
    who reads app/paging.py can forge (the checksum catches typos, not forgers)."""
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    version, query, _ = json.loads(raw[8:])
    payload = f'[{version},"{query}",{key}]'.encode()
    return base64.urlsafe_b64encode(paging._check(payload) + payload).rstrip(b"=").decode()


@pytest.mark.parametrize("number", ["1e400", "Infinity", "-Infinity", "NaN", "2.5"])
def test_a_forged_cursor_holding_a_float_is_a_422(client, sqlite_engine, number):
    """JSON's 1e400 is infinity, which no id converts from: no cursor this server issues holds a float."""
    boss = employee(sqlite_engine, "Maria", "Lopez", role="MANAGER")
    for name in ("Alpha", "Beta", "Gamma"):
        project(sqlite_engine, name)
        task(sqlite_engine, name)
    for path, params, key in (("/api/v1/chat/projects", {"employee_id": boss}, f'["alpha",{number}]'),
                              ("/api/v1/tasks", {}, number)):
        issued = client.get(path, params={**params, "limit": 1}, headers=AUTH).json()["next_cursor"]
        forged = client.get(path, params={**params, "limit": 1, "cursor": _rekeyed(issued, key)}, headers=AUTH)
        assert forged.status_code == 422, (path, forged.text)
        assert forged.json()["detail"][0]["loc"] == ["query", "cursor"]
