"""SQLite erasure, for real: after erasing, no erased string is in any table, the FTS5 index, the
queue or the raw bytes of the database, -wal and -shm files; and the controls that show each check
can fail (a string still there is found; without secure_delete a deleted row stays in the bytes)."""

from __future__ import annotations

import apsw
import numpy as np

from app.engines.sqlite.erasure import file_contains
from app.rag.erasure import ErasedText, verdicts
from app.services.erasure import erase_employee, proof_report
from tests.support import comment, document, drain_all, employee, project, task

from .helpers import seed_chunks, unit_vectors

SECRETS = {"first name": "Zorbalina", "last name": "Quixotewick", "email": "zorbalina.quixotewick@example.com",
           "telegram id": "tg-77889", "comment": "Flibbertigibbet marmalade incident",
           "doc title": "Hyperborean rollout plan", "doc body": "Quantum souffle checklist"}
FILES = ("", "-wal", "-shm")


def seed(engine):
    ana = employee(engine, SECRETS["first name"], SECRETS["last name"], telegram_id=SECRETS["telegram id"])
    boss = employee(engine, "Mia", "Boss", role="MANAGER")
    p = project(engine, "Apollo")
    task(engine, "Fix login", assignee_id=ana, project_id=p)
    other = task(engine, "Rotate keys", assignee_id=boss, project_id=p)
    comment(engine, other, SECRETS["comment"], author_id=ana)
    document(engine, SECRETS["doc title"], SECRETS["doc body"], owner_id=ana, project_id=p)
    drain_all(engine)
    return ana


def in_files(engine, value: str) -> bool:
    return any(file_contains(engine.path + suffix, value.encode()) for suffix in FILES)


def test_secure_delete_is_on_for_every_connection(sqlite_engine, other_engine):
    assert sqlite_engine.conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    assert other_engine.conn.execute("PRAGMA secure_delete").fetchone()[0] == 1


def test_after_erasure_no_string_is_in_any_table_the_index_the_queue_or_the_file_bytes(sqlite_engine):
    ana = seed(sqlite_engine)
    # Control: before erasure the same checks find every string (in the chunks, FTS5 and the bytes).
    texts = [ErasedText(label, value) for label, value in SECRETS.items()]
    before = sqlite_engine.erasure_proof(texts)
    assert all(in_files(sqlite_engine, v) for v in SECRETS.values())
    assert {line.label for line in before if line.where == "chunk table RAG_CHUNK" and line.found} >= {
        "first name", "last name", "comment", "doc title", "doc body"}
    assert {line.label for line in before if line.where == "FTS5 index (MATCH)" and line.found} >= {
        "first name", "comment", "doc body"}
    assert {v.verdict for v in verdicts(before)} == {"still present legitimately"}

    result = erase_employee(sqlite_engine, ana, lambda: drain_all(sqlite_engine), delete_documents=True)
    report = "\n".join(proof_report(result))
    assert result.ok, report
    assert report.endswith("PROVEN: no erased string remains outside the tracker's own data")
    assert all(value not in report for value in SECRETS.values())  # the proof names, never repeats
    wheres = {line.where for line in result.proof}
    assert {"source tables", "chunk table RAG_CHUNK", "queue RAG_DIRTY", "FTS5 index (MATCH)", "FTS5 shadow tables",
            "vector tables (sqlite-vec metadata)", "raw bytes of rag.db", "raw bytes of rag.db-wal",
            "raw bytes of rag.db-shm"} <= wheres
    assert not any(line.found for line in result.proof)
    # Independently of the engine's own proof: the bytes of every file, exact and case-folded.
    for value in SECRETS.values():
        assert not in_files(sqlite_engine, value) and not in_files(sqlite_engine, value.lower())


def test_the_raw_bytes_check_finds_a_string_that_is_still_there(sqlite_engine):
    seed(sqlite_engine)
    lines = sqlite_engine.erasure_proof([ErasedText("comment", SECRETS["comment"])])
    files = [line for line in lines if line.where.startswith("raw bytes of rag.db") and line.found]
    assert files, "the raw-bytes check must find a string that is in the file"


def test_a_string_left_in_a_chunk_fails_the_proof(sqlite_engine):
    seed_chunks(sqlite_engine, [("doc", 9001, None, None, None)], unit_vectors(np.random.default_rng(1), 1),
                ["[DOC #9001] Zyzzogeton leftover"])
    lines = sqlite_engine.erasure_proof([ErasedText("last name", "Zyzzogeton")])
    (verdict,) = verdicts(lines)
    assert verdict.verdict == "FOUND"
    assert any(w.startswith("chunk table RAG_CHUNK") for w in verdict.where)
    assert any(w.startswith("FTS5 index (MATCH)") for w in verdict.where)


def test_without_secure_delete_a_deleted_row_stays_in_the_file_bytes(tmp_path):
    """The measured failure this feature fixes, and the pragma that fixes it."""
    def delete_and_read(secure: bool) -> bool:
        path = str(tmp_path / f"secure-{secure}.db")
        conn = apsw.Connection(path)
        conn.execute(f"PRAGMA secure_delete = {'ON' if secure else 'OFF'}")
        conn.execute("CREATE TABLE T (BODY TEXT)")
        conn.execute("INSERT INTO T VALUES ('Snollygoster remains'), ('filler')")
        conn.execute("DELETE FROM T WHERE BODY LIKE 'Snolly%'")
        conn.close()
        return file_contains(path, b"Snollygoster remains")

    assert delete_and_read(secure=False) is True
    assert delete_and_read(secure=True) is False
