"""The verdict after a drain: does the database hold exactly what a fresh index of its source rows would?

Used by scripts/bench_reliability_kill.py and tests/reliability/test_worker_sigkill.py. Each problem
is one mismatch, named precisely: a skipped source, a stale or orphaned chunk, a queue row left
behind, a missing, orphaned, mis-filtered or stale vector, an FTS index out of step with RAG_CHUNK.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from app.domain import SOURCE_TYPES
from app.embedding.tokens import count_tokens
from app.engines.sqlite.engine import SQLiteEngine
from app.rag.access import audience
from app.rag.chunking import chunk_record

SOURCE_TABLES = {"task": ("TASKS", "TASK_ID"), "sprint": ("SPRINTS", "SPRINT_ID"),
                 "project": ("PROJECTS", "PROJECT_ID"), "doc": ("DOCUMENTS", "DOCUMENT_ID")}
VECTOR_MATCH = 0.999  # cosine of a stored vector with a fresh embedding of its text (measured: 0.9999998)


@dataclass
class Verdict:
    sources: int = 0  # source rows that must be indexed
    chunks: int = 0  # chunks a fresh index of them holds
    vectors_checked: int = 0  # stored vectors compared with a fresh embedding of their chunk's text
    problems: list[str] = field(default_factory=list)  # each one a mismatch; must be empty


def expected_chunks(engine: SQLiteEngine) -> dict[tuple, tuple]:
    """What a fresh index of the current source rows holds: the drain's own chunking, no shortcut."""
    expected = {}
    with engine.indexing() as tx:  # reads only: nothing is claimed or written
        for source_type in SOURCE_TYPES:
            table, pk = SOURCE_TABLES[source_type]
            ids = [r[0] for r in engine.conn.execute(f"SELECT {pk} FROM {table}")]
            for record in tx.load_sources(source_type, ids).values():
                for c in chunk_record(record, count_tokens):
                    expected[(c.source_type, c.source_id, c.chunk_ix)] = (
                        c.content, c.content_hash, c.owner_employee_id, c.project_id, c.sprint_id, c.doc_type,
                        audience(c.source_type, c.owner_employee_id))
    return expected


def stored_chunks(engine: SQLiteEngine) -> dict[tuple, tuple]:
    rows = engine.conn.execute("SELECT SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, CONTENT_HASH, OWNER_EMPLOYEE_ID, "
                               "PROJECT_ID, SPRINT_ID, DOC_TYPE, AUDIENCE, CHUNK_ID FROM RAG_CHUNK")
    return {tuple(r[:3]): tuple(r[3:]) for r in rows}


def compare_chunks(expected: dict, stored: dict, deleted: set[tuple[str, int]]) -> list[str]:
    problems = [f"missing chunk {k} (a source was skipped)" for k in sorted(expected.keys() - stored.keys())]
    problems += [f"extra chunk {k} (stale index or deleted source)" for k in sorted(stored.keys() - expected.keys())]
    problems += [f"stale chunk {k}: stored {stored[k][:2]!r}, fresh {expected[k][:2]!r}"
                 for k in sorted(expected.keys() & stored.keys()) if stored[k][:-1] != expected[k]]
    problems += [f"chunk {k} of deleted source {k[:2]}" for k in sorted(stored) if k[:2] in deleted]
    return problems


def compare_vectors(engine: SQLiteEngine, stored: dict, embedder, check: set[int]) -> tuple[list[str], int]:
    """Exactly one vector per chunk, with the chunk's filter columns; the ``check`` ids re-embedded."""
    chunk_of = {v[-1]: (k, v) for k, v in stored.items()}
    vectors = {cid: (emb, aud, st) for cid, emb, aud, st in
               engine.conn.execute("SELECT CHUNK_ID, EMBEDDING, AUDIENCE, SOURCE_TYPE FROM RAG_VEC")}
    problems = [f"chunk {chunk_of[c][0]} has no vector" for c in sorted(chunk_of.keys() - vectors.keys())]
    problems += [f"vector {c} has no chunk" for c in sorted(vectors.keys() - chunk_of.keys())]
    problems += [f"vector of chunk {chunk_of[c][0]} filters as {vectors[c][1:]}, the chunk as "
                 f"{(chunk_of[c][1][6], chunk_of[c][0][0])}" for c in sorted(chunk_of.keys() & vectors.keys())
                 if vectors[c][1:] != (chunk_of[c][1][6], chunk_of[c][0][0])]
    ids = sorted(check & chunk_of.keys() & vectors.keys())
    if ids:
        fresh = np.asarray(embedder.embed([chunk_of[c][1][0] for c in ids]), dtype=np.float32)
        stored_vectors = np.stack([np.frombuffer(vectors[c][0], dtype=np.float32) for c in ids])
        cosines = (fresh * stored_vectors).sum(axis=1)  # both L2-normalised
        problems += [f"vector of chunk {chunk_of[c][0]} is not its text's (cosine {cos:.4f})"
                     for c, cos in zip(ids, cosines) if cos < VECTOR_MATCH]
    return problems, len(ids)


def fts_problems(engine: SQLiteEngine) -> list[str]:
    """FTS5's own check; rank 1 also compares the index with its content table, RAG_CHUNK."""
    try:
        engine.conn.execute("INSERT INTO RAG_FTS (RAG_FTS, rank) VALUES ('integrity-check', 1)")
    except Exception as exc:  # apsw.CorruptError and friends: the message is the finding
        return [f"FTS index does not match RAG_CHUNK: {type(exc).__name__}: {exc}"]
    return []


def verify(engine: SQLiteEngine, embedder, deleted: set[tuple[str, int]] = frozenset(),
           touched: set[tuple[str, int]] = frozenset(), sample: int = 16, seed_: int = 0) -> Verdict:
    """Everything the worker must have left behind once the queue is drained; problems name each miss.

    Vectors re-embedded: every chunk of a ``touched`` source (where a stale one would hide) plus
    ``sample`` others at random (``sample`` < 0: all of them).
    """
    expected, stored = expected_chunks(engine), stored_chunks(engine)
    verdict = Verdict(sources=len({k[:2] for k in expected}), chunks=len(expected))
    queued = engine.conn.execute("SELECT DIRTY_ID, SOURCE_TYPE, SOURCE_ID, ATTEMPTS, LAST_ERROR FROM RAG_DIRTY "
                                 "LIMIT 5").fetchall()
    verdict.problems += [f"queue row left behind: {row}" for row in queued]
    verdict.problems += compare_chunks(expected, stored, set(deleted))
    ids = [v[-1] for v in stored.values()]
    check = {v[-1] for k, v in stored.items() if k[:2] in touched}
    rest = sorted(set(ids) - check)
    check |= set(rest if sample < 0 else random.Random(seed_).sample(rest, min(sample, len(rest))))
    vector_problems, verdict.vectors_checked = compare_vectors(engine, stored, embedder, check)
    verdict.problems += vector_problems + fts_problems(engine)
    return verdict
