"""Every data endpoint needs the bearer token; the probes do not."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.config import Settings

from .conftest import AUTH

DATA_ENDPOINTS = [
    ("POST", "/api/v1/search", {"question": "x", "employee_id": 1}),
    ("POST", "/api/v1/chat", {"message": "x", "employee_id": 1}),
    ("POST", "/api/v1/chat/stream", {"message": "x", "employee_id": 1}),
    ("GET", "/api/v1/conversations?employee_id=1", None),
    ("GET", "/api/v1/conversations/1?employee_id=1", None),
    ("GET", "/api/v1/conversations/1/messages?employee_id=1", None),
    ("PATCH", "/api/v1/conversations/1?employee_id=1", {"rag_scope": "all"}),
    ("DELETE", "/api/v1/conversations/1?employee_id=1", None),
    ("GET", "/api/v1/chat/caller?employee_id=1", None),
    ("GET", "/api/v1/chat/projects?employee_id=1", None),
    ("GET", "/api/v1/token", None),
    ("GET", "/api/v1/rag/status", None),
    ("POST", "/api/v1/rag/reindex", {}),
    ("GET", "/api/v1/projects/1/members", None),
    ("PUT", "/api/v1/projects/1/members/1", None),
    ("DELETE", "/api/v1/projects/1/members/1", None),
] + [
    call
    for name in ("employees", "projects", "sprints", "tasks", "comments", "documents")
    for call in (
        ("GET", f"/api/v1/{name}", None),
        ("POST", f"/api/v1/{name}", {}),
        ("GET", f"/api/v1/{name}/1", None),
        ("PATCH", f"/api/v1/{name}/1", {}),
        ("DELETE", f"/api/v1/{name}/1", None),
    )
]


def test_every_data_route_is_listed():
    app = create_app(Settings(database_url="sqlite:///unused.db"))
    paths = app.openapi()["paths"]
    routes = {(m.upper(), p) for p, ops in paths.items() for m in ops if p.startswith("/api/")}
    listed = {(m, p.split("?")[0].replace("conversations/1", "conversations/{conversation_id}")
               .replace("projects/1/members/1", "projects/{project_id}/members/{employee_id}")
               .replace("projects/1/members", "projects/{project_id}/members")
               .replace("/1", "/{row_id}")) for m, p, _ in DATA_ENDPOINTS}
    assert routes == listed


@pytest.mark.parametrize("method,path,body", DATA_ENDPOINTS)
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic dGVzdC10b2tlbg=="},
                                     {"Authorization": "Bearer test-token-and-more"}])
def test_data_endpoints_need_the_token(client, method, path, body, headers):
    response = client.request(method, path, json=body, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["detail"] == "missing or invalid bearer token"


def test_empty_token_set_refuses_everything(api_settings, sqlite_engine):
    settings = api_settings.model_copy(update={"api_tokens": SecretStr("")})
    settings.__dict__.pop("tokens", None)  # cached_property copied from the original settings
    with TestClient(create_app(settings, engine=sqlite_engine)) as c:
        response = c.get("/api/v1/rag/status", headers={"Authorization": "Bearer "})
        assert response.status_code == 401
        assert "RAG_API_TOKENS" in response.json()["detail"]
        assert c.get("/api/v1/rag/status", headers=AUTH).status_code == 401


def test_any_configured_token_is_accepted(api_settings, sqlite_engine):
    settings = Settings(database_url=api_settings.database_url, api_tokens="alpha, beta", run_worker=False,
                        backfill_on_startup=False)
    with TestClient(create_app(settings, engine=sqlite_engine)) as c:
        for token in ("alpha", "beta"):
            assert c.get("/api/v1/rag/status", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_health_probes_need_no_token(client):
    assert client.get("/healthz").json() == {"status": "ok", "detail": None}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"


def test_readyz_is_503_with_the_reason_when_the_schema_is_missing(tmp_path, embedder):
    from app.engines.sqlite.engine import SQLiteEngine

    settings = Settings(database_url=f"sqlite:///{tmp_path}/empty.db", api_tokens="t", run_worker=False,
                        backfill_on_startup=False)
    engine = SQLiteEngine.open(settings, embedder=embedder)  # never migrated
    try:
        with TestClient(create_app(settings, engine=engine)) as c:
            response = c.get("/readyz")
            assert response.status_code == 503
            assert response.json()["status"] == "unavailable" and response.json()["detail"]
            assert c.get("/healthz").status_code == 200
    finally:
        engine.close()


def test_openapi_docs_are_served(client):
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    assert "/api/v1/search" in spec["paths"] and "HTTPBearer" in spec["components"]["securitySchemes"]
