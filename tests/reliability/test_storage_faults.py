"""Real storage faults on a tiny tmpfs: a full disk and a read-only file system.

Each fault is produced for real (the kernel answers ENOSPC / EROFS; root bypasses file permissions,
so a chmod would prove nothing) and the HTTP API is reached over a real loopback socket, so a
dropped connection would show as a transport error, not as a status code.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn

from app.api.main import create_app
from app.config import Settings
from app.engines.base import UnavailableError
from app.engines.sqlite.engine import SQLiteEngine
from tests.support import employee, task

AUTH = {"Authorization": "Bearer test-token"}
RAGCTL = str(Path(sys.executable).with_name("ragctl"))


@pytest.fixture
def tiny_fs():
    """An 8 MiB tmpfs of our own (needs root, as CI has); skipped with the reason where mount is refused."""
    where = tempfile.mkdtemp(prefix="rag-tinyfs-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0755", "tmpfs", where],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        os.rmdir(where)
        pytest.skip(f"cannot mount a tmpfs to produce real disk faults: {mounted.stderr.strip() or 'not root'}")
    try:
        yield Path(where)
    finally:
        subprocess.run(["umount", "-l", where], check=False)
        os.rmdir(where)


def fill(directory: Path) -> Path:
    """Write zeros until the kernel says ENOSPC; return the filler file."""
    filler = directory / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError as exc:
            assert exc.errno == 28, exc  # ENOSPC: the disk really is full
    return filler


@contextmanager
def live_server(app):
    """uvicorn on 127.0.0.1 with an ephemeral port, in a thread."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def test_a_full_disk_answers_503_with_retry_after_and_keeps_serving_reads(tiny_fs, embedder):
    settings = Settings(database_url=f"sqlite:///{tiny_fs}/rag.db", api_tokens="test-token",
                        run_worker=False, backfill_on_startup=False)
    engine = SQLiteEngine.open(settings, embedder=embedder)
    try:
        engine.migrate()
        boss = employee(engine, "Maria", "Lopez", role="MANAGER")
        task(engine, "Rotate the payment gateway certificates")
        with live_server(create_app(settings, engine=engine)) as base, httpx.Client(base_url=base, timeout=30) as c:
            assert c.get("/readyz").status_code == 200
            filler = fill(tiny_fs)
            # Larger than the WAL already on disk, so SQLite must grow a file and meets ENOSPC.
            big = {"title": "Runbook", "body": "rotate the keys. " * 5_000, "doc_type": "WIKI"}
            for _ in range(3):  # repeatedly: the connection and the server survive each one
                full = c.post("/api/v1/documents", json=big, headers=AUTH)
                assert full.status_code == 503, full.text[:300]
                assert "full" in full.json()["detail"] and int(full.headers["Retry-After"]) > 0
            ready = c.get("/readyz")
            assert ready.status_code == 503 and "full" in ready.json()["detail"] and "Retry-After" in ready.headers
            # Reads still work on a full disk, and the failed writes changed nothing.
            assert c.get("/api/v1/documents", headers=AUTH).json()["total"] == 0
            hits = c.post("/api/v1/search", json={"question": "gateway certificates", "employee_id": boss},
                          headers=AUTH)
            assert hits.status_code == 200

            filler.unlink()
            assert c.post("/api/v1/documents", json=big, headers=AUTH).status_code == 201
            assert c.get("/readyz").status_code == 200
    finally:
        engine.close()


@pytest.fixture
def read_only_db(tiny_fs):
    """A migrated database on a file system that is then remounted read-only."""
    settings = Settings(database_url=f"sqlite:///{tiny_fs}/rag.db", api_tokens="test-token",
                        run_worker=False, backfill_on_startup=False)
    engine = SQLiteEngine.open(settings, embedder=object())
    engine.migrate()
    engine.close()
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_fs)], check=True)
    with pytest.raises(OSError):  # the fault is real: not even root can write there now
        (tiny_fs / "probe").write_bytes(b"x")
    return settings


def test_a_read_only_database_is_not_ready_and_refuses_writes_with_503(read_only_db, embedder):
    engine = SQLiteEngine.open(read_only_db, embedder=embedder)
    try:
        with pytest.raises(UnavailableError, match="read-only"):
            engine.ping()
        from fastapi.testclient import TestClient

        with TestClient(create_app(read_only_db, engine=engine)) as c:
            ready = c.get("/readyz")
            assert ready.status_code == 503 and "read-only" in ready.json()["detail"]
            assert "Retry-After" in ready.headers
            write = c.post("/api/v1/tasks", json={"title": "Cannot be stored"}, headers=AUTH)
            assert write.status_code == 503 and "read-only" in write.json()["detail"]
            assert int(write.headers["Retry-After"]) > 0
    finally:
        engine.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("command", ["migrate", "serve"])
def test_startup_on_a_read_only_database_exits_with_one_clear_line(read_only_db, command):
    command = [command] if command == "migrate" else [command, "--port", str(free_port())]
    env = {**os.environ, "RAG_DATABASE_URL": read_only_db.database_url, "RAG_API_TOKENS": "test-token"}
    done = subprocess.run([RAGCTL, *command], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "read-only" in lines[0], done.stderr
