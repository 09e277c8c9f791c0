"""Free text that feeds a chunk has a documented maximum: past it the write is a 422 and changes nothing."""

from __future__ import annotations

import pytest

from app.api.schemas import MAX_COMMENT_CHARS, MAX_TEXT_CHARS
from app.api.types import MAX_GOAL_BYTES
from app.rag.chunking import MAX_INDEXED_CHARS

from .conftest import AUTH


def post(client, name, body):
    return client.post(f"/api/v1/{name}", json=body, headers=AUTH)


def queue_depth(engine) -> int:
    return engine.conn.execute("SELECT COUNT(*) FROM RAG_DIRTY").fetchone()[0]


@pytest.fixture
def task_id(client):
    return post(client, "tasks", {"title": "Fix login"}).json()["task_id"]


@pytest.mark.parametrize("name,field,limit", [
    ("documents", "body", MAX_TEXT_CHARS),
    ("tasks", "description", MAX_TEXT_CHARS),
    ("projects", "description", MAX_TEXT_CHARS),
    ("comments", "body", MAX_COMMENT_CHARS),
])
def test_text_past_the_maximum_is_a_422_and_the_maximum_is_accepted(client, sqlite_engine, task_id, name, field, limit):
    base = {"documents": {"title": "Dump"}, "tasks": {"title": "Big"}, "projects": {"name": "Big"},
            "sprints": {"name": "Big"}, "comments": {"task_id": task_id}}[name]
    before = (client.get(f"/api/v1/{name}", headers=AUTH).json(), queue_depth(sqlite_engine))

    refused = post(client, name, {**base, field: "ñ" * (limit + 1)})
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", field] and f"at most {limit} characters" in error["msg"]
    assert (client.get(f"/api/v1/{name}", headers=AUTH).json(), queue_depth(sqlite_engine)) == before

    created = post(client, name, {**base, field: "ñ" * limit})
    assert created.status_code == 201, created.text
    row_id = created.json()[f"{name[:-1]}_id"]
    patched = client.patch(f"/api/v1/{name}/{row_id}", json={field: "x" * (limit + 1)}, headers=AUTH)
    assert patched.status_code == 422
    assert client.get(f"/api/v1/{name}/{row_id}", headers=AUTH).json()[field] == "ñ" * limit


@pytest.mark.parametrize("char", ["x", "ñ", "好", "😀"])  # 1, 2, 3 and 4 bytes in UTF-8
def test_a_sprint_goal_is_bounded_in_utf8_bytes_like_its_oracle_column(client, sqlite_engine, char):
    # SPRINTS.GOAL is VARCHAR2(4000 BYTE) on Oracle; the same bound on both engines, a 422 past it.
    fits = char * (MAX_GOAL_BYTES // len(char.encode()))
    before = (client.get("/api/v1/sprints", headers=AUTH).json(), queue_depth(sqlite_engine))
    refused = post(client, "sprints", {"name": "S", "goal": fits + char})
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "goal"] and error["type"] == "string_too_long"
    assert f"at most {MAX_GOAL_BYTES}" in error["msg"]
    assert (client.get("/api/v1/sprints", headers=AUTH).json(), queue_depth(sqlite_engine)) == before

    created = post(client, "sprints", {"name": "S", "goal": fits})
    assert created.status_code == 201, created.text
    sprint_id = created.json()["sprint_id"]
    patched = client.patch(f"/api/v1/sprints/{sprint_id}", json={"goal": fits + char}, headers=AUTH)
    assert patched.status_code == 422 and patched.json()["detail"][0]["loc"] == ["body", "goal"]
    assert client.get(f"/api/v1/sprints/{sprint_id}", headers=AUTH).json()["goal"] == fits


def test_one_field_the_api_accepts_is_always_indexed_whole():
    # The worker's cap counts the text after the header; a record's fixed fields add < 1,000
    # characters, so only a task whose comments add up past the cap is ever cut.
    assert MAX_TEXT_CHARS + 1_000 <= MAX_INDEXED_CHARS
