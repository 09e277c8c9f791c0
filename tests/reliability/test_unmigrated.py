"""A database whose schema is not migrated (issue 20, point 3): the server starts and answers 503 naming
`ragctl migrate` on /readyz and every data route, its jobs wait without a traceback, and every CLI command
ends with that one line; once `ragctl migrate` runs, the same server serves and indexes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.config import Settings

RAGCTL = str(Path(sys.executable).with_name("ragctl"))
AUTH = {"Authorization": "Bearer test-token"}
COMMANDS = [["status"], ["search", "login", "--as", "1"], ["erase-employee", "1", "--delete-documents"],
            ["erase-employee", "1", "--resume"], ["backfill"], ["retry"], ["worker", "--once"], ["summaries"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_every_cli_command_on_an_unmigrated_database_ends_with_the_one_line_hint(tmp_path, embedder, command):
    from app.engines.sqlite.engine import SQLiteEngine

    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/rag.db")
    engine = SQLiteEngine.open(settings, embedder=embedder)
    try:
        result = CliRunner().invoke(cli, command, obj=CliEnv(settings, engine))
    finally:
        engine.close()
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "not migrated" in lines[0] and "ragctl migrate" in lines[0], result.output


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_server_starts_answers_503_naming_migrate_and_serves_once_migrated(tmp_path):
    port = _free_port()
    db = f"sqlite:///{tmp_path}/rag.db"
    # Default settings (startup backfill and the in-process worker on), ticking fast.
    env = {**os.environ, "RAG_DATABASE_URL": db, "RAG_API_TOKENS": "test-token", "RAG_WORKER_DELAY_MS": "100",
           "RAG_WORKER_INITIAL_DELAY_MS": "0"}
    log = (tmp_path / "serve.log").open("w+")
    server = subprocess.Popen([RAGCTL, "serve", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=10) as c:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, (tmp_path / "serve.log").read_text()
                try:
                    if c.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
            ready = c.get("/readyz")
            assert ready.status_code == 503 and "ragctl migrate" in ready.json()["detail"]
            for method, path, body in (("GET", "/api/v1/tasks", None), ("POST", "/api/v1/tasks", {"title": "t"}),
                                       ("POST", "/api/v1/search", {"question": "login", "employee_id": 1}),
                                       ("POST", "/api/v1/chat", {"message": "login?", "employee_id": 1}),
                                       ("GET", "/api/v1/rag/status", None)):
                answer = c.request(method, path, json=body, headers=AUTH)
                assert answer.status_code == 503, (path, answer.text)
                assert "ragctl migrate" in answer.json()["detail"] and int(answer.headers["Retry-After"]) > 0
            assert c.get("/api/v1/tasks").status_code == 401  # still behind the token
            time.sleep(1.0)  # ~10 drain ticks on the unmigrated schema

            migrated = subprocess.run([RAGCTL, "migrate"], env=env, capture_output=True, text=True, timeout=120)
            assert migrated.returncode == 0, migrated.stderr
            created = c.post("/api/v1/tasks", json={"title": "Rotate the gateway certificates"}, headers=AUTH)
            assert created.status_code == 201, created.text
            deadline = time.monotonic() + 60
            while c.get("/api/v1/rag/status", headers=AUTH).json()["pending"]:
                assert time.monotonic() < deadline, "the worker never drained after the migration"
                time.sleep(0.2)
            assert c.get("/readyz").status_code == 200
    finally:
        server.terminate()
        server.wait(30)
    output = (tmp_path / "serve.log").read_text()
    assert "Traceback" not in output, output
    waits = [line for line in output.splitlines() if "waits for the schema" in line]
    assert len(waits) == 1, output  # said once, not at every tick
