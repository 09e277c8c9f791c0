"""Erasure of an employee on the Oracle engine: the deletes and the job row (one transaction, the engine
commits), the redaction of quoted copies, the Oracle Text clean-up, and the proof by query.

What a query cannot see is out of reach here and said so in README: undo, redo and archived logs,
flashback data, backups, and the text index's own tables between a delete and its FULL optimize.
Functions take an open connection or cursor; all SQL text is in statements.py.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from app.engines.base import OwnedDocumentsError
from app.engines.oracle import statements as sql
from app.rag.erasure import (
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
    redact,
    seal,
    words,
)

log = logging.getLogger(__name__)


def erase_employee(cur: Any, employee_id: int, documents: DocumentsPolicy | None,
                   reassign_to: int | None, seal_key: bytes) -> ErasureJob | None:
    binds = {"employee_id": int(employee_id)}
    cur.execute(sql.ERASE_EMPLOYEE_ROW, binds)
    row = cur.fetchone()
    if row is None:
        return None
    cur.execute(sql.ERASE_AUTHORED_COMMENTS, binds)
    comments = cur.fetchall()
    cur.execute(sql.ERASE_OWNED_DOCUMENTS, binds)
    docs = cur.fetchall()
    cur.execute(sql.ERASE_ASSIGNED_TASKS, binds)
    tasks = [int(r[0]) for r in cur.fetchall()]
    if docs and documents is None:
        raise OwnedDocumentsError(employee_id, len(docs))
    cur.execute(sql.ERASE_CONVERSATION_TITLES, binds)
    conversations = cur.fetchall()
    cur.execute(sql.ERASE_USER_MESSAGES, binds)
    user_messages = cur.fetchall()
    cur.execute(sql.ERASE_COUNT_MESSAGES, binds)
    (messages,) = cur.fetchone() or (0,)
    report = build_report(int(employee_id), comments, docs, tasks, documents, reassign_to, len(conversations),
                          int(messages))
    strings, skipped = person_strings(row, comments, docs, documents, conversations, user_messages)
    cur.execute(sql.ERASURE_INSERT, {**binds, "documents": documents, "report": report.to_json(),
                                     "outcome": first_outcome(strings, skipped), "held": seal(strings, seal_key)})

    cur.execute(sql.ERASE_DELETE_CONVERSATIONS, binds)  # their messages go with them (ON DELETE CASCADE)
    cur.execute(sql.ERASE_DELETE_COMMENTS, binds)
    if documents == "delete":
        cur.execute(sql.ERASE_DELETE_DOCUMENTS, binds)
    elif docs:
        cur.execute(sql.ERASE_REASSIGN_DOCUMENTS, {**binds, "reassign_to": int(reassign_to)})
    cur.execute(sql.ERASE_UNASSIGN_TASKS, binds)
    cur.execute(sql.ERASE_DELETE_EMPLOYEE, binds)
    return job(cur, employee_id)


def job(cur: Any, employee_id: int) -> ErasureJob | None:
    cur.execute(sql.ERASURE_SELECT, employee_id=int(employee_id))
    row = cur.fetchone()
    return job_from_row(row) if row else None


def redact_copies(cur: Any, strings: Sequence[PersonString]) -> list[Redaction]:
    """Replace every copy of the strings where other people's data quotes a person (REDACT_PLACES); the
    engine commits. A row is a candidate when it holds a string's needle; the string's pattern decides."""
    out = []
    for table, key, column, max_chars in REDACT_PLACES:
        candidates: dict[int, str] = {}
        for s in strings:
            cur.execute(sql.redact_candidates(table, key, column), pattern=like_pattern(s.needle))
            candidates.update((int(row_id), value) for row_id, value in cur.fetchall())
        rows = copies = 0
        for row_id, value in candidates.items():
            text, n = redact(value, list(strings), max_chars)
            if n:
                cur.execute(sql.redact_update(table, key, column), redacted=text, row_id=row_id)
                rows, copies = rows + 1, copies + n
        out.append(Redaction(f"{table}.{column}", rows, copies))
    return out


def purge_indexes(conn: Any) -> list[PurgeStep]:
    """Sync the text index (the drain's deletes reach it), then FULL-optimize it: deleted rows'
    tokens stay in the index tables until then (garbage collection, DOC ccref optimize_index).
    Both commit implicitly, so they run after the erasure has committed."""
    steps = []
    for name, statement in (("Oracle Text sync", sql.SYNC_TEXT_INDEX),
                            ("Oracle Text optimize (FULL)", sql.OPTIMIZE_TEXT_INDEX)):
        try:
            with conn.cursor() as cur:
                cur.execute(statement, idx_name=sql.TEXT_INDEX)
            steps.append(PurgeStep(name, True))
        except Exception as exc:  # reported in the proof: the erasure is then not proven
            log.warning("%s of %s failed: %s", name, sql.TEXT_INDEX, exc)
            steps.append(PurgeStep(name, False, str(exc)))
    return steps


def proof(cur: Any, strings: Sequence[PersonString]) -> list[ProofLine]:
    lines: list[ProofLine] = []
    for s in strings:
        lines += _table_lines(cur, s)
        lines.append(_contains_line(cur, s))
    return lines


def _place(table: str, source: bool) -> str:
    if source:
        return "source tables"
    return {"RAG_CHUNK": "chunk table RAG_CHUNK", "RAG_DIRTY": "queue RAG_DIRTY", "CONVERSATIONS": "conversation tables",
            "MESSAGES": "conversation tables", "PROJECTS": "project auto-summaries"}.get(table, table)


def _table_lines(cur: Any, s: PersonString) -> list[ProofLine]:
    pattern = like_pattern(s.value)
    hits: dict[tuple[str, bool], list[str]] = {}
    for table, columns, source in sql.PROOF_TABLES:
        cur.execute(sql.proof_count(table, columns), pattern=pattern)
        counts = cur.fetchone() or (0,) * len(columns)
        found = hits.setdefault((_place(table, source), source), [])
        for column, n in zip(columns, counts):
            if n and s.bounded:  # a name counts as whole words only: "Ana Silva" is not in "Ana Silvana"
                cur.execute(sql.proof_values(table, column), pattern=pattern)
                n = sum(s.count_in(value) > 0 for (value,) in cur.fetchall())
            if n:
                found.append(f"{table}.{column}: {int(n)} row(s)")
    return [ProofLine(s.label, s.fingerprint, where, bool(found), source, "; ".join(found))
            for (where, source), found in hits.items()]


def _contains_line(cur: Any, s: PersonString) -> ProofLine:
    where = "Oracle Text index (CONTAINS)"
    terms = words(s.value)
    if not terms:
        return ProofLine(s.label, s.fingerprint, where, False, detail="no indexable words")
    query = " AND ".join(f'"{t}"' for t in terms)  # letters and digits only: nothing to escape
    cur.execute(sql.PROOF_CONTAINS, tq=query, pattern=like_pattern(s.value))
    (count,) = cur.fetchone() or (0,)
    return ProofLine(s.label, s.fingerprint, where, bool(count), detail=f"{int(count)} chunk(s)" if count else "")
