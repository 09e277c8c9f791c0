"""An erasure killed between its steps (issue 20): `ragctl erase-employee` is SIGKILLed for real after it
deleted the employee, re-indexed, redacted and purged; the job row it left finishes with `--resume`, and
the database files then hold 0 bytes of her strings (read here, independently of the proof).

Where the kill lands is made certain, not timed: a reader in this process keeps an old snapshot open,
so the compaction's TRUNCATE checkpoint waits for it (busy timeout, 10 s) right after "step purge: done"."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import apsw

from app.config import Settings
from app.engines.sqlite.engine import SQLiteEngine
from app.engines.sqlite.erasure import FILES
from tests.support import comment, document, drain_all, employee, task

RAGCTL = str(Path(sys.executable).with_name("ragctl"))
STRINGS = ["Zorbalina Quixotewick", "zorbalina.quixotewick@example.com", "Flibbertigibbet marmalade incident report",
           "Hyperborean rollout plan for payroll", "Quantum soufflé checklist for the payroll export"]


def test_sigkill_between_steps_then_resume_finishes_with_0_bytes_left(tmp_path, embedder):
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/rag.db")
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    ana = employee(engine, "Zorbalina", "Quixotewick")
    boss = employee(engine, "Mia", "Boss", role="MANAGER")
    t = task(engine, "Payroll export failure", assignee_id=ana)
    comment(engine, t, STRINGS[2], author_id=ana)
    document(engine, STRINGS[3], STRINGS[4], owner_id=ana)
    conv = engine.create_conversation(boss, "all", None, "who is assigned to the payroll export failure?")
    engine.append_turn(conv.conversation_id, "who is assigned to the payroll export failure?",
                       f"It is assigned to {STRINGS[0]}.", [])
    drain_all(engine)
    engine.close()

    env = {**os.environ, "RAG_DATABASE_URL": settings.database_url, "RAG_BACKFILL_ON_STARTUP": "false"}
    reader = apsw.Connection(settings.sqlite_path)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM RAG_CHUNK").fetchall()  # an old snapshot the checkpoint must wait for
    erasing = subprocess.Popen([RAGCTL, "erase-employee", str(ana), "--delete-documents"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        steps = []
        for line in erasing.stderr:
            steps.append(line.strip())
            if line.startswith("step purge: done"):
                break
        assert steps[-1] == "step purge: done", steps
        erasing.send_signal(signal.SIGKILL)
        assert erasing.wait(30) == -signal.SIGKILL
    finally:
        if erasing.poll() is None:
            erasing.kill()
        reader.execute("COMMIT")
        reader.close()

    engine = SQLiteEngine.open(settings, embedder=embedder)
    try:
        job = engine.erasure_job(ana)
        assert job.step == "purge" and not job.finished and job.held is not None
        assert engine.get_conversation(conv.conversation_id) is not None
        assert engine.list_messages(conv.conversation_id, None, 5).items[1].content == "It is assigned to [erased]."
    finally:
        engine.close()

    resumed = subprocess.run([RAGCTL, "erase-employee", str(ana), "--resume"], env=env, capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "job: finished (proven); this run: compact, prove, forget" in resumed.stdout
    assert "bytes of the person's strings left in the database files: 0" in resumed.stdout
    left = 0
    for suffix in FILES:
        path = Path(settings.sqlite_path + suffix)
        data = path.read_bytes() if path.exists() else b""
        left += sum(data.count(v.encode()) + data.count(v.lower().encode()) for v in STRINGS)
    assert left == 0
