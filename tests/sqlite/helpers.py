"""Helpers for the SQLite tests: direct reads of the real tables and chunk seeding without the model."""

from __future__ import annotations

import numpy as np

from app.domain import ChunkWrite
from app.engines.sqlite.indexing import upsert_chunks
from app.rag.chunking import content_hash

DIM = 384


def dirty_rows(engine) -> set[tuple[str, int, str]]:
    return {tuple(r) for r in engine.conn.execute("SELECT SOURCE_TYPE, SOURCE_ID, ACTION FROM RAG_DIRTY")}


def clear_queue(engine) -> None:
    engine.conn.execute("DELETE FROM RAG_DIRTY")


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def seed_chunks(engine, specs, vectors, contents=None) -> None:
    """Write chunks straight through the engine's upsert (no model): specs are
    (source_type, source_id, owner, project, sprint[, doc_type]) tuples."""
    contents = contents or [f"[{st.upper()} #{sid}] chunk" for st, sid, *_ in specs]
    chunks = [
        ChunkWrite(st, sid, 0, owner, project, sprint, text, content_hash(text), *doc_type)
        for (st, sid, owner, project, sprint, *doc_type), text in zip(specs, contents)
    ]
    with engine._write() as conn:
        upsert_chunks(conn, chunks, vectors)
