"""The API of a process whose embedding model differs from the stored vectors' answers 503 with the fix."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.engines.sqlite.engine import SQLiteEngine
from app.worker import Worker
from tests.sqlite.test_model_swap import ModelB
from tests.support import employee, task

from .conftest import AUTH


def test_search_answers_503_naming_the_swap_and_status_names_the_models(api_settings, sqlite_engine, embedder):
    boss = employee(sqlite_engine, "Maria", "Lopez", role="MANAGER")
    task(sqlite_engine, "Fix login bug after password reset")
    Worker(sqlite_engine, api_settings).run_once()
    other = SQLiteEngine(sqlite_engine.path, ModelB(embedder))
    try:
        with TestClient(create_app(api_settings, engine=other), raise_server_exceptions=False) as client:
            refused = client.post("/api/v1/search", json={"question": "login bug", "employee_id": boss}, headers=AUTH)
            assert refused.status_code == 503
            assert "all-MiniLM-L6-v2-int8" in refused.json()["detail"]
            assert "ragctl backfill --force" in refused.json()["detail"]
            status = client.get("/api/v1/rag/status", headers=AUTH).json()
            assert status["model_name"] == "test-model-b"
            assert status["index"]["vectors_model"] == "all-MiniLM-L6-v2-int8" and status["index"]["swap_target"] is None
            # POST /rag/reindex with force is the same swap as `ragctl backfill --force`
            assert client.post("/api/v1/rag/reindex", json={"force": True}, headers=AUTH).status_code == 202
            assert client.get("/api/v1/rag/status", headers=AUTH).json()["index"]["swap_target"] == "test-model-b"
    finally:
        other.close()
