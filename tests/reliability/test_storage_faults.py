"""Real storage faults on a tiny tmpfs: a full disk and a read-only file system.

Each fault is produced for real (the kernel answers ENOSPC / EROFS; root bypasses file permissions,
so a chmod would prove nothing) and the HTTP API is reached over a real loopback socket, so a
dropped connection would show as a transport error, not as a status code.
"""

from __future__ import annotations

import os
import shutil
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
from tests.support import drain_all, employee, task

AUTH = {"Authorization": "Bearer test-token"}
RAGCTL = str(Path(sys.executable).with_name("ragctl"))


# Where the system tools live besides PATH: Debian's PATH for a normal user lacks /usr/sbin (losetup, mkfs).
SYSTEM_DIRS = ("/usr/sbin", "/sbin")


def tool(name: str) -> str:
    """The path of a system tool, on PATH or in the system directories; else the test is skipped naming it."""
    found = shutil.which(name, path=os.pathsep.join([os.environ.get("PATH", ""), *SYSTEM_DIRS]))
    if found is None:
        pytest.skip(f"{name} is not installed (looked on PATH and in {', '.join(SYSTEM_DIRS)}): "
                    "it is needed to produce a real storage fault")
    return found


def run_tool(*args: str) -> subprocess.CompletedProcess:
    """Run a system tool, capturing its output; a tool that cannot be run at all is a skip naming it."""
    try:
        return subprocess.run([tool(args[0]), *args[1:]], capture_output=True, text=True)
    except OSError as exc:  # not executable, refused by the system
        pytest.skip(f"cannot run {args[0]}: {exc}")


@pytest.fixture
def tiny_fs():
    """An 8 MiB tmpfs of our own (needs root, as CI has); skipped with the reason where mount is refused."""
    where = tempfile.mkdtemp(prefix="rag-tinyfs-")
    try:
        mounted = run_tool("mount", "-t", "tmpfs", "-o", "size=8m,mode=0755", "tmpfs", where)
    except BaseException:  # a skip: nothing was mounted
        os.rmdir(where)
        raise
    if mounted.returncode != 0:
        os.rmdir(where)
        pytest.skip(f"cannot mount a tmpfs to produce real disk faults: {mounted.stderr.strip() or 'not root'}")
    try:
        yield Path(where)
    finally:
        run_tool("umount", "-l", where)
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
    assert run_tool("mount", "-o", "remount,ro", str(tiny_fs)).returncode == 0
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


@pytest.fixture
def ext4_fs(tmp_path):
    """A 32 MiB ext4 on a loop device (errors=remount-ro), or a skip naming what refused it.

    Yields (mount point, the loop device's name, its backing image)."""
    image, where = tmp_path / "ext4.img", tmp_path / "mnt"
    where.mkdir()
    for name in ("mkfs.ext4", "losetup", "mount", "umount", "chattr"):
        tool(name)  # every tool the fixture and its cleanup need, before anything is made
    with open(image, "wb") as out:
        out.truncate(32 * 1024 * 1024)
    made = run_tool("mkfs.ext4", "-q", str(image))
    loop = run_tool("losetup", "-f", "--show", str(image)) if made.returncode == 0 else made
    if made.returncode or loop.returncode:
        pytest.skip(f"cannot make an ext4 loop device: {(made.stderr or loop.stderr).strip() or 'not root'}")
    device = loop.stdout.strip()
    mounted = run_tool("mount", "-o", "errors=remount-ro", device, str(where))
    if mounted.returncode:
        run_tool("losetup", "-d", device)
        pytest.skip(f"cannot mount ext4: {mounted.stderr.strip()}")
    try:
        yield where, Path(device).name, image
    finally:
        run_tool("chattr", "-i", str(image))
        run_tool("umount", "-l", str(where))
        run_tool("losetup", "-d", device)


def _not_ready_after(fault, ext4_fs, embedder, words: str, writes_fail: bool) -> None:
    where = ext4_fs[0]
    settings = Settings(database_url=f"sqlite:///{where}/rag.db", api_tokens="test-token", run_worker=False,
                        backfill_on_startup=False)
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    from fastapi.testclient import TestClient

    try:
        with TestClient(create_app(settings, engine=engine)) as c:
            assert c.get("/readyz").status_code == 200
            fault()
            # statvfs still says read-write: only a real write finds out.
            assert not os.statvfs(where).f_flag & os.ST_RDONLY
            ready = c.get("/readyz")
            assert ready.status_code == 503 and words in ready.json()["detail"], ready.text
            assert int(ready.headers["Retry-After"]) > 0
            if writes_fail:
                write = c.post("/api/v1/tasks", json={"title": "Cannot be stored"}, headers=AUTH)
                assert write.status_code == 503, write.text
    finally:
        try:
            engine.close()
        except Exception:  # noqa: BLE001 - closing checkpoints, which the broken disk refuses
            pass


def test_ext4_emergency_read_only_is_not_ready(ext4_fs, embedder):
    """ext4 remounts itself read-only after an error but keeps 'rw' in its mount flags (emergency_ro)."""
    trigger = Path("/sys/fs/ext4") / ext4_fs[1] / "trigger_fs_error"
    if not trigger.exists():
        pytest.skip(f"{trigger} is missing: this kernel cannot trigger an ext4 error")
    _not_ready_after(lambda: trigger.write_text("1"), ext4_fs, embedder, "read-only", writes_fail=True)


