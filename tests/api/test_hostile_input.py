"""Hostile input: the token is checked before the body is read, bodies are capped before they are
buffered, bad Unicode is a 422, and the OpenAPI schema documents what the server really answers."""

from __future__ import annotations

import json
import socket
from typing import get_args

import httpx
import pytest

from app.api.main import create_app
from app.api.schemas import ENTITY_SCHEMAS

from .conftest import AUTH
from .servers import serve

HUGE = 100 * 1024 * 1024


def raw_request(base: str, head: str, first_bytes: bytes) -> bytes:
    """Send a request line and headers plus only the first bytes of the body; return the reply.

    The server must answer without waiting for the rest: a reply here proves the body was not read."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(head.encode() + b"\r\n" + first_bytes)
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply


def head(path: str, length: int, token: str | None = None) -> str:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n{auth}")


@pytest.fixture
def served(api_settings, sqlite_engine):
    with serve(create_app(api_settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as base:
        yield base


def test_a_huge_body_without_a_token_is_401_before_it_is_read(served):
    reply = raw_request(served, head("/api/v1/documents", HUGE), b'{"title": "' + b"x" * 1000)
    assert reply.startswith(b"HTTP/1.1 401") and b"missing or invalid bearer token" in reply


def test_a_huge_body_with_a_token_is_413_before_it_is_read(served):
    reply = raw_request(served, head("/api/v1/documents", HUGE, "test-token"), b'{"title": "' + b"x" * 1000)
    assert reply.startswith(b"HTTP/1.1 413") and b"request body larger than" in reply


def test_a_chunked_body_over_the_limit_is_413(api_settings, sqlite_engine):
    settings = api_settings.model_copy(update={"max_body_bytes": 4096})

    def chunks():
        yield b'{"title": "t", "body": "'
        for _ in range(64):
            yield b"x" * 1024  # no Content-Length: httpx sends Transfer-Encoding: chunked
        yield b'"}'

    with serve(create_app(settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as base:
        response = httpx.post(f"{base}/api/v1/documents", content=chunks(), timeout=10,
                              headers={**AUTH, "Content-Type": "application/json"})
        assert response.status_code == 413 and "4096" in response.json()["detail"]
        assert httpx.get(f"{base}/api/v1/documents", headers=AUTH, timeout=10).json()["total"] == 0
        small = httpx.post(f"{base}/api/v1/documents", json={"title": "fits"}, headers=AUTH, timeout=10)
        assert small.status_code == 201


def test_the_default_limit_admits_the_largest_legitimate_document(client):
    # 100,000 characters (the schema's maximum), each outside the BMP and sent as an escaped surrogate
    # pair: 12 bytes of JSON per character, the most a valid body can spend on it.
    text = "\U0001f600" * 100_000
    data = json.dumps({"title": "\U0001f600" * 400, "body": text}).encode()  # ensure_ascii escapes every one
    assert len(data) > 1_200_000
    response = client.post("/api/v1/documents", content=data, headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 201, response.text[:200]
    assert client.get(f"/api/v1/documents/{response.json()['document_id']}", headers=AUTH).json()["body"] == text


@pytest.mark.parametrize("body", [b'{"title": ', b"\xff\xfe", b'{"title": "\xed\xa0\x80"}', b"x" * 10_000])
def test_a_malformed_body_without_a_token_is_401(client, body):
    response = client.post("/api/v1/documents", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("path,body", [
    ("/api/v1/documents", b'{"title": "\\ud800"}'),  # an escaped lone surrogate
    ("/api/v1/documents", b'{"title": "ok", "body": "a\\udfffb"}'),
    ("/api/v1/search", b'{"question": "\\ud83d", "employee_id": 1}'),
    ("/api/v1/documents", b'{"title": "\xed\xa0\x80"}'),  # a surrogate encoded as UTF-8 bytes
    ("/api/v1/documents", b'{"title": "caf\xe9"}'),  # Latin-1, not UTF-8
    ("/api/v1/documents", b'{"title": "\xff"}'),
    ("/api/v1/documents", b'{"\\ud800": "key"}'),
])
def test_bad_unicode_is_422_and_changes_nothing(client, path, body):
    response = client.post(path, content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    errors = response.json()["detail"]
    assert isinstance(errors, list) and errors[0]["msg"]
    assert client.get("/api/v1/documents", headers=AUTH).json()["total"] == 0


def test_patch_schemas_offer_null_only_where_null_is_accepted(client):
    components = client.get("/openapi.json").json()["components"]["schemas"]
    for name, (create, update, _public) in ENTITY_SCHEMAS.items():
        properties = components[update.__name__]["properties"]
        for field, info in create.model_fields.items():
            offers_null = {"type": "null"} in properties[field].get("anyOf", [])
            assert offers_null == (type(None) in get_args(info.annotation)), (name, field)
    made = client.post("/api/v1/tasks", json={"title": "t", "description": "d"}, headers=AUTH).json()
    url = f"/api/v1/tasks/{made['task_id']}"
    assert client.patch(url, json={"title": None}, headers=AUTH).status_code == 422
    assert client.patch(url, json={"description": None}, headers=AUTH).json()["description"] is None
    assert client.get(url, headers=AUTH).json()["title"] == "t"


def test_openapi_documents_every_status_the_api_answers(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        if not path.startswith("/api/"):
            continue
        for method, operation in operations.items():
            documented = set(operation["responses"])
            assert {"401", "403", "413", "503"} <= documented, (method, path)
            if "requestBody" in operation or operation.get("parameters"):
                assert "422" in documented, (method, path)
            if "{row_id}" in path or path.endswith(("/search", "/chat")):
                assert "404" in documented, (method, path)
            # conversations and memberships hold no reference another row could break: no 409 to document
            if method in ("post", "patch", "delete") and path.split("/")[3] not in ("search", "chat", "rag",
                                                                                    "conversations") \
                    and "/members/" not in path:
                assert "409" in documented, (method, path)


@pytest.mark.parametrize("depth", [33, 1_000, 100_000])
def test_json_nested_past_the_limit_is_a_422_naming_it(client, depth):
    """Issue 20, point 9: deep nesting used to be a bare 400 "There was an error parsing the body"."""
    body = b'{"title": "t", "body": ' + b"[" * depth + b"]" * depth + b"}"
    response = client.post("/api/v1/documents", content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 422, response.text[:200]
    [error] = response.json()["detail"]
    assert error["type"] == "json_invalid" and "more than 32 levels" in error["msg"]
    assert client.get("/api/v1/documents", headers=AUTH).json()["total"] == 0


def test_brackets_inside_strings_and_shallow_nesting_are_not_refused(client):
    text = "[[[[{{{{ " * 2000 + '"quoted" \\ and [brackets]'
    made = client.post("/api/v1/documents", json={"title": "Brackets", "body": text}, headers=AUTH)
    assert made.status_code == 201, made.text[:200]
    assert client.get(f"/api/v1/documents/{made.json()['document_id']}", headers=AUTH).json()["body"] == text
    nested = b'{"question": "x", "employee_id": 1, "source_types": ' + b"[" * 30 + b"]" * 30 + b"}"
    assert client.post("/api/v1/search", content=nested, headers={**AUTH, "Content-Type": "application/json"}
                       ).status_code == 422  # the schema refuses it; the depth limit does not apply


def test_a_rejected_input_is_echoed_only_up_to_a_short_prefix(client):
    """Issue 20, point 9: a 422 used to send back the whole rejected input (a 100 KB body came back)."""
    from app.api.errors import MAX_ECHO_CHARS

    huge = "x" * 100_000
    for body in ({"title": huge}, {"title": 5, "body": huge, "doc_type": [huge]}, [huge]):
        response = client.post("/api/v1/documents", json=body, headers=AUTH)
        assert response.status_code == 422
        assert len(response.content) < 2_000, len(response.content)
        for error in response.json()["detail"]:
            assert "input" not in error or len(str(error["input"])) <= MAX_ECHO_CHARS + 1
