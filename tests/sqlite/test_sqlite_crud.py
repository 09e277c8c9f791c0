"""CRUD through EntitySpec on the real tables: lowercase dict rows, bound values, ConflictError."""

from __future__ import annotations

import datetime as dt

import pytest

from app.domain import Role
from app.engines.base import ConflictError
from app.entities import COMMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS


def test_create_get_list_update_delete(sqlite_engine):
    e = sqlite_engine
    p = e.create(PROJECTS, {"NAME": "Zeus'; DROP TABLE TASKS; --", "START_DATE": dt.date(2025, 1, 31)})
    assert set(p) == {c.lower() for c in PROJECTS.all_columns}
    assert p["name"] == "Zeus'; DROP TABLE TASKS; --" and p["start_date"] == dt.date(2025, 1, 31)
    assert e.conn.execute("SELECT START_DATE FROM PROJECTS").fetchone()[0] == "2025-01-31"  # ISO text
    assert e.get(PROJECTS, p["project_id"]) == p
    s = e.create(SPRINTS, {"NAME": "S", "PROJECT_ID": p["project_id"]})
    assert e.update(SPRINTS, s["sprint_id"], {"GOAL": "g"})["goal"] == "g"
    assert e.update(SPRINTS, s["sprint_id"], {}) == e.get(SPRINTS, s["sprint_id"])
    assert [r["sprint_id"] for r in e.list_records(SPRINTS, [], None, 10).items] == [s["sprint_id"]]
    assert e.list_records(SPRINTS, [], s["sprint_id"], 10).items == []
    assert e.delete(PROJECTS, p["project_id"])
    assert e.get(SPRINTS, s["sprint_id"])["project_id"] is None  # ON DELETE SET NULL
    assert e.get(PROJECTS, p["project_id"]) is None and not e.delete(PROJECTS, p["project_id"])


def test_unknown_columns_are_refused_before_any_sql(sqlite_engine):
    with pytest.raises(ValueError, match="unknown column"):
        sqlite_engine.create(TASKS, {"TITLE": "x", "TITLE = 1; --": 1})


def test_constraint_violations_are_conflicts(sqlite_engine):
    e = sqlite_engine
    e.create(EMPLOYEES, {"FIRST_NAME": "A", "LAST_NAME": "B", "ROLE": "ADMIN", "TELEGRAM_ID": "42"})
    with pytest.raises(ConflictError):  # unique TELEGRAM_ID
        e.create(EMPLOYEES, {"FIRST_NAME": "C", "LAST_NAME": "D", "TELEGRAM_ID": "42"})
    with pytest.raises(ConflictError):  # unknown foreign key
        e.create(TASKS, {"TITLE": "t", "ASSIGNEE_ID": 999})
    with pytest.raises(ConflictError):  # ROLE check
        e.create(EMPLOYEES, {"FIRST_NAME": "E", "LAST_NAME": "F", "ROLE": "CEO"})
    t = e.create(TASKS, {"TITLE": "t"})["task_id"]
    with pytest.raises(ConflictError):
        e.update(TASKS, t, {"SPRINT_ID": 12345})
    assert e.get(TASKS, t)["sprint_id"] is None


def test_comments_die_with_their_task(sqlite_engine):
    e = sqlite_engine
    t = e.create(TASKS, {"TITLE": "t"})["task_id"]
    c = e.create(COMMENTS, {"TASK_ID": t, "BODY": "hola"})
    assert c["created_at"]  # defaulted
    e.delete(TASKS, t)
    assert e.get(COMMENTS, c["comment_id"]) is None


def test_callers_come_from_employees(sqlite_engine):
    e = sqlite_engine
    m = e.create(EMPLOYEES, {"FIRST_NAME": "M", "LAST_NAME": "G", "ROLE": "MANAGER", "TELEGRAM_ID": "777"})
    assert e.caller(m["employee_id"]).role is Role.MANAGER
    assert e.caller_by_telegram("777").employee_id == m["employee_id"]
    assert e.caller(424242) is None and e.caller_by_telegram("nope") is None
    e.update(EMPLOYEES, m["employee_id"], {"ROLE": "DEVELOPER"})
    assert not e.caller(m["employee_id"]).sees_everything


def test_wipe_empties_every_table(sqlite_engine):
    e = sqlite_engine
    e.create(TASKS, {"TITLE": "t"})
    e.wipe()
    for table in ("TASKS", "RAG_DIRTY", "RAG_CHUNK", "RAG_VEC"):
        assert e.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0
    e.ping()
