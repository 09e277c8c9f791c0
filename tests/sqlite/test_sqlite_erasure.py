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


def test_a_long_comment_left_in_chunks_is_found_by_its_pieces(sqlite_engine):
    """A comment the chunker split across chunks is in no one chunk whole: the proof also looks for
    its sentences, so a re-index that did not happen (a no-op drain here) cannot pass as proven."""
    sentences = [f"Sentence {n} of the zorblaxian retrospective notes mentions quarterly widget {n}."
                 for n in range(60)]
    ana = employee(sqlite_engine, "Zorbalina", "Quixotewick")
    t = task(sqlite_engine, "Retro follow-ups", assignee_id=ana)
    comment(sqlite_engine, t, " ".join(sentences), author_id=ana)
    drain_all(sqlite_engine)
    chunks = sqlite_engine.conn.execute("SELECT COUNT(*) FROM RAG_CHUNK WHERE SOURCE_TYPE = 'task'").fetchone()[0]
    assert chunks >= 2  # the comment really spans chunks

    def no_reindex():
        sqlite_engine.conn.execute("DELETE FROM RAG_DIRTY")  # as if the re-index were lost
        return drain_all(sqlite_engine)

    result = erase_employee(sqlite_engine, ana, no_reindex)
    assert not result.ok
    assert any("comment" in f and "RAG_CHUNK" in f for f in result.failures), result.failures


def test_pieces_cover_a_long_text_in_sentences_and_word_cut_parts():
    from app.rag.erasure import PIECE_MAX_CHARS, PIECE_MIN_CHARS, pieces, proof_texts

    text = "Short one. " + " ".join(["word"] * 100) + "\nA last line that is long enough here."
    parts = pieces(text)
    assert all(PIECE_MIN_CHARS <= len(p) <= PIECE_MAX_CHARS for p in parts)
    assert "Short one." not in parts and parts[-1] == "A last line that is long enough here."
    labels = [t.label for t in proof_texts([ErasedText("comment #1 body", text)])]
    assert labels[0] == "comment #1 body" and labels[1] == "comment #1 body (part 1)"
    assert [t.label for t in proof_texts([ErasedText("email", "ana@example.com")])] == ["email"]
