"""Erasure of an employee on the SQLite engine: the deletes and the job row (one write transaction), the
redaction of quoted copies, the physical clean-up of the file, and the proof that the person's strings
are gone from every table, the FTS5 index and the raw bytes of the database, -wal and -shm files.

Functions take an open connection; the engine owns transactions. All SQL text is in statements.py.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Sequence

import apsw

from app.engines.base import OwnedDocumentsError
from app.engines.sqlite import statements as sql
from app.entities import ENTITIES
from app.rag.erasure import (
    KEY_BYTES,
    REDACT_PLACES,
    DocumentsPolicy,
    ErasureJob,
    PersonString,
    ProofLine,
    PurgeStep,
    Redaction,
    build_report,
    first_outcome,
    job_from_row,
    like_pattern,
    person_strings,
    redact_place,
    seal,
    shared_names,
    words,
)

SOURCE_TABLES = frozenset(entity.table for entity in ENTITIES.values())
FILES = ("", "-wal", "-shm")


# --- the deletes and the job row: the engine runs this inside BEGIN IMMEDIATE -------------------

def erase_employee(conn: apsw.Connection, employee_id: int, documents: DocumentsPolicy | None,
                   reassign_to: int | None, seal_key: bytes) -> ErasureJob | None:
    row = conn.execute(sql.ERASE_EMPLOYEE_ROW, (employee_id,)).fetchone()
    if row is None:
        return None
    comments = conn.execute(sql.ERASE_AUTHORED_COMMENTS, (employee_id,)).fetchall()
    docs = conn.execute(sql.ERASE_OWNED_DOCUMENTS, (employee_id,)).fetchall()
    tasks = [r[0] for r in conn.execute(sql.ERASE_ASSIGNED_TASKS, (employee_id,))]
    cleared = [r[0] for r in conn.execute(sql.ERASE_REFERENCING_TASKS, (employee_id, employee_id))]
    if docs and documents is None:
        raise OwnedDocumentsError(employee_id, len(docs))
    conversations = conn.execute(sql.ERASE_CONVERSATION_TITLES, (employee_id,)).fetchall()
    user_messages = conn.execute(sql.ERASE_USER_MESSAGES, (employee_id,)).fetchall()
    (messages,) = conn.execute(sql.ERASE_COUNT_MESSAGES, (employee_id,)).fetchone()
    report = build_report(employee_id, comments, docs, tasks, documents, reassign_to, len(conversations), messages,
                          cleared)
    namesakes = conn.execute(sql.ERASE_NAMESAKES, (employee_id, row[0], row[1])).fetchall()
    strings, skipped = person_strings(row, comments, docs, documents, conversations, user_messages,
                                      shared_names(row[0], row[1], namesakes))
    conn.execute(sql.ERASURE_INSERT, (employee_id, documents, report.to_json(), first_outcome(strings, skipped),
                                      seal(strings, seal_key)))

    conn.execute(sql.ERASE_DELETE_CONVERSATIONS, (employee_id,))  # their messages go with them (CASCADE)
    conn.execute(sql.ERASE_DELETE_COMMENTS, (employee_id,))
    if documents == "delete":
        conn.execute(sql.ERASE_DELETE_DOCUMENTS, (employee_id,))
    elif docs:
        conn.execute(sql.ERASE_REASSIGN_DOCUMENTS, (reassign_to, employee_id))
    conn.execute(sql.ERASE_UNASSIGN_TASKS, (employee_id,))
    conn.execute(sql.ERASE_CLEAR_REPORTER, (employee_id,))
    conn.execute(sql.ERASE_CLEAR_RESOLVER, (employee_id,))
    conn.execute(sql.ERASE_DELETE_EMPLOYEE, (employee_id,))
    return job(conn, employee_id)


def job(conn: apsw.Connection, employee_id: int) -> ErasureJob | None:
    row = conn.execute(sql.ERASURE_SELECT, (employee_id,)).fetchone()
    return job_from_row(row) if row else None


# --- quoted copies in other people's data: inside BEGIN IMMEDIATE --------------------------------

def redact_copies(conn: apsw.Connection, strings: Sequence[PersonString]) -> list[Redaction]:
    """Replace every copy of the strings where other people's data quotes a person (REDACT_PLACES). A row
    is a candidate when it holds a string's needle (LIKE, ASCII case-insensitive); the pattern decides."""
    out = []
    for table, key, column, max_chars in REDACT_PLACES:
        here = [s for s in strings if s.applies_to(table)]  # a lone name: conversations only
        candidates: dict[int, str] = {}
        for s in here:
            candidates.update(conn.execute(sql.redact_candidates(table, key, column), (like_pattern(s.needle),)))
        rows = copies = 0
        for row_id, value in candidates.items():
            text, n = redact_place(table, column, value, here, max_chars)
            if n:
                conn.execute(sql.redact_update(table, key, column), (text, row_id))
                rows, copies = rows + 1, copies + n
        out.append(Redaction(f"{table}.{column}", rows, copies))
    return out


