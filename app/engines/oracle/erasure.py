"""Erasure of an employee on the Oracle engine: the deletes and the job row (one transaction, the engine
commits), the redaction of quoted copies, the Oracle Text clean-up, and the proof by query.

What a query cannot see is out of reach here and said so in docs/OPERATIONS.md: undo, redo and archived logs,
flashback data and backups. The text index's own token tables are read after its FULL optimize.
Functions take an open connection or cursor; all SQL text is in erasure_statements.py.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from app.engines.base import OwnedDocumentsError
from app.engines.oracle import erasure_statements as erasure_sql
from app.engines.oracle import statements
from app.engines.oracle.records import blob_input_sizes, clob_input_sizes
from app.engines.oracle.search import braced
from app.rag.erasure import (
    JSON_PLACES,
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

log = logging.getLogger(__name__)

PURGE_SYNC_MAXTIME_MIN = 10  # CTX_DDL.SYNC_INDEX maxtime, minutes: the purge's sync works at most about this long
# maxtime bounds the sync's own work only: with LOCK_WAIT, a sync waiting for a running one (the IRnn job's) "waits
# forever and maxtime is ignored" [DOC 12.1 ccapp "Locking Parameter for SYNC_INDEX"; REVIEW-3 W3]. The call timeout
# of the purge's connection bounds each of its calls, wait included: above maxtime, as maxtime is approximate
# ("may be less than, or greater than, what you specify", DOC 19 ccapp). Past it the step fails with DPY-4024 and
# the erasure is reported not proven, to be rerun.
PURGE_CALL_TIMEOUT_MS = (PURGE_SYNC_MAXTIME_MIN + 5) * 60_000


def erase_employee(cur: Any, employee_id: int, documents: DocumentsPolicy | None,
                   reassign_to: int | None, seal_key: bytes) -> ErasureJob | None:
    binds = {"employee_id": int(employee_id)}
    cur.execute(erasure_sql.ERASE_EMPLOYEE_ROW, binds)
    row = cur.fetchone()
    if row is None:
        return None
    cur.execute(erasure_sql.ERASE_AUTHORED_COMMENTS, binds)
    comments = cur.fetchall()
    cur.execute(erasure_sql.ERASE_OWNED_DOCUMENTS, binds)
    docs = cur.fetchall()
    cur.execute(erasure_sql.ERASE_ASSIGNED_TASKS, binds)
    tasks = [int(r[0]) for r in cur.fetchall()]
    cur.execute(erasure_sql.ERASE_REFERENCING_TASKS, binds)
    cleared = [int(r[0]) for r in cur.fetchall()]
    if docs and documents is None:
        raise OwnedDocumentsError(employee_id, len(docs))
    cur.execute(erasure_sql.ERASE_CONVERSATION_TITLES, binds)
    conversations = cur.fetchall()
    cur.execute(erasure_sql.ERASE_USER_MESSAGES, binds)
    user_messages = cur.fetchall()
    cur.execute(erasure_sql.ERASE_COUNT_MESSAGES, binds)
    (messages,) = cur.fetchone() or (0,)
    report = build_report(int(employee_id), comments, docs, tasks, documents, reassign_to, len(conversations),
                          int(messages), cleared)
    cur.execute(erasure_sql.ERASE_NAMESAKES, {**binds, "first_name": row[0], "last_name": row[1]})
    namesakes = cur.fetchall()
    strings, skipped = person_strings(row, comments, docs, documents, conversations, user_messages,
                                      shared_names(row[0], row[1], namesakes))
    job_binds = {**binds, "documents": documents, "report": report.to_json(),
                 "outcome": first_outcome(strings, skipped), "held": seal(strings, seal_key)}
    cur.setinputsizes(**clob_input_sizes(job_binds, ("report", "outcome")), **blob_input_sizes(job_binds, ("held",)))
    cur.execute(erasure_sql.ERASURE_INSERT, job_binds)

    cur.execute(erasure_sql.ERASE_DELETE_CONVERSATIONS, binds)  # their messages go with them (ON DELETE CASCADE)
    cur.execute(erasure_sql.ERASE_DELETE_COMMENTS, binds)
    if documents == "delete":
        cur.execute(erasure_sql.ERASE_DELETE_DOCUMENTS, binds)
    elif docs:
        cur.execute(erasure_sql.ERASE_REASSIGN_DOCUMENTS, {**binds, "reassign_to": int(reassign_to)})
    cur.execute(erasure_sql.ERASE_UNASSIGN_TASKS, binds)
    cur.execute(erasure_sql.ERASE_CLEAR_REPORTER, binds)
    cur.execute(erasure_sql.ERASE_CLEAR_RESOLVER, binds)
    cur.execute(erasure_sql.ERASE_DELETE_EMPLOYEE, binds)
    return job(cur, employee_id)


def job(cur: Any, employee_id: int) -> ErasureJob | None:
    cur.execute(erasure_sql.ERASURE_SELECT, employee_id=int(employee_id))
    row = cur.fetchone()
    return job_from_row(row) if row else None


def redact_copies(cur: Any, strings: Sequence[PersonString]) -> list[Redaction]:
    """Replace every copy of the strings where other people's data quotes a person (REDACT_PLACES); the
    engine commits. A row is a candidate when it holds a string's needle; the string's pattern decides."""
    out = []
    for table, key, column, max_chars in REDACT_PLACES:
        here = [s for s in strings if s.applies_to(table)]  # a lone name: conversations only
        candidates: dict[int, str] = {}
        for s in here:
            cur.execute(erasure_sql.redact_candidates(table, key, column), pattern=like_pattern(s.needle))
            candidates.update((int(row_id), value) for row_id, value in cur.fetchall())
        rows = copies = 0
        for row_id, value in candidates.items():
            text, n = redact_place(table, column, value, here, max_chars)
            if n:
                update = {"redacted": text, "row_id": row_id}
                if max_chars is None and (table, column) not in JSON_PLACES:  # a CLOB (CONTENT, AUTO_SUMMARY)
                    cur.setinputsizes(**clob_input_sizes(update, ("redacted",)))
                cur.execute(erasure_sql.redact_update(table, key, column), update)
                rows, copies = rows + 1, copies + n
        out.append(Redaction(f"{table}.{column}", rows, copies))
    return out


def purge_indexes(conn: Any) -> list[PurgeStep]:
    """Sync the text index (the drain's deletes reach it), then FULL-optimize it: deleted rows'
    tokens stay in the index tables until then (garbage collection, DOC ccref optimize_index).
    Both commit implicitly, so they run after the erasure has committed."""
    steps = []
    # The sync waits for a running one (LOCK_WAIT): the worker's LOCK_NOWAIT sync may have skipped the deletes. The
    # engine bounds each call by PURGE_CALL_TIMEOUT_MS (the wait included): past it the step fails, not proven.
    for name, statement, binds in (
            ("Oracle Text sync", erasure_sql.PURGE_SYNC_TEXT_INDEX, {"maxtime_min": PURGE_SYNC_MAXTIME_MIN}),
            ("Oracle Text optimize (FULL)", erasure_sql.OPTIMIZE_TEXT_INDEX, {})):
        try:
            with conn.cursor() as cur:
                cur.execute(statement, idx_name=statements.TEXT_INDEX, **binds)
            steps.append(PurgeStep(name, True))
        except Exception as exc:  # reported in the proof: the erasure is then not proven
            log.warning("%s of %s failed: %s", name, statements.TEXT_INDEX, exc)
            steps.append(PurgeStep(name, False, str(exc)))
    return steps


def proof(cur: Any, strings: Sequence[PersonString]) -> list[ProofLine]:
    g_table, i_table = statements.TEXT_TOKEN_TABLES
    cur.execute(erasure_sql.TEXT_TOKEN_TABLES_PRESENT, g_table=g_table, i_table=i_table)
    token_tables = [str(name) for (name,) in cur.fetchall()]
    lines: list[ProofLine] = []
    for s in strings:
        lines += _table_lines(cur, s)
        if not s.conversations_only:  # a lone name is searched in the conversation tables only
            lines.append(_index_line(cur, s, token_tables))
    return lines


def _place(table: str, source: bool) -> str:
    if source:
        return "source tables"
    return {"RAG_CHUNK": "chunk table RAG_CHUNK", "RAG_DIRTY": "queue RAG_DIRTY", "CONVERSATIONS": "conversation tables",
            "MESSAGES": "conversation tables", "PROJECTS": "project auto-summaries"}.get(table, table)


def bindable_pattern(value: str) -> str | None:
    """The LIKE pattern of ``value``, or None when it is too long to bind as an ordinary VARCHAR2 (REVIEW-2 W1:
    ORA-01461 inside UPPER()/LIKE, after the erasure committed). Such a text is searched by its pieces only."""
    pattern = like_pattern(value)
    return pattern if len(pattern.encode("utf-8", "surrogatepass")) <= erasure_sql.PROOF_PATTERN_MAX_BYTES else None


def _table_lines(cur: Any, s: PersonString) -> list[ProofLine]:
    pattern = bindable_pattern(s.value)
    if pattern is None:
        return [ProofLine(s.label, s.fingerprint, "every text column", False,
                          detail=f"searched by its parts: over {erasure_sql.PROOF_PATTERN_MAX_BYTES} bytes, the "
                                 "whole text cannot be a LIKE pattern on Oracle")]
    hits: dict[tuple[str, bool], list[str]] = {}
    for table, columns, source in erasure_sql.PROOF_TABLES:
        if not s.applies_to(table):
            continue
        cur.execute(erasure_sql.proof_count(table, columns), pattern=pattern)
        counts = cur.fetchone() or (0,) * len(columns)
        found = hits.setdefault((_place(table, source), source), [])
        for column, n in zip(columns, counts):
            if n and s.bounded:  # a name counts as whole words only: "Ana Silva" is not in "Ana Silvana"
                cur.execute(erasure_sql.proof_values(table, column), pattern=pattern)
                n = sum(s.count_in(value) > 0 for (value,) in cur.fetchall())
            if n:
                found.append(f"{table}.{column}: {int(n)} row(s)")
    return [ProofLine(s.label, s.fingerprint, where, bool(found), source, "; ".join(found))
            for (where, source), found in hits.items()]


def _index_line(cur: Any, s: PersonString, token_tables: Sequence[str]) -> ProofLine:
    """The string's words in the Text index's own token tables, after the FULL optimize (REVIEW-2 W9): a word no
    live chunk holds is a deleted row's token the optimize did not remove. The words are never printed."""
    where = f"Oracle Text index tables ({', '.join(token_tables) or statements.TEXT_TOKEN_TABLES[1]})"
    terms = words(s.value)
    if not terms:
        return ProofLine(s.label, s.fingerprint, where, False, detail="no indexable words")
    if not token_tables:  # not proven: see `ragctl oracle doctor`, check "text tokens"
        return ProofLine(s.label, s.fingerprint, where, True, detail="not searched: the token table is missing")
    tokens: set[str] = set()
    for table in token_tables:
        statement = erasure_sql.text_tokens(table, terms)
        cur.execute(statement.sql, statement.binds)
        tokens.update(str(token) for (token,) in cur.fetchall())
    unexplained = 0
    for token in sorted(tokens):
        cur.execute(erasure_sql.PROOF_CONTAINS, tq=braced(token))
        (live,) = cur.fetchone() or (0,)
        unexplained += not live
    detail = (f"{unexplained} of its {len(terms)} longest word(s) remain as tokens no live chunk holds"
              if unexplained else f"{len(tokens)} of its {len(terms)} longest word(s) indexed, each from a live chunk")
    return ProofLine(s.label, s.fingerprint, where, bool(unexplained), detail=detail)
