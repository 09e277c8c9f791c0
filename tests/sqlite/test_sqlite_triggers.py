"""Every enqueue rule of V3, checked on the real RAG_DIRTY table."""

from __future__ import annotations

import apsw
import pytest

from app.engines.base import ConflictError
from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS

from .helpers import clear_queue, dirty_rows


@pytest.fixture
def world(sqlite_engine):
    e = sqlite_engine
    ids = {
        "dev": e.create(EMPLOYEES, {"FIRST_NAME": "Ana", "LAST_NAME": "Ruiz", "ROLE": "DEVELOPER"})["employee_id"],
        "project": e.create(PROJECTS, {"NAME": "Apolo"})["project_id"],
    }
    ids["sprint"] = e.create(SPRINTS, {"NAME": "S1", "PROJECT_ID": ids["project"]})["sprint_id"]
    ids["task"] = e.create(TASKS, {"TITLE": "Login", "SPRINT_ID": ids["sprint"], "PROJECT_ID": ids["project"],
                                   "ASSIGNEE_ID": ids["dev"]})["task_id"]
    ids["other_task"] = e.create(TASKS, {"TITLE": "Other"})["task_id"]
    ids["doc"] = e.create(DOCUMENTS, {"TITLE": "Runbook", "BODY": "x", "PROJECT_ID": ids["project"],
                                      "OWNER_EMPLOYEE_ID": ids["dev"]})["document_id"]
    ids["comment"] = e.create(COMMENTS, {"TASK_ID": ids["task"], "BODY": "first"})["comment_id"]
    clear_queue(e)
    return ids


@pytest.mark.parametrize("entity, source_type, key", [
    (TASKS, "task", "task"), (SPRINTS, "sprint", "sprint"), (PROJECTS, "project", "project"),
    (DOCUMENTS, "doc", "doc"),
])
def test_own_row_is_enqueued_on_insert_update_delete(sqlite_engine, world, entity, source_type, key):
    e = sqlite_engine
    e.update(entity, world[key], {entity.columns[0]: e.get(entity, world[key])[entity.columns[0].lower()]})
    assert (source_type, world[key], "UPSERT") in dirty_rows(e)
    clear_queue(e)
    e.delete(entity, world[key])
    assert (source_type, world[key], "DELETE") in dirty_rows(e)


def test_insert_enqueues_upsert(sqlite_engine):
    t = sqlite_engine.create(TASKS, {"TITLE": "New"})["task_id"]
    assert dirty_rows(sqlite_engine) == {("task", t, "UPSERT")}


def test_comment_marks_its_task_and_both_tasks_when_moved(sqlite_engine, world):
    e = sqlite_engine
    e.create(COMMENTS, {"TASK_ID": world["task"], "BODY": "again"})
    assert dirty_rows(e) == {("task", world["task"], "UPSERT")}
    clear_queue(e)
    e.update(COMMENTS, world["comment"], {"TASK_ID": world["other_task"]})
    assert dirty_rows(e) == {("task", world["task"], "UPSERT"), ("task", world["other_task"], "UPSERT")}
    clear_queue(e)
    e.delete(COMMENTS, world["comment"])
    assert dirty_rows(e) == {("task", world["other_task"], "UPSERT")}


def test_deleting_a_task_cascades_its_comments_without_resurrecting_it(sqlite_engine, world):
    e = sqlite_engine
    e.delete(TASKS, world["task"])
    assert dirty_rows(e) == {("task", world["task"], "DELETE")}
    assert e.conn.execute("SELECT COUNT(*) FROM COMMENTS").fetchone()[0] == 0


def test_sprint_name_change_marks_its_tasks(sqlite_engine, world):
    e = sqlite_engine
    e.update(SPRINTS, world["sprint"], {"NAME": "Sprint uno"})
    assert dirty_rows(e) == {("sprint", world["sprint"], "UPSERT"), ("task", world["task"], "UPSERT")}
    clear_queue(e)
    e.update(SPRINTS, world["sprint"], {"GOAL": "ship"})  # not shown in task text
    assert dirty_rows(e) == {("sprint", world["sprint"], "UPSERT")}


def test_project_name_change_marks_tasks_and_sprints(sqlite_engine, world):
    e = sqlite_engine
    e.update(PROJECTS, world["project"], {"NAME": "Apolo 2"})
    assert dirty_rows(e) == {("project", world["project"], "UPSERT"), ("sprint", world["sprint"], "UPSERT"),
                             ("task", world["task"], "UPSERT")}


