"""The SQLite engine's erasure steps (app/services/erasure.py runs them; app/engines/sqlite/erasure.py holds the work),
the twin of app/engines/oracle/engine_erasure.py. ``SQLiteEngine`` (engine.py) inherits ``ErasureMethods``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

import apsw

from app.engines.sqlite import erasure, errors
from app.engines.sqlite import statements as sql
from app.entities import EMPLOYEES
from app.rag.erasure import (DocumentsPolicy, ErasureJob, PersonString, ProofLine, PurgeStep, Redaction, Step,
                             job_from_row)


class ErasureMethods:
    """The erasure steps over SQLiteEngine's connection (``conn``), file (``path``) and write transaction."""

    conn: apsw.Connection
    path: str
    _write: Callable[[], AbstractContextManager[apsw.Connection]]

    def erase_employee(self, employee_id: int, documents: DocumentsPolicy | None, reassign_to: int | None,
                       seal_key: bytes) -> ErasureJob | None:
        with errors.conflicts(EMPLOYEES), self._write() as conn:
            return erasure.erase_employee(conn, employee_id, documents, reassign_to, seal_key)

    def erasure_job(self, employee_id: int) -> ErasureJob | None:
        return erasure.job(self.conn, employee_id)

    def unfinished_erasures(self) -> list[ErasureJob]:
        return [job_from_row(row) for row in self.conn.execute(sql.ERASURE_UNFINISHED)]

    def record_erasure_step(self, employee_id: int, step: Step, outcome: dict, verdict: str | None) -> None:
        with self._write() as conn:
            conn.execute(sql.ERASURE_RECORD_STEP, (step, json.dumps(outcome), verdict, employee_id))

    def redact_copies(self, strings: Sequence[PersonString]) -> list[Redaction]:
        with self._write() as conn:
            return erasure.redact_copies(conn, strings)

    def purge_indexes(self) -> list[PurgeStep]:
        return erasure.purge_indexes(self.conn)

    def compact(self) -> list[PurgeStep]:
        return erasure.compact(self.conn)

    def erasure_proof(self, strings: Sequence[PersonString]) -> list[ProofLine]:
        return erasure.proof(self.conn, self.path, strings)

    def forget_held_strings(self, employee_id: int, held: bytes | None) -> list[PurgeStep]:
        with self._write() as conn:
            conn.execute(sql.ERASURE_FORGET, (employee_id,))
        return erasure.forget(self.conn, self.path, held)
