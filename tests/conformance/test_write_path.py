"""The write path, identical on both engines: triggers enqueue, the worker indexes, deletes clean up."""

from __future__ import annotations

import threading

import pytest

from app.domain import Scope
from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS
from app.services.search import search
from tests.support import (
    comment,
    document,
    drain_all,
    employee,
    peek_queue,
    project,
    sprint,
    task,
)


def queued(engine):
    return {(r.source_type, r.source_id, r.action) for r in peek_queue(engine)}


def test_writes_enqueue_their_source(engine):
    dev = employee(engine, "Ana", "Ruiz")
    p = project(engine, "Apollo")
    s = sprint(engine, p, "Sprint 1")
    t = task(engine, "Fix login", assignee_id=dev, project_id=p, sprint_id=s)
    d = document(engine, "Runbook", "Restart the worker.")
    assert {("project", p, "UPSERT"), ("sprint", s, "UPSERT"), ("task", t, "UPSERT"), ("doc", d, "UPSERT")} <= queued(engine)
    drain_all(engine)
    assert queued(engine) == set()

    comment(engine, t, "Seen on Safari too")
    assert queued(engine) == {("task", t, "UPSERT")}
    drain_all(engine)

    engine.update(SPRINTS, s, {"NAME": "Sprint One"})
    assert {("sprint", s, "UPSERT"), ("task", t, "UPSERT")} <= queued(engine)
    drain_all(engine)

    engine.update(PROJECTS, p, {"NAME": "Apollo 2"})
    assert {("project", p, "UPSERT"), ("sprint", s, "UPSERT"), ("task", t, "UPSERT")} <= queued(engine)
    drain_all(engine)

    engine.update(EMPLOYEES, dev, {"FIRST_NAME": "Anna"})
    assert ("task", t, "UPSERT") in queued(engine)
    drain_all(engine)

    assert engine.delete(TASKS, t)
    assert ("task", t, "DELETE") in queued(engine)


def test_drained_text_is_searchable_and_deletes_remove_chunks(engine):
    manager = engine.caller(employee(engine, "Mia", "Boss", role="MANAGER"))
    p = project(engine, "Apollo")
    t = task(engine, "Kubernetes ingress certificate expired", project_id=p)
    comment(engine, t, "Renew it with cert-manager")
    result = drain_all(engine)
    assert result.failed == 0 and result.chunks_written >= 2

    hits = search(engine, "ingress certificate", manager, 5, mode="vector").result.hits
    assert hits[0].source_type == "task" and hits[0].source_id == t
    assert "Renew it with cert-manager" in hits[0].content
    assert 0.0 <= hits[0].distance < 1.0

    engine.delete(TASKS, t)
    drain_all(engine)
    hits = search(engine, "ingress certificate", manager, 5, mode="vector").result.hits
    assert all(h.source_type != "task" for h in hits)


def test_unchanged_text_costs_no_embedding_and_shrunk_entities_drop_stale_chunks(engine):
    t = task(engine, "Write the runbook", description="\n\n".join(["paragraph " * 150] * 4))
    first = drain_all(engine)
    assert first.chunks_written >= 2
    engine.update(TASKS, t, {"STATUS": "TODO"})  # same text: the hash matches
    second = drain_all(engine)
    assert second.claimed >= 1 and second.chunks_written == 0 and second.chunks_unchanged == first.chunks_written

    engine.update(TASKS, t, {"DESCRIPTION": "short now"})
    third = drain_all(engine)
    assert third.chunks_written == 1
    manager = engine.caller(employee(engine, "Max", "Lead", role="ADMIN"))
    drain_all(engine)
    hits = search(engine, "runbook", manager, 10, Scope(source_types=("task",)), mode="vector").result.hits
    assert [(h.source_id, h.chunk_ix) for h in hits] == [(t, 0)]


def test_hundred_edits_coalesce(engine):
    t = task(engine, "Edit me 0")
    drain_all(engine)
    for i in range(1, 101):
        engine.update(TASKS, t, {"TITLE": f"Edit me {i}"})
    result = drain_all(engine)
    assert result.claimed == 100
    assert result.chunks_written <= 2  # latest text once per batch at most, then hash-skipped
    assert result.failed == 0


def test_two_workers_claim_concurrently_and_both_progress(engine):
    for i in range(40):
        task(engine, f"Task number {i}")
    claims: dict[str, list[int]] = {}
    barrier = threading.Barrier(2, timeout=30)
    errors: list[BaseException] = []

    def worker(name):
        try:
            with engine.indexing() as tx:
                rows = tx.claim(8, 5)
                claims[name] = [r.dirty_id for r in rows]
                barrier.wait()  # both hold their claims at the same time
                tx.delete_dirty(claims[name])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in ("a", "b")]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors, errors
    assert claims["a"] and claims["b"], claims
    if engine.name == "oracle":  # SKIP LOCKED: concurrent claims never overlap
        assert not set(claims["a"]) & set(claims["b"])
    remaining = {r.dirty_id for r in peek_queue(engine)}
    assert not remaining & (set(claims["a"]) | set(claims["b"]))
    assert len(remaining) == 40 - len(set(claims["a"]) | set(claims["b"]))