def test_a_device_returning_io_errors_is_not_ready(ext4_fs, embedder):
    """The loop device's backing file made immutable: every write reaching the device fails with EIO.

    A commit may still be answered (SQLite's WAL write lands in the page cache; with synchronous=NORMAL a
    commit does not wait for the disk), so only an fsync'ed probe tells: readiness must say so."""
    image = ext4_fs[2]
    _not_ready_after(lambda: run_tool("chattr", "+i", str(image)).check_returncode(), ext4_fs, embedder,
                     "failed", writes_fail=False)


def test_a_stream_whose_turn_cannot_be_stored_ends_with_the_same_503_as_post_chat(tiny_fs, embedder):
    """Issue 20, point 6: the tokens were shown, then the disk was full when the turn was stored. The
    `error` event carries the code, detail and retry hint POST /chat answers (and the client learns the
    shown text was not kept: an `error` after tokens means the turn was not stored)."""
    from tests.api.servers import sse_events
    from tests.fake_llm import FakeLLM, Reply

    long_answer = [f"Part {n} of an answer long enough to need new pages in the database file. " * 40
                   for n in range(100)]  # ~300 KB: more than the WAL already on disk
    with FakeLLM(Reply.stream(*long_answer), Reply.plain("".join(long_answer))) as llm:
        settings = Settings(database_url=f"sqlite:///{tiny_fs}/rag.db", api_tokens="test-token", run_worker=False,
                            backfill_on_startup=False, llm_url=llm.url, llm_model="tiny", llm_timeout_s=30,
                            chat_max_tool_rounds=0)
        engine = SQLiteEngine.open(settings, embedder=embedder)
        try:
            engine.migrate()
            boss = employee(engine, "Maria", "Lopez", role="MANAGER")
            # a record the question is about (not by its title, which would make the record's card the answer):
            # a turn with nothing to answer from is held back, not streamed
            task(engine, "Release checklist for the mobile app", "Freeze, QA sign-off, staged rollout",
                 assignee_id=boss)
            drain_all(engine)
            question = {"employee_id": boss, "message": "what do we need before a staged rollout?"}
            with live_server(create_app(settings, engine=engine)) as base, \
                    httpx.Client(base_url=base, timeout=30, headers=AUTH) as c:
                filler = fill(tiny_fs)
                with c.stream("POST", "/api/v1/chat/stream", json=question) as r:
                    got = sse_events(r)
                plain = c.post("/api/v1/chat", json=question)
                listed = c.get("/api/v1/conversations", params={"employee_id": boss}).json()
                filler.unlink()
        finally:
            engine.close()
    names = [name for name, _ in got]
    assert names == ["token"] * len(long_answer) + ["error"], names[-3:]
    assert plain.status_code == 503 and "full" in plain.json()["detail"]
    assert got[-1][1] == {"detail": plain.json()["detail"], "code": 503,
                          "retry_after_s": int(plain.headers["Retry-After"])}
    assert listed["items"] == [] and listed["total"] == 0  # neither turn was kept


def test_a_system_tool_that_is_not_installed_is_a_skip_naming_it():
    with pytest.raises(pytest.skip.Exception, match=r"^no-such-tool is not installed \(looked on PATH and in "
                                                    r"/usr/sbin, /sbin\)"):
        tool("no-such-tool")


def test_issue_26_point_10_a_storage_fault_is_logged_once_when_it_starts_and_once_when_it_ends(tiny_fs, embedder,
                                                                                           caplog):
    """A full disk under a running worker (its queue cannot be claimed): one ERROR with the traceback when
    the drain first fails, nothing for the ticks after it, one line when it works again with the count of
    failed runs. Before, every tick logged a chained traceback at ERROR (56 headers in 7 s at 500 ms)."""
    import logging

    from app.worker import Worker

    settings = Settings(database_url=f"sqlite:///{tiny_fs}/rag.db", api_tokens="test-token", run_worker=False,
                        backfill_on_startup=False, worker_delay_ms=20, worker_initial_delay_ms=0)
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    worker = Worker(engine, settings)
    filler = None
    try:
        for i in range(3):
            task(engine, f"Queued while the disk fills up {i}")
        filler = fill(tiny_fs)
        with caplog.at_level(logging.INFO, logger="app.worker"):
            worker.start()
            deadline = time.monotonic() + 60
            while worker.failing_ticks < 5 and time.monotonic() < deadline:
                time.sleep(0.02)
            failed = worker.failing_ticks
            assert failed >= 5, "the worker never failed five runs in a row on a full disk"
            filler.unlink()
            filler = None
            while engine.status(5).pending and time.monotonic() < deadline:
                time.sleep(0.02)
            worker.stop()
        assert engine.status(5).pending == 0  # it drained once the fault ended
    finally:
        worker.stop()
        if filler is not None:
            filler.unlink()
        engine.close()
    lines = [r for r in caplog.records if r.name == "app.worker" and r.levelno >= logging.WARNING]
    assert [r.levelname for r in lines] == ["ERROR", "WARNING"], [r.getMessage() for r in lines]
    started, ended = lines
    assert started.exc_info is not None and ended.exc_info is None
    count = int(ended.getMessage().split(" after ")[1].split()[0])
    assert count >= failed and "failed runs" in ended.getMessage()
