"""The typed tracker query on Oracle: the exact text and binds of every shape of the builder (each predicate kind,
each return kind, a developer and a manager), and what the engine makes of the rows it gets back. The recording
fake checks that the binds are exactly the placeholders and that none is a reserved word; the conformance suite's
Oracle leg runs the same queries on a database."""

from __future__ import annotations

import datetime as dt

import pytest

from app.domain import Caller, Role, TaskQuery
from app.engines.oracle import tracker_statements as sql
from app.rag.understanding.blocked import posix_pattern
from app.rag.understanding.query import Predicate, TrackerQuery

from .fakes import Reply, check_binds, golden

DEV = Caller(7, Role.DEVELOPER)
MANAGER = Caller(1, Role.MANAGER)
DONE = ("DONE", "CLOSED", "CANCELLED", "RESOLVED")
D = dt.date

# One golden file per predicate kind: the aggregate of a developer's query holding only that predicate.
PREDICATE_CASES = {
    "tracker_where_id": Predicate("project", (3, 4)),
    "tracker_where_id_or_none": Predicate("assignee", (5, None)),
    "tracker_where_text": Predicate("priority", ("critical",), negate=True),
    "tracker_where_text_none": Predicate("resolution", (None,)),
    "tracker_where_multi": Predicate("label", ("backend", "Señal débil")),
    "tracker_where_window": Predicate("created", window=(D(2026, 11, 1), D(2026, 12, 1))),
    "tracker_where_window_open_end": Predicate("due", window=(None, D(2026, 12, 13))),
    "tracker_where_open": Predicate("open", (True,)),
    "tracker_where_finished": Predicate("open", (False,)),
    "tracker_where_overdue": Predicate("overdue", (D(2026, 12, 6),)),
    "tracker_where_blocked": Predicate("blocked", (True,)),
    "tracker_where_text_words": Predicate("text", ("export", "año")),
    "tracker_where_sprint": Predicate("sprint", (3, 4, None)),  # the latest, or one it was in (TASK_SPRINTS, V22)
    "tracker_where_priority_name": Predicate("priority_name", ("Major",)),  # the tracker's own (V22)
}


@pytest.mark.parametrize("name", sorted(PREDICATE_CASES))
def test_each_predicate_kind_has_its_golden_text_and_binds_only_its_values(name):
    statement = sql.tracker_aggregate(DEV, TrackerQuery(where=(PREDICATE_CASES[name],), returns="count"))
    assert statement.sql == golden(name)
    check_binds(statement.sql, statement.binds)
    assert statement.binds["caller_id"] == 7


def test_predicate_binds_carry_the_values_and_never_the_text():
    binds = {n: sql.tracker_aggregate(DEV, TrackerQuery(where=(p,))).binds for n, p in PREDICATE_CASES.items()}
    assert binds["tracker_where_id"] == {"caller_id": 7, "p00": 3, "p01": 4}
    assert binds["tracker_where_id_or_none"] == {"caller_id": 7, "p00": 5}
    assert binds["tracker_where_sprint"] == {"caller_id": 7, "p00": 3, "p01": 4, "p0_s0": 3, "p0_s1": 4}
    assert binds["tracker_where_priority_name"] == {"caller_id": 7, "p00": "Major"}
    assert binds["tracker_where_multi"] == {"caller_id": 7, "p0_field": "LABEL", "p00": "backend",
                                            "p01": "Señal débil"}
    assert binds["tracker_where_window"] == {"caller_id": 7, "p0_from": D(2026, 11, 1), "p0_until": D(2026, 12, 1)}
    assert binds["tracker_where_overdue"] == {"caller_id": 7, "p0_0_day": D(2026, 12, 6),
                                              **{f"p0_0_done{i}": s for i, s in enumerate(DONE)}}
    assert binds["tracker_where_blocked"] == {
        "caller_id": 7, "p0_status": "BLOCKED", "p0_link0": "BLOCKED_BY", "p0_link1": "DEPENDS_ON",
        **{f"p0_done{i}": s for i, s in enumerate(DONE)}, "p0_words": posix_pattern(), "p0_said": posix_pattern()}
    assert binds["tracker_where_text_words"] == {"caller_id": 7, "p0_0_title": "export", "p0_0_body": "export",
                                                 "p0_1_title": "año", "p0_1_body": "año"}
    evil = "x') OR 1=1 --"
    statement = sql.tracker_aggregate(DEV, TrackerQuery(where=(Predicate("status", (evil,)),
                                                               Predicate("text", (evil,)))))
    assert evil not in statement.sql and evil in statement.binds.values()


