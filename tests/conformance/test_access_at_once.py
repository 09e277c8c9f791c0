"""Access changes at once and no stale write wins, on both engines (DESIGN.md, Write path 5 and 6).

Every test here changes who may see something and then searches WITHOUT draining the queue: the
worker is stopped, so whatever the next search shows comes from the writer's own transaction.
"""

from __future__ import annotations

import pytest

from app.domain import Scope
from app.embedding.tokens import count_tokens
from app.entities import DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS
from app.rag.chunking import chunk_record
from tests.support import (
    document,
    drain_all,
    employee,
    peek_queue,
    project,
    sprint,
    task,
    visible,
)


@pytest.fixture
def people(engine):
    ids = {
        "mia": employee(engine, "Mia", "Boss", role="MANAGER"),
        "ana": employee(engine, "Ana", "Ruiz"),
        "bob": employee(engine, "Bob", "Stone"),
    }
    ids["apollo"] = project(engine, "Apollo", "Payroll portal")
    ids["hermes"] = project(engine, "Hermes", "Billing")
    ids["s1"] = sprint(engine, ids["apollo"], "Apollo sprint 1", "Payroll export")
    ids["task"] = task(engine, "Quarterly payroll export", "Export payroll every quarter",
                       assignee_id=ids["ana"], project_id=ids["apollo"], sprint_id=ids["s1"])
    ids["doc"] = document(engine, "Payroll secrets", "Quarterly payroll export credentials", owner_id=ids["ana"],
                          project_id=ids["apollo"])
    drain_all(engine)
    return ids


def test_reassigning_a_task_moves_it_at_once(engine, people):
    key = ("task", people["task"])
    assert key in visible(engine, people["ana"]) and key not in visible(engine, people["bob"])
    engine.update(TASKS, people["task"], {"ASSIGNEE_ID": people["bob"]})
    assert key in visible(engine, people["bob"]) and key not in visible(engine, people["ana"])
    engine.update(TASKS, people["task"], {"ASSIGNEE_ID": None})  # unassigned: managers only
    assert key not in visible(engine, people["bob"]) | visible(engine, people["ana"])
    assert key in visible(engine, people["mia"])
    assert peek_queue(engine), "the text still waits for the worker"


def test_re_owning_and_publishing_a_document_take_effect_at_once(engine, people):
    key = ("doc", people["doc"])
    engine.update(DOCUMENTS, people["doc"], {"OWNER_EMPLOYEE_ID": people["bob"]})
    assert key in visible(engine, people["bob"]) and key not in visible(engine, people["ana"])
    engine.update(DOCUMENTS, people["doc"], {"OWNER_EMPLOYEE_ID": None})  # organisation-wide
    assert key in visible(engine, people["ana"]) and key in visible(engine, people["bob"])


def test_a_role_change_applies_to_the_next_search(engine, people):
    key = ("task", people["task"])
    assert key not in visible(engine, people["bob"])
    engine.update(EMPLOYEES, people["bob"], {"ROLE": "MANAGER"})
    assert key in visible(engine, people["bob"])
    engine.update(EMPLOYEES, people["bob"], {"ROLE": "DEVELOPER"})
    assert key not in visible(engine, people["bob"])


def test_deleted_rows_vanish_from_search_at_once(engine, people):
    engine.delete(TASKS, people["task"])
    engine.delete(DOCUMENTS, people["doc"])
    engine.delete(SPRINTS, people["s1"])
    engine.delete(PROJECTS, people["hermes"])
    seen = visible(engine, people["mia"])
    assert ("task", people["task"]) not in seen and ("doc", people["doc"]) not in seen
    assert ("sprint", people["s1"]) not in seen and ("project", people["hermes"]) not in seen
    assert ("project", people["apollo"]) in seen


