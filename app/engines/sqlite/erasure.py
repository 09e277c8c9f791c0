"""Erasure of an employee on the SQLite engine: the deletes (one write transaction), the physical
clean-up of the file, and the proof that the erased strings are gone from every table, the FTS5
index and the raw bytes of the database, -wal and -shm files.

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
    DocumentsPolicy,
    ErasedText,
    ErasureReport,
    ProofLine,
    PurgeStep,
    build_report,
    like_pattern,
    words,
)

SOURCE_TABLES = frozenset(entity.table for entity in ENTITIES.values())


# --- the deletes: the engine runs this inside BEGIN IMMEDIATE ----------------------------------

def erase_employee(conn: apsw.Connection, employee_id: int, documents: DocumentsPolicy | None,
                   reassign_to: int | None) -> ErasureReport | None:
    row = conn.execute(sql.ERASE_EMPLOYEE_ROW, (employee_id,)).fetchone()
    if row is None:
        return None
    comments = conn.execute(sql.ERASE_AUTHORED_COMMENTS, (employee_id,)).fetchall()
    docs = conn.execute(sql.ERASE_OWNED_DOCUMENTS, (employee_id,)).fetchall()
    tasks = [r[0] for r in conn.execute(sql.ERASE_ASSIGNED_TASKS, (employee_id,))]
    if docs and documents is None:
        raise OwnedDocumentsError(employee_id, len(docs))
    conversations = conn.execute(sql.ERASE_CONVERSATION_TITLES, (employee_id,)).fetchall()
    user_messages = conn.execute(sql.ERASE_USER_MESSAGES, (employee_id,)).fetchall()
    (messages,) = conn.execute(sql.ERASE_COUNT_MESSAGES, (employee_id,)).fetchone()
    report = build_report(employee_id, row, comments, docs, tasks, documents, reassign_to,
                          conversations, user_messages, messages)

    conn.execute(sql.ERASE_DELETE_CONVERSATIONS, (employee_id,))  # their messages go with them (CASCADE)
    conn.execute(sql.ERASE_DELETE_COMMENTS, (employee_id,))
    if documents == "delete":
        conn.execute(sql.ERASE_DELETE_DOCUMENTS, (employee_id,))
    elif docs:
        conn.execute(sql.ERASE_REASSIGN_DOCUMENTS, (reassign_to, employee_id))
    conn.execute(sql.ERASE_UNASSIGN_TASKS, (employee_id,))
    conn.execute(sql.ERASE_DELETE_EMPLOYEE, (employee_id,))
    return report


# --- physical clean-up: outside any transaction ------------------------------------------------

def purge(conn: apsw.Connection) -> list[PurgeStep]:
    """FTS5 optimize, checkpoint, VACUUM, checkpoint again (VACUUM itself writes through the WAL)."""
    steps = [_step("FTS5 optimize", lambda: conn.execute(sql.FTS_OPTIMIZE))]
    steps.append(_checkpoint(conn))
    steps.append(_step("VACUUM", lambda: conn.execute(sql.VACUUM)))
    steps.append(_checkpoint(conn))
    return steps


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

def proof(conn: apsw.Connection, path: str, texts: Sequence[ErasedText]) -> list[ProofLine]:
    columns = _columns(conn)
    lines: list[ProofLine] = []
    for text in texts:
        lines += _table_lines(conn, columns, text)
        lines.append(_schema_line(conn, text))
        lines.append(_fts_line(conn, text))
        lines += [_file_line(path + suffix, text) for suffix in ("", "-wal", "-shm")]
    return lines


def _columns(conn: apsw.Connection) -> dict[str, list[str]]:
    tables = [name for (name,) in conn.execute(sql.PROOF_TABLES)]
    return {t: [c for (c,) in conn.execute(sql.PROOF_COLUMNS, (t,))] for t in tables}


def _place(table: str) -> tuple[str, bool]:
    """Where a table's rows are reported, and whether it holds the tracker's own data."""
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


def _table_lines(conn: apsw.Connection, columns: dict[str, list[str]], text: ErasedText) -> list[ProofLine]:
    pattern, needle = like_pattern(text.value), text.value.encode("utf-8")
    hits: dict[tuple[str, bool], list[str]] = {}
    for table, cols in columns.items():
        place = _place(table)
        hits.setdefault(place, [])
        for column in cols:
            (count,) = conn.execute(sql.proof_column_count(table, column), (pattern, needle)).fetchone()
            if count:
                hits[place].append(f"{table}.{column}: {count} row(s)")
    return [ProofLine(text.label, text.fingerprint, where, bool(found), source, "; ".join(found))
            for (where, source), found in hits.items()]


def _schema_line(conn: apsw.Connection, text: ErasedText) -> ProofLine:
    (count,) = conn.execute(sql.PROOF_SCHEMA, (like_pattern(text.value),)).fetchone()
    return ProofLine(text.label, text.fingerprint, "schema (sqlite_schema.sql)", bool(count), True)


def _fts_line(conn: apsw.Connection, text: ErasedText) -> ProofLine:
    terms = words(text.value)
    where = "FTS5 index (MATCH)"
    if not terms:
        return ProofLine(text.label, text.fingerprint, where, False, detail="no indexable words")
    query = " AND ".join('"' + t.replace('"', '""') + '"' for t in terms)
    (count,) = conn.execute(sql.PROOF_FTS_MATCH, (query, like_pattern(text.value))).fetchone()
    return ProofLine(text.label, text.fingerprint, where, bool(count), detail=f"{count} chunk(s)" if count else "")


def _file_line(path: str, text: ErasedText) -> ProofLine:
    where = f"raw bytes of {os.path.basename(path)}"
    # FTS5 stores its tokens case-folded: look for the lower-case bytes too.
    needles = dict.fromkeys([text.value.encode("utf-8"), text.value.lower().encode("utf-8")])
    found = [file_contains(path, needle) for needle in needles]
    if found[0] is None:
        return ProofLine(text.label, text.fingerprint, where, False, detail="no such file (or empty)")
    return ProofLine(text.label, text.fingerprint, where, any(found))


def file_contains(path: str, needle: bytes) -> bool | None:
    """Whether the file's bytes contain the needle; None when the file is missing or empty."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                return None
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return data.find(needle) != -1
    except FileNotFoundError:
        return None
