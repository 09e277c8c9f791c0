"""Erase an employee, and prove it: the one use case behind ``ragctl erase-employee`` and
``DELETE /api/v1/employees/{id}?erase=true``.

The order of the steps is the point of this module:

1. check the request (one document policy at most; a new owner that exists and is someone else);
2. ``engine.erase_employee``: in ONE transaction, read the strings that will be erased, delete the
   employee's comments, delete or reassign their documents, unassign their tasks, delete the
   employee. The triggers queue every chunk that showed any of it;
3. drain the queue synchronously through the normal worker path (``services.indexing.drain`` or the
   running worker's ``run_once``), so the chunks of their tasks no longer show their name or their
   comments and the chunks of deleted documents are gone;
4. ``engine.purge_deleted``: make the deleted rows unrecoverable from the engine's storage
   (SQLite: FTS5 optimize, WAL checkpoint, VACUUM; Oracle: text index sync + FULL optimize);
5. ``engine.erasure_proof``: search every place for every erased string, and judge.

Conversations and messages (DESIGN.md, "Chat") are the employee's own rows, and step 2 is their one
place: each engine's ``erase_employee`` deletes the employee's conversations in the same transaction
(their messages go by ON DELETE CASCADE; ERASE_* statements in its statements.py) and adds the
conversation titles and the employee's own messages to the report's ``texts`` (assistant answers are
deleted but not searched for: they quote chunk text that legitimately stays). Steps 3-5 need no
change for them: the SQLite proof scans every table of the file (CONVERSATIONS and MESSAGES are
reported as "conversation tables"), and the Oracle proof's ``PROOF_TABLES`` lists both tables.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.domain import MAX_ID
from app.engines.base import ConflictError, Engine, OwnedDocumentsError
from app.entities import EMPLOYEES
from app.rag.erasure import (
    DocumentsPolicy,
    ErasureReport,
    ProofLine,
    PurgeStep,
    StringVerdict,
    proof_texts,
    verdicts,
)
from app.services.indexing import DrainResult
from app.services.records import InvalidRecordError, RecordNotFoundError

FLAGS_HINT = ("say what happens to them: --delete-documents or --reassign-documents-to OTHER_ID "
              "(API: ?erase=true&delete_documents=true or ?erase=true&reassign_documents_to=OTHER_ID)")


class ErasureRefusedError(ConflictError):
    """The employee owns documents and the request did not say what happens to them."""


@dataclass
class ErasureResult:
    report: ErasureReport
    drained: DrainResult
    purge: list[PurgeStep]
    proof: list[ProofLine]
    verdicts: list[StringVerdict]

    @property
    def failures(self) -> list[str]:
        """Why the erasure is not proven; empty when it is."""
        out = [f"{v.label} [{v.fingerprint}] still found in: {', '.join(v.where)}"
               for v in self.verdicts if v.verdict == "FOUND"]
        out += [f"{s.name} failed: {s.detail}" for s in self.purge if not s.ok]
        out += [f"re-indexing failed: {e}" for e in self.drained.errors]
        return out

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        report = dataclasses.asdict(self.report)
        report.pop("texts")  # the erased strings themselves are never echoed back
        return {
            "ok": self.ok,
            "erased": report,
            "reindexed": {"claimed": self.drained.claimed, "chunks_written": self.drained.chunks_written,
                          "sources_deleted": self.drained.sources_deleted, "failed": self.drained.failed},
            "purge": [dataclasses.asdict(s) for s in self.purge],
            "proof": [dataclasses.asdict(line) for line in self.proof],
            "verdicts": [dataclasses.asdict(v) for v in self.verdicts],
            "failures": self.failures,
        }


def erase_employee(
    engine: Engine,
    employee_id: int,
    drain_queue: Callable[[], DrainResult],
    delete_documents: bool = False,
    reassign_documents_to: int | None = None,
) -> ErasureResult:
    """Erase, re-index, purge, prove. Bad input raises before anything changes."""
    policy = _policy(engine, employee_id, delete_documents, reassign_documents_to)
    try:
        report = engine.erase_employee(employee_id, policy, reassign_documents_to)
    except OwnedDocumentsError as exc:
        raise ErasureRefusedError(f"employee {employee_id} owns {exc.count} document(s); {FLAGS_HINT}") from None
    if report is None:
        raise RecordNotFoundError(f"employee {employee_id} not found")
    drained = _drain_until_idle(drain_queue)
    purge = engine.purge_deleted()
    lines = engine.erasure_proof(proof_texts(report.texts))
    return ErasureResult(report, drained, purge, lines, verdicts(lines))


MAX_DRAINS = 20


def _drain_until_idle(drain_queue: Callable[[], DrainResult]) -> DrainResult:
    """Drain until a run claims nothing: a run stops at its first short batch, and a source the
    stale-write guard queued again (a concurrent write) would otherwise wait for the next tick, with
    its chunks still showing erased text while the proof runs. A failure stops it (the proof then
    finds what is left and says so)."""
    total = DrainResult()
    for _ in range(MAX_DRAINS):
        run = drain_queue()
        total.add(run)
        if run.claimed == 0 or run.failed:
            break
    return total


def _policy(engine: Engine, employee_id: int, delete_documents: bool,
            reassign_to: int | None) -> DocumentsPolicy | None:
    _check_id(employee_id, "employee id")
    if delete_documents and reassign_to is not None:
        raise ValueError("choose one: delete the employee's documents or reassign them, not both")
    if reassign_to is None:
        return "delete" if delete_documents else None
    _check_id(reassign_to, "the new owner's id")
    if reassign_to == employee_id:
        raise ValueError("documents cannot be reassigned to the employee being erased")
    if engine.get(EMPLOYEES, reassign_to) is None:
        raise InvalidRecordError(f"employee {reassign_to} (the documents' new owner) does not exist")
    return "reassign"


def _check_id(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_ID:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")


def proof_report(result: ErasureResult) -> list[str]:
    """The proof as text, one line per check: what was searched, where, found or not."""
    r = result.report
    out = [f"erased employee {r.employee_id}: {r.comments_deleted} comment(s) deleted, "
           f"{len(r.documents_deleted)} document(s) deleted, {len(r.documents_reassigned)} reassigned"
           + (f" to employee {r.reassigned_to}" if r.reassigned_to else "")
           + f", {len(r.tasks_unassigned)} task(s) unassigned, {len(r.tasks_reindexed)} task(s) re-indexed"]
    out += [f"purge: {s.name}: {'ok' if s.ok else 'FAILED'}" + (f" ({s.detail})" if s.detail else "")
            for s in result.purge]
    for line in result.proof:
        state = "found" if line.found else "not found"
        if line.found and not line.source and _legit(result, line):
            state = "found (legitimate: the string is still in the tracker's own data)"
        detail = f" - {line.detail}" if line.detail else ""
        out.append(f"proof: {line.label} [{line.fingerprint}] in {line.where}: {state}{detail}")
    out += [f"verdict: {v.label} [{v.fingerprint}]: {v.verdict}" for v in result.verdicts]
    out.append("PROVEN: no erased string remains outside the tracker's own data" if result.ok
               else "NOT PROVEN: " + "; ".join(result.failures))
    return out


def _legit(result: ErasureResult, line: ProofLine) -> bool:
    return any(v.fingerprint == line.fingerprint and v.verdict == "still present legitimately"
               for v in result.verdicts)
