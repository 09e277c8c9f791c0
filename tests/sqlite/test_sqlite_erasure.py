"""SQLite erasure, for real: after erasing, no string of the person is in any table, the FTS5 index, the
queue or the raw bytes of the database, -wal and -shm files, whoever quoted it; the job's own held copy never
shows and is gone at the end; and the controls that show each check can fail (a string still there is
found; without secure_delete a deleted row stays in the bytes)."""

from __future__ import annotations

import apsw
import numpy as np

from app.engines.sqlite.erasure import file_contains
from app.entities import EMPLOYEES
from app.rag.erasure import PersonString, person_strings, verdicts
from app.services.erasure import erase_employee, proof_report
from tests.support import comment, document, drain_all, employee, project, task

from .helpers import clear_queue, seed_chunks, unit_vectors

SECRETS = {"full name": "Zorbalina Quixotewick", "email": "zorbalina.quixotewick@example.com",
           "telegram id": "tg-77889", "comment": "Flibbertigibbet marmalade incident",
           "doc title": "Hyperborean rollout plan", "doc body": "Quantum souffle checklist"}
BOUNDED = {"full name", "email", "telegram id"}
FILES = ("", "-wal", "-shm")


def seed(engine):
    ana = employee(engine, "Zorbalina", "Quixotewick", telegram_id=SECRETS["telegram id"])
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
    texts = [PersonString(label, value, label in BOUNDED) for label, value in SECRETS.items()]
    before = sqlite_engine.erasure_proof(texts)
    assert all(in_files(sqlite_engine, v) for v in SECRETS.values())
    assert {line.label for line in before if line.where == "chunk table RAG_CHUNK" and line.found} >= {
        "full name", "comment", "doc title", "doc body"}
    assert {line.label for line in before if line.where == "FTS5 index (MATCH)" and line.found} >= {
        "full name", "comment", "doc body"}
    judged = {v.label: v.verdict for v in verdicts(before)}
    # The full name is in no source column (first and last are two): only its derived copies hold it.
    assert judged.pop("full name") == "FOUND" and set(judged.values()) == {"still present legitimately"}

    result = erase_employee(sqlite_engine, ana, lambda: drain_all(sqlite_engine), delete_documents=True)
    report = "\n".join(proof_report(result))
    assert result.ok, report
    assert report.endswith("PROVEN: no erased string remains outside the tracker's own data")
    assert all(value not in report for value in SECRETS.values())  # the proof names, never repeats
    wheres = {line["where"] for line in result.to_dict()["proof"]}
    assert {"source tables", "chunk table RAG_CHUNK", "queue RAG_DIRTY", "FTS5 index (MATCH)", "FTS5 shadow tables",
            "vector tables (sqlite-vec metadata)", "raw bytes of rag.db", "raw bytes of rag.db-wal",
            "raw bytes of rag.db-shm"} <= wheres
    assert not any(line["found"] for line in result.to_dict()["proof"]) and result.bytes_left == 0
    # Independently of the engine's own proof: the bytes of every file, exact and case-folded.
    for value in SECRETS.values():
        assert not in_files(sqlite_engine, value) and not in_files(sqlite_engine, value.lower())


def test_the_raw_bytes_check_finds_a_string_that_is_still_there(sqlite_engine):
    seed(sqlite_engine)
    lines = sqlite_engine.erasure_proof([PersonString("comment", SECRETS["comment"])])
    files = [line for line in lines if line.where.startswith("raw bytes of rag.db") and line.found]
    assert files, "the raw-bytes check must find a string that is in the file"
    assert sum(line.bytes for line in files) >= len(SECRETS["comment"])


def test_a_string_left_in_a_chunk_fails_the_proof(sqlite_engine):
    seed_chunks(sqlite_engine, [("doc", 9001, None, None, None)], unit_vectors(np.random.default_rng(1), 1),
                ["[DOC #9001] Zyzzogeton leftover"])
    lines = sqlite_engine.erasure_proof([PersonString("full name", "Zyzzogeton", bounded=True)])
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
    from app.rag.erasure import PIECE_MAX_CHARS, PIECE_MIN_CHARS, pieces

    text = "Short one. " + " ".join(["word"] * 100) + "\nA last line that is long enough here."
    parts = pieces(text)
    assert all(PIECE_MIN_CHARS <= len(p) <= PIECE_MAX_CHARS for p in parts)
    assert "Short one." not in parts and parts[-1] == "A last line that is long enough here."
    strings, _ = person_strings(("Ana", "Ruiz", "ana@example.com", None), [(1, 2, text)], [], None)
    labels = [s.label for s in strings if not s.conversations_only]
    assert labels[:3] == ["full name", "email", "comment #1 body"] and labels[3] == "comment #1 body (part 1)"
    assert [s.label for s in strings if s.conversations_only] == ["first name", "last name"]  # issue 34