# --- physical clean-up: outside any transaction ------------------------------------------------

def purge_indexes(conn: apsw.Connection) -> list[PurgeStep]:
    """Merge the FTS5 segments into one: entries of deleted and re-indexed chunks are dropped."""
    return [_step("FTS5 optimize", lambda: conn.execute(sql.FTS_OPTIMIZE))]


def compact(conn: apsw.Connection) -> list[PurgeStep]:
    """Checkpoint, VACUUM, checkpoint again (VACUUM itself writes through the WAL)."""
    return [_checkpoint(conn), _step("VACUUM", lambda: conn.execute(sql.VACUUM)), _checkpoint(conn)]


def forget(conn: apsw.Connection, path: str, held: bytes | None) -> list[PurgeStep]:
    """After ERASURE_FORGET committed: move it into the file (secure_delete zeroes the old cells), VACUUM
    too if a sample of the held bytes is still in a file, and say whether any is left."""
    steps = [_checkpoint(conn)]
    if held is None:
        return steps
    if _held_left(path, held):
        steps += compact(conn)
    left = _held_left(path, held)
    steps.append(PurgeStep("held strings gone from the files", not left,
                           f"{left} sample(s) of the sealed strings still found" if left else ""))
    return steps


def _held_left(path: str, held: bytes) -> int:
    """How many samples of the sealed bytes (the key, the start, the end, one per 64 KiB) a file still holds."""
    samples = {held[:KEY_BYTES], held[KEY_BYTES:KEY_BYTES + 64], held[-64:]}
    samples |= {held[at:at + 64] for at in range(KEY_BYTES, len(held), 1 << 16)}
    return sum(bool(file_contains(path + suffix, sample)) for sample in samples if len(sample) >= 16
               for suffix in FILES)


def _step(name: str, action) -> PurgeStep:
    try:
        action()
    except apsw.Error as exc:
        return PurgeStep(name, False, str(exc))
    return PurgeStep(name, True)


def _checkpoint(conn: apsw.Connection) -> PurgeStep:
    try:
        busy, log_frames, done = conn.execute(sql.WAL_CHECKPOINT_TRUNCATE).fetchone()
    except apsw.Error as exc:
        return PurgeStep("WAL checkpoint (TRUNCATE)", False, str(exc))
    # busy: another connection's read transaction kept the WAL from being reset.
    return PurgeStep("WAL checkpoint (TRUNCATE)", busy == 0,
                     f"busy={busy}, wal frames={log_frames}, checkpointed={done}")


# --- the proof ---------------------------------------------------------------------------------

def proof(conn: apsw.Connection, path: str, strings: Sequence[PersonString]) -> list[ProofLine]:
    columns = _columns(conn)
    lines: list[ProofLine] = []
    for s in strings:
        if s.conversations_only:  # a lone name: anyone's in the tracker's data, no one's in a conversation
            lines += _table_lines(conn, {t: cols for t, cols in columns.items() if s.applies_to(t)}, s)
            continue
        lines += _table_lines(conn, columns, s)
        lines.append(_schema_line(conn, s))
        lines.append(_fts_line(conn, s))
        lines += [_file_line(path + suffix, s) for suffix in FILES]
    return lines


def _columns(conn: apsw.Connection) -> dict[str, list[str]]:
    tables = [name for (name,) in conn.execute(sql.PROOF_TABLES)]
    return {t: [c for (c,) in conn.execute(sql.PROOF_COLUMNS, (t,))] for t in tables}