def test_a_manager_query_has_no_access_condition_and_predicates_bind_by_their_place():
    plain = sql.tracker_aggregate(MANAGER, TrackerQuery(returns="count"))
    assert plain.sql == golden("tracker_aggregate_manager_plain") and plain.binds == {}
    two = sql.tracker_aggregate(MANAGER, TrackerQuery(where=(Predicate("status", ("TODO",)),
                                                             Predicate("status", ("DONE",), negate=True))))
    assert two.binds == {"p00": "TODO", "p10": "DONE"}
    check_binds(two.sql, two.binds)


ROW_CASES = {
    "tracker_rows_developer_priority": (DEV, TrackerQuery(where=(Predicate("open", (True,)),), order="priority",
                                                          descending=True, limit=5)),
    "tracker_rows_manager_due": (MANAGER, TrackerQuery(order="due", limit=20)),
    "tracker_rows_manager_id_descending": (MANAGER, TrackerQuery(order="id", descending=True, limit=20)),
}


@pytest.mark.parametrize("name", sorted(ROW_CASES))
def test_each_list_order_has_its_golden_text(name):
    caller, query = ROW_CASES[name]
    statement = sql.tracker_rows(caller, query)
    assert statement.sql == golden(name)
    check_binds(statement.sql, statement.binds)
    assert statement.binds["max_rows"] == query.limit


def test_the_record_statement_selects_every_record_field_of_the_first_row():
    query = TrackerQuery(where=(Predicate("project", (2,)),), returns="field", record_field="created", order="created")
    statement = sql.tracker_rows(DEV, query, record=True)
    assert statement.sql == golden("tracker_record_developer")
    assert statement.binds == {"caller_id": 7, "p00": 2, "max_rows": 1}


GROUP_CASES = {
    "tracker_groups_manager_assignee": TrackerQuery(returns="group", group_by="assignee"),
    "tracker_groups_developer_label": TrackerQuery(where=(Predicate("open", (True,)),), returns="group",
                                                   group_by="label"),
    "tracker_groups_manager_status_points_ascending": TrackerQuery(returns="group", group_by="status",
                                                                   measure="points", ascending=True),
}


@pytest.mark.parametrize("name", sorted(GROUP_CASES))
def test_each_group_shape_has_its_golden_text(name):
    caller = DEV if "developer" in name else MANAGER
    statement = sql.tracker_groups(caller, GROUP_CASES[name])
    assert statement.sql == golden(name)
    check_binds(statement.sql, statement.binds)
    assert statement.binds["max_groups"] == sql.MAX_GROUPS
    assert statement.binds.get("group_field") == ("LABEL" if "label" in name else None)


def test_the_vocabulary_statements():
    for caller, name in ((DEV, "tracker_field_values_developer"), (MANAGER, "tracker_field_values_manager")):
        statement = sql.tracker_field_values(caller)
        assert statement.sql == golden(name)
        check_binds(statement.sql, statement.binds)
    assert set(sql.tracker_field_values(DEV).binds.values()) == {7}
    assert (sql.TRACKER_SPRINTS, sql.TRACKER_PROJECTS, sql.TRACKER_PEOPLE) == (
        golden("tracker_sprints"), golden("tracker_projects"), golden("tracker_people"))


def test_the_blocked_pattern_fits_regexp_like_and_finds_the_words_whole():
    import re

    pattern = posix_pattern()
    assert len(pattern.encode()) <= 512
    # The POSIX form read by Python (same meaning for these classes): whole words only, any case.
    py = re.compile(pattern.replace("[:alnum:]", "0-9A-Za-zÀ-ÿ"), re.IGNORECASE)
    assert py.search("Blocked until the API is agreed") and py.search("esperando al banco")
    assert not py.search("unblocked yesterday") and not py.search("stuck-up parser") and not py.search("this blocks X")


# --- the engine over the recording fake --------------------------------------------------------------


def test_a_list_runs_the_aggregate_then_the_rows_and_converts_them(fake_engine, conn):
    conn.replies.append(("SELECT COUNT(*)", Reply(rows=[(12, 30)])))
    row = (11, "Fix", "TODO", "HIGH", 3, "S3", 2, "Apollo", 7, "Ana Ruiz", dt.datetime(2025, 2, 1), 3, "PAY-1210",
           "Bug", "In QE Test", 1, "Maria Lopez", dt.datetime(2025, 1, 2, 9), None, None, None)
    conn.replies.append(("FETCH FIRST :max_rows", Reply(rows=[row])))
    query = ROW_CASES["tracker_rows_developer_priority"][1]
    result = fake_engine.run_tracker_query(DEV, query)
    assert [c.sql for c in conn.calls] == [sql.tracker_aggregate(DEV, query).sql,
                                           golden("tracker_rows_developer_priority")]
    assert (result.total, result.points) == (12, 30.0)
    [got] = result.rows
    assert got["expected_end_date"] == dt.date(2025, 2, 1) and got["story_points"] == 3.0
    assert (got["reporter_id"], got["reporter_name"], got["created_at"]) == (
        1, "Maria Lopez", dt.datetime(2025, 1, 2, 9))


