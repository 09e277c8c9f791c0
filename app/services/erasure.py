"""Erase an employee, and prove it: the job behind ``ragctl erase-employee`` and
``DELETE /api/v1/employees/{id}?erase=true`` (DESIGN.md, "Erasure is a job, not a request").

Each step is recorded in the job's row (ERASURE_JOBS) when it is done, and that row outlives the
employee, so an erasure that stopped (a crash, a failed proof) is resumed at its first step not done
(``resume_erasure``; every step after the first is idempotent):

1. delete: check the request (one document policy at most; a new owner that exists and is someone else),
   then ``engine.erase_employee`` in ONE transaction: the job row holding the person's strings (sealed:
   app.rag.erasure), their conversations, comments and row deleted, their documents deleted or
   reassigned, their tasks unassigned. The triggers queue every chunk that showed any of it;
2. reindex: drain the queue through the normal worker path (``services.indexing.drain`` or the running
   worker's ``run_once``), so chunks no longer show their name or comments;
3. redact: replace their strings where other people's data quotes them (messages, conversation titles,
   project auto-summaries, queue errors) with "[erased]";
4. purge: drop deleted entries from the lexical index; 5. compact: checkpoint and VACUUM (SQLite);
6. prove: search every table, index and (SQLite) raw byte for every string. A proof that fails sends the
   job back to just after "delete": resuming re-runs steps 2-6 once the cause is fixed;
7. forget: drop the held strings from the job row (only once the proof passed).
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.domain import is_id
from app.engines.base import ConflictError, Engine, EngineError, OwnedDocumentsError
from app.entities import EMPLOYEES
from app.rag.erasure import (
    KEY_BYTES,
    STEPS,
    DocumentsPolicy,
    ErasureJob,
    PersonString,
    bytes_left,
    unseal,
    verdicts,
)
from app.services.indexing import DrainResult
from app.services.records import InvalidRecordError, RecordNotFoundError

FLAGS_HINT = ("say what happens to them: --delete-documents or --reassign-documents-to OTHER_ID "
              "(API: ?erase=true&delete_documents=true or ?erase=true&reassign_documents_to=OTHER_ID)")
OnStep = Callable[[str, dict], None]  # (step done, what the job found so far): progress, or a test's crash


class ErasureRefusedError(ConflictError):
    """The employee owns documents and the request did not say what happens to them."""


class ErasureRecordedError(ConflictError):
    """An erasure of this employee was already started: resume it instead of starting another."""


@dataclass
class ErasureResult:
    job: ErasureJob
    ran: list[str] = field(default_factory=list)  # the steps this run did

    @property
    def outcome(self) -> dict:
        return self.job.outcome

    @property
    def failures(self) -> list[str]:
        return failures(self.job.outcome)

    @property
    def ok(self) -> bool:
        return self.job.verdict == "proven" and not self.failures

    @property
    def bytes_left(self) -> int | None:
        return self.outcome.get("prove", {}).get("bytes_left")

    def to_dict(self) -> dict[str, Any]:
        out = self.outcome
        return {
            "ok": self.ok, "employee_id": self.job.employee_id, "step": self.job.step, "finished": self.job.finished,
            "verdict": self.job.verdict, "steps_run": self.ran, "started_at": self.job.started_at,
            "erased": dataclasses.asdict(self.job.report), "searched": out.get("searched", []),
            "not_searched": out.get("not_searched", []), "reindexed": out.get("reindex"),
            "redacted": out.get("redact", []), "purge": out.get("purge", []) + out.get("compact", []),
            "proof": out.get("prove", {}).get("lines", []), "verdicts": out.get("prove", {}).get("verdicts", []),
            "bytes_left": self.bytes_left, "forget": out.get("forget", []), "failures": self.failures,
        }


def failures(outcome: dict) -> list[str]:
    """Why the erasure is not proven (or not clean); empty when it is."""
    out = [f"{v['label']} [{v['fingerprint']}] still found in: {', '.join(v['where'])}"
           for v in outcome.get("prove", {}).get("verdicts", []) if v["verdict"] == "FOUND"]
    out += [f"{s['name']} failed: {s['detail']}"
            for name in ("purge", "compact", "forget") for s in outcome.get(name, []) if not s["ok"]]
    out += [f"re-indexing failed: {e}" for e in (outcome.get("reindex") or {}).get("errors", [])]
    return out


def erase_employee(
    engine: Engine,
    employee_id: int,
    drain_queue: Callable[[], DrainResult],
    delete_documents: bool = False,
    reassign_documents_to: int | None = None,
    on_step: OnStep | None = None,
) -> ErasureResult:
    """Start an erasure and run every step. Bad input raises before anything changes."""
    _check_id(employee_id, "employee id")
    recorded = engine.erasure_job(employee_id)
    if recorded is not None:
        raise ErasureRecordedError(f"an erasure of employee {employee_id} was started at {recorded.started_at} "
                                   f"and {_state(recorded)}: resume it (`ragctl erase-employee {employee_id} "
                                   "--resume`, or the same DELETE again)")
    policy = _policy(engine, employee_id, delete_documents, reassign_documents_to)
    try:
        job = engine.erase_employee(employee_id, policy, reassign_documents_to, secrets.token_bytes(KEY_BYTES))
    except OwnedDocumentsError as exc:
        raise ErasureRefusedError(f"employee {employee_id} owns {exc.count} document(s); {FLAGS_HINT}") from None
    if job is None:
        raise RecordNotFoundError(f"employee {employee_id} not found")
    if on_step is not None:
        on_step("delete", job.outcome)
    return _run(engine, job, drain_queue, on_step, ran=["delete"])


def resume_erasure(engine: Engine, employee_id: int, drain_queue: Callable[[], DrainResult],
                   on_step: OnStep | None = None) -> ErasureResult:
    """Finish a stopped erasure, or re-prove one whose proof failed; a finished one is only reported."""
    _check_id(employee_id, "employee id")
    job = engine.erasure_job(employee_id)
    if job is None:
        exists = engine.get(EMPLOYEES, employee_id) is not None
        raise RecordNotFoundError(f"no erasure of employee {employee_id} was started"
                                  + ("; start one without --resume" if exists else ""))
    return _run(engine, job, drain_queue, on_step, ran=[])


def _state(job: ErasureJob) -> str:
    if job.finished:
        return f"finished ({job.verdict})"
    return f"stopped after step {job.step}" + (f" ({job.verdict})" if job.verdict else "")


def _run(engine: Engine, job: ErasureJob, drain_queue: Callable[[], DrainResult], on_step: OnStep | None,
         ran: list[str]) -> ErasureResult:
    employee_id, outcome, verdict = job.employee_id, dict(job.outcome), job.verdict
    strings: list[PersonString] = unseal(job.held) if job.held is not None else []
    left = STEPS[STEPS.index(job.step) + 1:]
    if job.held is None and left not in ((), ("forget",)):  # never: strings are dropped only after a proof
        raise EngineError(f"the erasure of employee {employee_id} no longer holds the strings it must search for")
    for step in left:
        recorded_step = step
        if step == "reindex":
            outcome["reindex"] = dataclasses.asdict(_drain_until_idle(drain_queue))
        elif step == "redact":
            outcome["redact"] = [dataclasses.asdict(r) for r in engine.redact_copies(strings)]
        elif step == "purge":
            outcome["purge"] = [dataclasses.asdict(s) for s in engine.purge_indexes()]
        elif step == "compact":
            outcome["compact"] = [dataclasses.asdict(s) for s in engine.compact()]
        elif step == "prove":
            lines = engine.erasure_proof(strings)
            judged = verdicts(lines)
            outcome["prove"] = {"lines": [dataclasses.asdict(line) for line in lines],
                                "verdicts": [dataclasses.asdict(v) for v in judged],
                                "bytes_left": bytes_left(lines, judged)}
            outcome.pop("forget", None)
            verdict = "not proven" if failures(outcome) else "proven"
            if verdict == "not proven":
                recorded_step = "delete"  # resuming re-runs every step after the deletes
        else:  # forget
            outcome["forget"] = [dataclasses.asdict(s) for s in engine.forget_held_strings(employee_id, job.held)]
        engine.record_erasure_step(employee_id, recorded_step, outcome, verdict)
        ran.append(step)
        if on_step is not None:
            on_step(step, outcome)
        if recorded_step != step:
            break
    return ErasureResult(engine.erasure_job(employee_id) or job, ran)


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
    if not is_id(value):
        raise ValueError(f"{what} must be a positive integer, got {value!r}")


def proof_report(result: ErasureResult) -> list[str]:
    """The job as text: what was erased, which strings were searched, each check, the verdict."""
    r, out = result.job.report, result.outcome
    lines = [f"erased employee {r.employee_id}: {r.comments_deleted} comment(s) deleted, "
             f"{len(r.documents_deleted)} document(s) deleted, {len(r.documents_reassigned)} reassigned"
             + (f" to employee {r.reassigned_to}" if r.reassigned_to else "")
             + f", {len(r.tasks_unassigned)} task(s) unassigned, {len(r.tasks_cleared)} reported/resolved task(s) "
             f"cleared, {len(r.tasks_reindexed)} task(s) re-indexed, "
             f"{r.conversations_deleted} conversation(s) deleted"]
    lines += [f"searched for: {s['label']} [{s['fingerprint']}], {s['chars']} characters"
              + (", as whole words" if s["whole_words"] else "")
              + (", in stored messages and conversation titles only" if s.get("where") == "conversations" else "")
              for s in out.get("searched", [])]
    lines += [f"not searched: {s['label']}: {s['reason']}" for s in out.get("not_searched", [])]
    lines += [f"redacted: {x['where']}: {x['copies']} copie(s) in {x['rows']} row(s)" for x in out.get("redact", [])]
    lines += [f"{kind}: {s['name']}: {'ok' if s['ok'] else 'FAILED'}" + (f" ({s['detail']})" if s["detail"] else "")
              for kind in ("purge", "compact", "forget") for s in out.get(kind, [])]
    prove = out.get("prove", {})
    legit = {v["fingerprint"] for v in prove.get("verdicts", []) if v["verdict"] == "still present legitimately"}
    for line in prove.get("lines", []):
        state = "found" if line["found"] else "not found"
        if line["found"] and not line["source"] and line["fingerprint"] in legit:
            state = "found (legitimate: the string is still in the tracker's own data)"
        detail = f" - {line['detail']}" if line["detail"] else ""
        lines.append(f"proof: {line['label']} [{line['fingerprint']}] in {line['where']}: {state}{detail}")
    lines += [f"verdict: {v['label']} [{v['fingerprint']}]: {v['verdict']}" for v in prove.get("verdicts", [])]
    if result.bytes_left is not None:
        lines.append(f"bytes of the person's strings left in the database files: {result.bytes_left}")
    lines.append(f"job: {_state(result.job)}" + (f"; this run: {', '.join(result.ran)}" if result.ran else
                                                  "; nothing left to run"))
    lines.append("PROVEN: no erased string remains outside the tracker's own data" if result.ok
                 else "NOT PROVEN: " + ("; ".join(result.failures) or f"the job {_state(result.job)}"))
    return lines