def test_a_long_text_is_searched_by_a_short_needle_and_its_own_pattern(sqlite_engine):
    """A comment longer than SQLite's LIKE pattern limit (50,000 bytes) is still searched: the SQL looks for its
    first characters and the string's pattern decides (its pieces cover its sentences)."""
    sentence = "Line {n} of the gubbinz report, which goes on about widgets, sprockets and the quarterly numbers " \
               "of the whole department for far longer than anybody would ever want to read."
    text = " ".join(sentence.format(n=n) for n in range(300))  # ~52,000 characters in ~300 sentences
    assert len(text.encode()) > 50_000
    ana = employee(sqlite_engine, "Zorbalina", "Quixotewick")
    t = task(sqlite_engine, "Report", assignee_id=ana)
    comment(sqlite_engine, t, text, author_id=ana)
    clear_queue(sqlite_engine)  # not indexed: this test is about the proof, not the model
    control = sqlite_engine.erasure_proof([PersonString("comment", text)])
    assert any(line.found and line.where == "source tables" for line in control)
    result = erase_employee(sqlite_engine, ana, lambda: drain_all(sqlite_engine))
    assert result.ok, result.failures
    assert not in_files(sqlite_engine, "gubbinz report, which goes on")


def test_a_quoted_name_is_redacted_to_zero_bytes_and_another_name_that_contains_it_is_not(sqlite_engine):
    """The bytes the issue asks for: a manager's chat quoting the person, then the erasure; an independent
    scan of the files finds 0 bytes of every searched string, and "Zorbalina Quixotewickson" (whose name
    starts with the erased one) keeps every byte of hers."""
    ana = seed(sqlite_engine)
    boss = sqlite_engine.caller(2).employee_id
    longer = employee(sqlite_engine, "Zorbalina", "Quixotewickson")
    conv = sqlite_engine.create_conversation(boss, "all", None, "Zorbalina Quixotewick's tasks")
    sqlite_engine.append_turn(conv.conversation_id, "who is on the login fix?",
                              "Zorbalina Quixotewick (tg-77889); Zorbalina Quixotewickson reviews.", [])
    result = erase_employee(sqlite_engine, ana, lambda: drain_all(sqlite_engine), delete_documents=True)
    assert result.ok, result.failures
    assert result.bytes_left == 0
    for value in SECRETS.values():  # independently of the engine's proof
        assert not in_files(sqlite_engine, value) or value == "Zorbalina Quixotewick"
    with open(sqlite_engine.path, "rb") as f:
        data = f.read()
    assert data.count(b"Zorbalina Quixotewick") == data.count(b"Zorbalina Quixotewickson") > 0
    assert sqlite_engine.get(EMPLOYEES, longer)["last_name"] == "Quixotewickson"
    assert sqlite_engine.list_messages(conv.conversation_id, None, 5).items[1].content == \
        "[erased] ([erased]); Zorbalina Quixotewickson reviews."


def test_the_jobs_held_strings_never_show_in_the_proof_and_are_gone_at_the_end(sqlite_engine):
    from app.rag.erasure import KEY_BYTES

    ana = seed(sqlite_engine)
    held = {}

    def watch(step, outcome):
        if step == "compact":  # the proof runs next, with the sealed strings still in the job row
            held["bytes"] = sqlite_engine.erasure_job(ana).held
            assert held["bytes"] and not any(v.encode() in held["bytes"] for v in SECRETS.values())

    result = erase_employee(sqlite_engine, ana, lambda: drain_all(sqlite_engine), delete_documents=True,
                            on_step=watch)
    assert result.ok, result.failures
    assert sqlite_engine.erasure_job(ana).held is None
    for sample in (held["bytes"][:KEY_BYTES], held["bytes"][KEY_BYTES:KEY_BYTES + 64], held["bytes"][-64:]):
        assert not in_files_bytes(sqlite_engine, sample)
    assert {s["name"] for s in result.to_dict()["forget"]} >= {"held strings gone from the files"}


def in_files_bytes(engine, value: bytes) -> bool:
    return any(file_contains(engine.path + suffix, value) for suffix in FILES)
