"""The Oracle engine's erasure steps (app/services/erasure.py runs them; app/engines/oracle/erasure.py holds the
work). ``OracleEngine`` (engine.py) inherits ``ErasureMethods``; each step takes its own pooled connection.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from app.engines.oracle import erasure, records
from app.engines.oracle import erasure_statements as sql
from app.engines.oracle.errors import conflicts
from app.engines.oracle.pooling import PooledConnections
from app.entities import EMPLOYEES
from app.rag.erasure import (DocumentsPolicy, ErasureJob, PersonString, ProofLine, PurgeStep, Redaction, Step,
                             job_from_row)


class ErasureMethods(PooledConnections):
    """The erasure steps; ``text_statistics`` and ``model_name`` are OracleEngine's."""

    def erase_employee(self, employee_id: int, documents: DocumentsPolicy | None, reassign_to: int | None,
                       seal_key: bytes) -> ErasureJob | None:
        with self._connection() as conn, conn.cursor() as cur:
            with conflicts(EMPLOYEES):
                job = erasure.erase_employee(cur, employee_id, documents, reassign_to, seal_key)
            conn.commit()
            self.text_statistics.invalidate()
            return job

    def erasure_job(self, employee_id: int) -> ErasureJob | None:
        with self._connection() as conn, conn.cursor() as cur:
            return erasure.job(cur, employee_id)

    def unfinished_erasures(self) -> list[ErasureJob]:
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(sql.ERASURE_UNFINISHED)
            return [job_from_row(row) for row in cur.fetchall()]

    def record_erasure_step(self, employee_id: int, step: Step, outcome: dict, verdict: str | None) -> None:
        binds = {"step": step, "outcome": json.dumps(outcome), "verdict": verdict, "employee_id": int(employee_id)}
        with self._connection() as conn, conn.cursor() as cur:
            cur.setinputsizes(**records.clob_input_sizes(binds, ("outcome",)))
            cur.execute(sql.ERASURE_RECORD_STEP, binds)
            conn.commit()

    def redact_copies(self, strings: Sequence[PersonString]) -> list[Redaction]:
        with self._connection(*self._operator_bound("the erasure's redaction")) as conn, conn.cursor() as cur:
            done = erasure.redact_copies(cur, strings)
            conn.commit()
            return done

    def purge_indexes(self) -> list[PurgeStep]:
        with self._connection(erasure.PURGE_CALL_TIMEOUT_MS) as conn:
            return erasure.purge_indexes(conn)

    def compact(self) -> list[PurgeStep]:
        return [PurgeStep("compact", True, "nothing the schema can reach: undo, redo, archived logs, flashback "
                                           "and backups keep old row versions (docs/OPERATIONS.md, Erasure)")]

    def erasure_proof(self, strings: Sequence[PersonString]) -> list[ProofLine]:
        with self._connection(*self._operator_bound("the erasure's proof")) as conn, conn.cursor() as cur:
            return erasure.proof(cur, strings)

    def forget_held_strings(self, employee_id: int, held: bytes | None) -> list[PurgeStep]:
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(sql.ERASURE_FORGET, employee_id=int(employee_id))
            conn.commit()
        # An out-of-row LOB keeps its old version in its own LOB segment (RETENTION/PCTVERSION), not in the undo
        # tablespace; only an in-row value's before-image is undo (REVIEW-3 W6).
        return [PurgeStep("held strings dropped from the job row", True,
                          "the old LOB version stays in the LOB segment (its RETENTION) or, for a short in-row value, "
                          "in undo, until its space is reused (docs/OPERATIONS.md, Erasure)")]
