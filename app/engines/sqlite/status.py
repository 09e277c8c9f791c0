"""Queue and index status for `ragctl status` and GET /rag/status."""

from __future__ import annotations

import apsw

from app.domain import SOURCE_TYPES, FailingRow, RagStatus
from app.engines.sqlite import model_mark
from app.engines.sqlite import statements as sql

FAILING_ROWS_SHOWN = 10


def status(conn: apsw.Connection, max_attempts: int, model_name: str, dimensions: int,
           indexed_vectors: int | None) -> RagStatus:
    rows, oldest_age, failing, stuck, entities = conn.execute(sql.QUEUE_STATUS, (max_attempts,)).fetchone()
    failing_rows = [FailingRow(*row) for row in conn.execute(sql.FAILING_ROWS, (FAILING_ROWS_SHOWN,))]
    chunks = dict(conn.execute(sql.CHUNKS_BY_TYPE).fetchall())
    vectors_model, swap_target = model_mark.read(conn)
    return RagStatus(
        engine="sqlite",
        pending=entities,
        queue_rows=rows,
        oldest_pending_age_s=max(0.0, oldest_age) if oldest_age is not None else None,
        failing=failing,
        stuck=stuck,
        chunks_by_source_type={t: chunks.get(t, 0) for t in SOURCE_TYPES},
        model_name=model_name,
        dimensions=dimensions,
        failing_rows=failing_rows,
        index={"vector_search": "exact, in-memory (numpy) mirrored from sqlite-vec",
               "lexical_search": "FTS5 bm25, in-memory (numpy) mirrored from RAG_CHUNK", "indexed_vectors": indexed_vectors,
               # the model that made the stored vectors, and the one a swap re-embeds them with
               "vectors_model": vectors_model, "swap_target": swap_target},
    )