def test_failures_are_recorded_and_rows_past_max_attempts_stop_blocking(engine):
    first = task(engine, "First")
    second = task(engine, "Second")
    rows = {r.source_id: r.dirty_id for r in peek_queue(engine)}
    engine.record_failure({rows[first]: 0.0}, "boom")
    for _ in range(2):
        engine.record_failure({rows[first]: 0.0}, "boom again")
    claimable = [r.source_id for r in peek_queue(engine, max_attempts=3)]
    assert first not in claimable and second in claimable
    status = engine.status(max_attempts=3)
    assert status.pending == 2 and status.failing == 1 and status.stuck == 1
    assert any(f.dirty_id == rows[first] and f.attempts == 3 and "boom again" in (f.last_error or "")
               for f in status.failing_rows)
    assert engine.retry_stuck() == 1
    assert first in [r.source_id for r in peek_queue(engine, max_attempts=3)]


def test_a_failed_row_waits_its_backoff_before_it_is_claimed_again(engine):
    """Exponential backoff: a failing row never holds up the queue, and comes back when its wait is over."""
    first = task(engine, "First")
    second = task(engine, "Second")
    rows = {r.source_id: r.dirty_id for r in peek_queue(engine)}
    engine.record_failure({rows[first]: 3600.0}, "boom")
    assert [r.source_id for r in peek_queue(engine)] == [second]
    engine.record_failure({rows[first]: -1.0}, "boom again")  # a wait that is already over
    assert [r.source_id for r in peek_queue(engine)] == [first, second]
    engine.record_failure({rows[first]: 3600.0}, "boom a third time")
    assert engine.retry_stuck() == 1  # `ragctl retry` releases a waiting row at once
    assert [r.source_id for r in peek_queue(engine)] == [first, second]


def test_backfill_enqueues_rows_without_chunks(engine):
    p = project(engine, "Hermes")
    t = task(engine, "Index me", project_id=p)
    drain_all(engine)
    assert engine.enqueue_backfill(["task", "project"]) == 0  # everything has chunks
    assert engine.enqueue_backfill(["task"], force=True, dry_run=True) == 1
    assert peek_queue(engine) == []
    assert engine.enqueue_backfill(["task", "project"], project_id=p, force=True) == 2
    assert queued(engine) == {("task", t, "UPSERT"), ("project", p, "UPSERT")}


def test_crud_roundtrip_and_conflicts(engine):
    from app.engines.base import ConflictError

    p = project(engine, "Zeus", description="Payments")
    row = engine.get(PROJECTS, p)
    assert row["name"] == "Zeus" and row["description"] == "Payments"
    assert engine.update(PROJECTS, p, {"STATUS": "DONE"})["status"] == "DONE"
    assert engine.update(PROJECTS, 999_999, {"STATUS": "DONE"}) is None
    assert [r["project_id"] for r in engine.list_records(PROJECTS, [], None, 10).items] == [p]
    with pytest.raises(ConflictError):
        engine.create(COMMENTS, {"TASK_ID": 999_999, "BODY": "orphan"})
    assert engine.delete(PROJECTS, p) and engine.get(PROJECTS, p) is None
    assert not engine.delete(PROJECTS, p)


def test_deleting_an_owner_never_publishes_their_private_documents(engine):
    """An owner-less document is organisation-wide, so the owner's delete is refused instead."""
    from app.engines.base import ConflictError

    leo = employee(engine, "Leo", "Diaz")
    doc = document(engine, "Salary review notes", "Private", owner_id=leo)
    with pytest.raises(ConflictError):
        engine.delete(EMPLOYEES, leo)
    assert engine.get(EMPLOYEES, leo) is not None
    assert engine.get(DOCUMENTS, doc)["owner_employee_id"] == leo


def test_status_counts_pending_entities_beside_queue_rows(engine):
    """A task written twice has two queue rows and is one entity waiting (issue 33): ``pending`` counts entities
    (Oracle: QUEUE_ENTITIES), ``queue_rows`` the rows."""
    t = task(engine, "Fix login")
    engine.update(TASKS, t, {"TITLE": "Fix the login"})
    rows = [r for r in peek_queue(engine) if r.source_type == "task" and r.source_id == t]
    assert len(rows) >= 2
    status = engine.status(max_attempts=5)
    assert status.queue_rows == len(peek_queue(engine))
    assert status.pending == len({(r.source_type, r.source_id) for r in peek_queue(engine)}) < status.queue_rows