def test_employee_name_change_marks_assigned_tasks_only(sqlite_engine, world):
    e = sqlite_engine
    e.update(EMPLOYEES, world["dev"], {"LAST_NAME": "Ruíz"})
    assert dirty_rows(e) == {("task", world["task"], "UPSERT")}
    clear_queue(e)
    e.update(EMPLOYEES, world["dev"], {"EMAIL": "ana@example.com"})
    assert dirty_rows(e) == set()


def test_deleting_sprint_or_project_marks_the_rows_that_referenced_it(sqlite_engine, world):
    e = sqlite_engine
    e.delete(SPRINTS, world["sprint"])
    assert dirty_rows(e) == {("sprint", world["sprint"], "DELETE"), ("task", world["task"], "UPSERT")}
    assert e.get(TASKS, world["task"])["sprint_id"] is None
    clear_queue(e)
    e.delete(PROJECTS, world["project"])
    assert dirty_rows(e) == {("project", world["project"], "DELETE"), ("task", world["task"], "UPSERT"),
                             ("doc", world["doc"], "UPSERT")}


def test_deleting_an_employee_marks_their_tasks_once_their_documents_are_reassigned(sqlite_engine, world):
    e = sqlite_engine
    with pytest.raises(ConflictError):  # owner-less means organisation-wide: never publish by deleting
        e.delete(EMPLOYEES, world["dev"])
    assert dirty_rows(e) == set()
    e.update(DOCUMENTS, world["doc"], {"OWNER_EMPLOYEE_ID": None})
    clear_queue(e)
    e.delete(EMPLOYEES, world["dev"])
    assert dirty_rows(e) == {("task", world["task"], "UPSERT")}


def test_rows_are_marked_even_when_a_client_runs_without_foreign_keys(sqlite_engine, world):
    e = sqlite_engine
    conn = e.conn
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        conn.execute("DELETE FROM SPRINTS WHERE SPRINT_ID = ?", (world["sprint"],))
    finally:
        conn.execute("PRAGMA foreign_keys = ON")
    assert ("task", world["task"], "UPSERT") in dirty_rows(e)


def test_a_rolled_back_write_leaves_no_dirty_row(sqlite_engine, world):
    e = sqlite_engine
    conn = e.conn

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        with conn:  # apsw: a transaction (savepoint) rolled back by the exception
            conn.execute("INSERT INTO TASKS (TITLE) VALUES ('doomed')")
            conn.execute("UPDATE PROJECTS SET NAME = 'renamed' WHERE PROJECT_ID = ?", (world["project"],))
            conn.execute("DELETE FROM COMMENTS")
            assert dirty_rows(e)  # enqueued inside the transaction...
            raise Boom
    assert dirty_rows(e) == set()  # ...and gone with it
    assert e.get(PROJECTS, world["project"])["name"] == "Apolo"


def test_a_write_failing_a_constraint_leaves_no_dirty_row(sqlite_engine):
    conn = sqlite_engine.conn
    with pytest.raises(apsw.ConstraintError):
        conn.execute("INSERT INTO TASKS (TITLE, SPRINT_ID) VALUES ('bad', 424242)")
    assert dirty_rows(sqlite_engine) == set()


def test_the_doc_type_trigger_stores_what_doc_type_key_computes(sqlite_engine):
    """The trigger that moves a document's type onto its chunks at once (V10) is SQL; the worker's key
    (app.rag.scope.doc_type_key) is Python. They must agree on every value, or a search between the write
    and the worker would put the document in another doc-type scope than the worker then does."""
    import random

    from app.entities import DOCUMENTS
    from app.rag.scope import doc_type_key
    from tests.support import document, drain_all

    doc = document(sqlite_engine, "Typed", "A typed document", doc_type="WIKI")
    drain_all(sqlite_engine)
    alphabet = "aZ09_- \t\n\r\x0b\x0c]^[*?%éßİ\u3000\u00a0x"
    rng = random.Random(20)
    values = ["wiki", " Meeting notes\n", "a-b_c", "x" * 40, "x" * 41, " " + "x" * 40 + " ", "", "   ", "ß", "\tok\t",
              "\u3000plan", "İ", "a]b", "[x]", "-", "_", *("".join(rng.choices(alphabet, k=rng.randint(0, 44)))
                                                          for _ in range(300))]
    for value in values:
        sqlite_engine.update(DOCUMENTS, doc, {"DOC_TYPE": value})
        (stored,) = sqlite_engine.conn.execute(
            "SELECT DOC_TYPE FROM RAG_CHUNK WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = ?", (doc,)).fetchone()
        assert stored == doc_type_key(value), repr(value)