def _place(table: str, column: str) -> tuple[str, bool]:
    """Where a column's values are reported, and whether it holds the tracker's own data."""
    if table == "PROJECTS" and column.startswith("AUTO_SUMMARY"):  # written by the LLM, not the tracker
        return "project auto-summaries", False
    if table in SOURCE_TABLES:
        return "source tables", True
    if table == "RAG_CHUNK":
        return "chunk table RAG_CHUNK", False
    if table == "RAG_DIRTY":
        return "queue RAG_DIRTY", False
    if table in ("CONVERSATIONS", "MESSAGES"):
        return "conversation tables", False
    if table.startswith("RAG_FTS"):
        return "FTS5 shadow tables", False
    if table.startswith("RAG_VEC"):
        return "vector tables (sqlite-vec metadata)", False
    return "other tables", False


def _table_lines(conn: apsw.Connection, columns: dict[str, list[str]], s: PersonString) -> list[ProofLine]:
    """Every column of every table: rows holding the needle (as text, or as bytes in a BLOB), then the
    string's own pattern on what they hold (whole words for a name; a long text past the needle)."""
    pattern, needle = like_pattern(s.needle), s.needle.encode("utf-8")
    hits: dict[tuple[str, bool], list[str]] = {_place(t, c): [] for t, cols in columns.items() for c in cols}
    for table, cols in columns.items():
        rows = conn.execute(sql.proof_table_rows(table, cols), (pattern, needle)).fetchall()
        for ix, column in enumerate(cols):
            found = sum(s.count_in(row[ix]) > 0 for row in rows)
            if found:
                hits[_place(table, column)].append(f"{table}.{column}: {found} row(s)")
    return [ProofLine(s.label, s.fingerprint, where, bool(found), source, "; ".join(found))
            for (where, source), found in hits.items()]


def _schema_line(conn: apsw.Connection, s: PersonString) -> ProofLine:
    found = sum(s.count_in(text) > 0 for (text,) in conn.execute(sql.PROOF_SCHEMA, (like_pattern(s.needle),)))
    return ProofLine(s.label, s.fingerprint, "schema (sqlite_schema.sql)", bool(found), True)


def _fts_line(conn: apsw.Connection, s: PersonString) -> ProofLine:
    """Index entries holding all of the string's longest words: one counts when its chunk is gone (a
    stale entry) or still holds the string (sharing words is not a copy)."""
    terms = words(s.value)
    where = "FTS5 index (MATCH)"
    if not terms:
        return ProofLine(s.label, s.fingerprint, where, False, detail="no indexable words")
    query = " AND ".join('"' + t.replace('"', '""') + '"' for t in terms)
    count = sum(chunk_id is None or s.count_in(content) > 0
                for chunk_id, content in conn.execute(sql.PROOF_FTS_MATCH, (query,)))
    return ProofLine(s.label, s.fingerprint, where, bool(count), detail=f"{count} chunk(s)" if count else "")


def _file_line(path: str, s: PersonString) -> ProofLine:
    where = f"raw bytes of {os.path.basename(path)}"
    # FTS5 stores its tokens case-folded: look for the lower-case bytes too.
    needles = list(dict.fromkeys([s.value.encode("utf-8"), s.value.lower().encode("utf-8")]))
    with _mapped(path) as data:
        if data is None:
            return ProofLine(s.label, s.fingerprint, where, False, detail="no such file (or empty)")
        counts = [s.count_bytes(data, needle) for needle in needles]
    found = sum(n * len(needle) for n, needle in zip(counts, needles))
    return ProofLine(s.label, s.fingerprint, where, bool(found), detail=f"{found} byte(s)" if found else "",
                     bytes=found)


class _mapped:
    """The file's bytes (an mmap), or None when it is missing or empty."""

    def __init__(self, path: str) -> None:
        self.path, self._file, self._map = path, None, None

    def __enter__(self):
        try:
            self._file = open(self.path, "rb")
        except FileNotFoundError:
            return None
        if os.fstat(self._file.fileno()).st_size == 0:
            return None
        self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
        return self._map

    def __exit__(self, *exc: object) -> None:
        if self._map is not None:
            self._map.close()
        if self._file is not None:
            self._file.close()


def file_contains(path: str, needle: bytes) -> bool | None:
    """Whether the file's bytes contain the needle; None when the file is missing or empty."""
    with _mapped(path) as data:
        return None if data is None else data.find(needle) != -1
