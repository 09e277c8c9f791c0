"""Queue and index status for `ragctl status` and GET /rag/status, with the IVF index's measured
accuracy. Functions take an open cursor."""

from __future__ import annotations

from typing import Any

from app.domain import FailingRow, RagStatus
from app.engines.oracle import indexing_statements as indexing_sql
from app.engines.oracle import schema_statements as schema_sql
from app.engines.oracle import statements

ACCURACY_TOP_K = 10
ACCURACY_TARGET = 90


def status(cur: Any, max_attempts: int, model_name: str, dimensions: int) -> RagStatus:
    cur.execute(indexing_sql.QUEUE_STATUS, max_attempts=int(max_attempts))
    rows, oldest, now, failing, stuck = cur.fetchone()
    cur.execute(indexing_sql.QUEUE_ENTITIES)  # its own statement: an entity with several rows counts once
    (entities,) = cur.fetchone()
    cur.execute(indexing_sql.FAILING_ROWS)
    failing_rows = [FailingRow(int(d), str(t), int(s), int(a), e) for d, t, s, a, e in cur.fetchall()]
    cur.execute(indexing_sql.CHUNKS_BY_TYPE)
    by_type = {str(t): int(n) for t, n in cur.fetchall()}
    index = index_status(cur)
    age = (now - oldest).total_seconds() if oldest is not None and now is not None else None
    return RagStatus(
        engine="oracle",
        pending=int(entities),
        queue_rows=int(rows),
        oldest_pending_age_s=age,
        failing=int(failing or 0),
        stuck=int(stuck or 0),
        chunks_by_source_type=by_type,
        model_name=model_name,
        dimensions=dimensions,
        failing_rows=failing_rows,
        index=index,
    )


def index_status(cur: Any) -> dict[str, object]:
    """The IVF index's type/status and its measured accuracy (DBMS_VECTOR.INDEX_ACCURACY_QUERY)."""
    info: dict[str, object] = {"name": statements.VECTOR_INDEX}
    try:
        cur.execute(schema_sql.VECTOR_INDEX_INFO, index_name=statements.VECTOR_INDEX)
        row = cur.fetchone()
        if row is None:
            info["state"] = "missing: run `ragctl oracle bootstrap`"
            return info
        info.update(type=row[0], subtype=row[1], state=row[2])
        cur.execute(schema_sql.SAMPLE_VECTOR)
        sample = cur.fetchone()
        if sample is None:
            info["accuracy"] = "not measured: RAG_CHUNK has no vectors yet"
            return info
        report = cur.var(str, 32767)
        cur.execute(
            schema_sql.INDEX_ACCURACY,
            report=report,
            index_name=statements.VECTOR_INDEX,
            qv=sample[0],
            top_k=ACCURACY_TOP_K,
            target_accuracy=ACCURACY_TARGET,
        )
        info["accuracy"] = report.getvalue()
    except Exception as exc:  # status must answer even when the probe cannot
        info["accuracy"] = f"not measured: {exc}"
    return info
