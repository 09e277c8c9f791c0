"""Record lists on both engines: every filter of app/services/records.py, keyset pages that neither skip nor
repeat a row while rows are inserted, and a total that counts every match."""

from __future__ import annotations

import datetime as dt

import pytest

from app import paging
from app.entities import DOCUMENTS, EMPLOYEES, TASKS
from app.services.records import conditions, list_records
from tests.support import document, employee, project, sprint, task


@pytest.fixture
def board(engine):
    ana, ben = employee(engine, "Ana", "Ruiz", telegram_id="tg-123"), employee(engine, "Ben", "Ode", role="MANAGER")
    apollo = project(engine, "Apollo")
    s1 = sprint(engine, apollo, "Sprint 1")
    day = dt.date(2026, 5, 1)
    made = {
        "login": task(engine, "Login", assignee_id=ana, project_id=apollo, sprint_id=s1, status="todo",
                      priority="HIGH", expected_end_date=day),
        "logout": task(engine, "Logout", assignee_id=ana, project_id=apollo, status="DONE", priority="low",
                       expected_end_date=day + dt.timedelta(days=1)),
        "invoice": task(engine, "Invoice", assignee_id=ben, status="TODO", expected_end_date=day - dt.timedelta(days=1)),
        "orphan": task(engine, "Orphan", status="BLOCKED"),
    }
    return {"ana": ana, "ben": ben, "apollo": apollo, "s1": s1, "day": day, **made}


def task_ids(engine, **filters):
    return [row["task_id"] for row in engine.list_records(TASKS, conditions(TASKS, filters), None, 100).items]


def test_every_task_filter(engine, board):
    b = board
    assert task_ids(engine, assignee_id=b["ana"]) == [b["login"], b["logout"]]
    assert task_ids(engine, assignee_id="none") == [b["orphan"]]
    assert task_ids(engine, status="TODO") == [b["login"], b["invoice"]]  # labels match ignoring case
    assert task_ids(engine, priority="high") == [b["login"]]
    assert task_ids(engine, sprint_id=b["s1"]) == [b["login"]]
    assert task_ids(engine, sprint_id="none", project_id=b["apollo"]) == [b["logout"]]
    assert task_ids(engine, project_id="none") == [b["invoice"], b["orphan"]]
    # Strictly before / after the day; a task without a due date matches neither.
    assert task_ids(engine, due_before=b["day"]) == [b["invoice"]]
    assert task_ids(engine, due_after=b["day"]) == [b["logout"]]
    assert task_ids(engine, due_after=b["day"] - dt.timedelta(days=1), due_before=b["day"] + dt.timedelta(days=1)) \
        == [b["login"]]
    assert task_ids(engine, status="todo", assignee_id=b["ben"]) == [b["invoice"]]
    assert task_ids(engine, status="' OR 1=1 --") == []  # a value is bound, never spliced


def test_other_lists_filter_by_what_users_expect(engine, board):
    by_telegram = engine.list_records(EMPLOYEES, conditions(EMPLOYEES, {"telegram_id": "tg-123"}), None, 10)
    assert [r["employee_id"] for r in by_telegram.items] == [board["ana"]] and by_telegram.total == 1
    managers = engine.list_records(EMPLOYEES, conditions(EMPLOYEES, {"role": "MANAGER"}), None, 10)
    assert [r["employee_id"] for r in managers.items] == [board["ben"]]
    mine = document(engine, "Runbook", "steps", owner_id=board["ana"], doc_type="WIKI")
    public = document(engine, "Minutes", "notes", project_id=board["apollo"], doc_type="MEETING_NOTES")
    owned = engine.list_records(DOCUMENTS, conditions(DOCUMENTS, {"owner_employee_id": "none", "doc_type": "meeting_notes"}),
                                None, 10)
    assert [r["document_id"] for r in owned.items] == [public]
    assert [r["document_id"] for r in engine.list_records(
        DOCUMENTS, conditions(DOCUMENTS, {"owner_employee_id": board["ana"]}), None, 10).items] == [mine]


def test_keyset_pages_neither_skip_nor_repeat_while_rows_are_inserted(engine, board):
    first = list_records(engine, TASKS, {}, limit=3)
    assert len(first.items) == 3 and first.total == 4 and first.next_cursor
    added = task(engine, "Added while paging")  # an offset would shift; a key does not
    second = list_records(engine, TASKS, {}, limit=3, cursor=first.next_cursor)
    seen = [r["task_id"] for r in first.items + second.items]
    assert seen == sorted(seen) and len(set(seen)) == 5 and seen[-1] == added
    assert second.total == 5 and second.next_cursor is None


def test_a_cursor_only_fits_its_own_list_and_filters(engine, board):
    page = list_records(engine, TASKS, {"assignee_id": board["ana"]}, limit=1)
    assert page.next_cursor and page.total == 2
    following = list_records(engine, TASKS, {"assignee_id": board["ana"]}, limit=1, cursor=page.next_cursor)
    assert [r["task_id"] for r in following.items] == [board["logout"]]
    for filters, cursor in (({"assignee_id": board["ben"]}, page.next_cursor), ({}, page.next_cursor),
                            ({"assignee_id": board["ana"]}, page.next_cursor[:-2]),
                            ({"assignee_id": board["ana"]}, "A" * 40), ({"assignee_id": board["ana"]}, "%%")):
        with pytest.raises(paging.CursorError):
            list_records(engine, TASKS, filters, limit=1, cursor=cursor)
    with pytest.raises(paging.CursorError):
        list_records(engine, DOCUMENTS, {}, limit=1, cursor=list_records(engine, EMPLOYEES, {}, limit=1).next_cursor)