def test_re_typing_a_document_moves_it_between_doc_type_scopes_at_once(engine, people):
    key = ("doc", people["doc"])
    wiki, notes = Scope(doc_types=("WIKI",)), Scope(doc_types=("MEETING_NOTES",))
    assert key in visible(engine, people["ana"], scope=wiki) and key not in visible(engine, people["ana"], scope=notes)
    engine.update(DOCUMENTS, people["doc"], {"DOC_TYPE": " meeting_notes\n"})  # stored as the scope names it
    assert key in visible(engine, people["ana"], scope=notes) and key not in visible(engine, people["ana"], scope=wiki)
    for untyped in ("not a type!", None, "   "):  # no doc-type scope selects these; the unscoped search still does
        engine.update(DOCUMENTS, people["doc"], {"DOC_TYPE": untyped})
        assert key not in visible(engine, people["mia"], scope=notes) | visible(engine, people["mia"], scope=wiki)
        assert key in visible(engine, people["ana"])
    engine.update(DOCUMENTS, people["doc"], {"DOC_TYPE": "Wiki"})
    assert key in visible(engine, people["ana"], scope=wiki)
    assert peek_queue(engine), "the text still waits for the worker"
    drain_all(engine)  # what the worker writes agrees with what the writer's transaction did
    assert key in visible(engine, people["ana"], scope=wiki) and key not in visible(engine, people["ana"], scope=notes)


def test_moving_a_task_to_another_project_moves_its_scope_at_once(engine, people):
    key = ("task", people["task"])
    in_hermes = Scope(project=str(people["hermes"]))
    assert key not in visible(engine, people["mia"], scope=in_hermes)
    engine.update(TASKS, people["task"], {"PROJECT_ID": people["hermes"], "SPRINT_ID": None})
    assert key in visible(engine, people["mia"], scope=in_hermes)
    assert key not in visible(engine, people["mia"], scope=Scope(project=str(people["apollo"])))


def test_a_new_employee_never_inherits_a_deleted_ones_tasks(engine, people):
    """Ids are never reused: Bob is the newest employee, so a plain rowid would hand his id on."""
    key = ("task", people["task"])
    engine.update(TASKS, people["task"], {"ASSIGNEE_ID": people["bob"]})
    engine.delete(EMPLOYEES, people["bob"])
    newcomer = employee(engine, "Neo", "Comer")
    assert newcomer > people["bob"]
    assert key not in visible(engine, newcomer)
    assert key in visible(engine, people["mia"])  # unassigned now: managers still see it


def test_a_stale_worker_cannot_restore_an_old_owner(engine, people):
    """Worker A reads the task while Ana owns it and pauses; the task goes to Bob and worker B indexes
    that; then A writes what it read. A's write must not land, or Ana would see the task again (and
    Bob would not) with nothing left in the queue to repair it."""
    key = ("task", people["task"])
    engine.update(TASKS, people["task"], {"DESCRIPTION": "Export payroll every quarter, now by API"})
    with engine.indexing() as worker_a:
        claimed = worker_a.claim(10, 5)
        assert [(r.source_type, r.source_id) for r in claimed] == [key]
        record = worker_a.load_sources("task", [people["task"]])[people["task"]]
        assert record.assignee_id == people["ana"]
        # --- A pauses here; meanwhile the task is reassigned and worker B drains the change ---
        engine.update(TASKS, people["task"], {"ASSIGNEE_ID": people["bob"]})
        result_b = drain_all(engine)
        assert result_b.chunks_written >= 1
        # --- A resumes with what it read ---
        worker_a.write_chunks(chunk_record(record, count_tokens))
        worker_a.delete_dirty([r.dirty_id for r in claimed])
    assert key in visible(engine, people["bob"]) and key not in visible(engine, people["ana"])
    drain_all(engine)  # what A's guard queued again settles on the current state
    assert key in visible(engine, people["bob"]) and key not in visible(engine, people["ana"])
    assert peek_queue(engine) == []


def test_a_stale_worker_cannot_resurrect_a_deleted_task(engine, people):
    key = ("task", people["task"])
    engine.update(TASKS, people["task"], {"TITLE": "Quarterly payroll export v2"})
    with engine.indexing() as worker_a:
        claimed = worker_a.claim(10, 5)
        record = worker_a.load_sources("task", [people["task"]])[people["task"]]
        engine.delete(TASKS, people["task"])
        drain_all(engine)
        worker_a.write_chunks(chunk_record(record, count_tokens))
        worker_a.delete_dirty([r.dirty_id for r in claimed])
    assert key not in visible(engine, people["mia"])
    drain_all(engine)
    assert key not in visible(engine, people["mia"])