def test_count_runs_one_statement_and_group_and_field_their_own(fake_engine, conn):
    conn.replies.append(("SELECT COUNT(*)", Reply(rows=[(4, None)])))
    result = fake_engine.run_tracker_query(MANAGER, TrackerQuery(returns="count"))
    assert (result.total, result.points, len(conn.calls)) == (4, 0.0, 1)
    conn.replies.append(("SELECT COUNT(*)", Reply(rows=[(5, 8)])))
    conn.replies.append(("GROUP BY t.ASSIGNEE_ID", Reply(rows=[(7, "Ana Ruiz", 3, 5), (None, None, 2, 3)])))
    groups = fake_engine.run_tracker_query(MANAGER, GROUP_CASES["tracker_groups_manager_assignee"]).groups
    assert conn.calls[2].sql == golden("tracker_groups_manager_assignee")
    assert [(g.key, g.label, g.count, g.points) for g in groups] == [
        (7, "Ana Ruiz", 3, 5.0), (None, "unassigned", 2, 3.0)]
    conn.replies.append(("SELECT COUNT(*)", Reply(rows=[(1, 0)])))
    record_row = (11, "Fix", "TODO", "HIGH", None, None, 2, "Apollo", 7, "Ana Ruiz", None, None, None, None, None,
                  None, None, None, None, None, None, "Major", "iOS 17", None, None, None)
    conn.replies.append(("t.ENVIRONMENT", Reply(rows=[record_row])))
    conn.replies.append(("FROM TASK_VALUES WHERE TASK_ID = :task_id", Reply(rows=[("LABEL", "backend"), ("LABEL", "ui"),
                                                                        ("FIX_VERSION", "2.0.0")])))
    query = TrackerQuery(where=(Predicate("project", (2,)),), returns="field", record_field="created", order="created")
    [record] = fake_engine.run_tracker_query(DEV, query).rows
    assert conn.calls[5].binds == {"task_id": 11}
    assert (record["environment"], record["labels"], record["fix_versions"], record["components"]) == (
        "iOS 17", ("backend", "ui"), ("2.0.0",), ())
    assert record["priority_name"] == "Major"


def test_find_tasks_is_the_typed_list_by_id(fake_engine, conn):
    query = TaskQuery(status="todo", priority="HIGH", sprint_id=3, project_id=2, assignee_id=7,
                      overdue_on=D(2025, 3, 1), unassigned=True, limit=5, open_only=True,
                      due_after=D(2025, 1, 27), due_before=D(2025, 2, 3))
    conn.replies.append(("FROM TASKS t", Reply(rows=[(11, "Fix", "TODO", "HIGH", 3, "S3", 2, "Apollo", 7, "Ana Ruiz",
                                                      dt.datetime(2025, 2, 1), 3, "PAY-1210", *[None] * 8)])))
    [task] = fake_engine.find_tasks(DEV, query)
    call = conn.calls[0]
    assert call.sql == golden("find_tasks_developer_every_filter")
    assert call.binds == {"caller_id": 7, "p00": "todo", "p10": "HIGH", "p20": 3, "p30": 2, "p40": 7,
                          "p2_s0": 3, "p5_0_day": D(2025, 3, 1), **{f"p5_0_done{i}": s for i, s in enumerate(DONE)},
                          **{f"p7_done{i}": s for i, s in enumerate(DONE)},
                          "p8_from": D(2025, 1, 27), "p8_until": D(2025, 2, 3), "max_rows": 5}
    assert task == {"task_id": 11, "title": "Fix", "status": "TODO", "priority": "HIGH", "sprint_id": 3,
                    "sprint_name": "S3", "project_id": 2, "project_name": "Apollo", "assignee_id": 7,
                    "assignee_name": "Ana Ruiz", "expected_end_date": D(2025, 2, 1), "story_points": 3.0,
                    "external_key": "PAY-1210"}
    fake_engine.find_tasks(MANAGER, TaskQuery())
    assert conn.calls[1].sql == golden("find_tasks_manager_plain") and conn.calls[1].binds == {"max_rows": 20}
    assert fake_engine.find_tasks(MANAGER, TaskQuery(status=" done")) == [] and len(conn.calls) == 2
