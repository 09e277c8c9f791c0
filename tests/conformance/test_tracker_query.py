"""The typed tracker query and the vocabulary, identical on both engines: rows written through the engine's own
record writes (labels as lists, links through replace_task_links), every answer compared with one computed in
Python from what the test wrote. The Oracle leg runs when RAG_TEST_ORACLE_DSN is set."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from app.domain import DONE_STATUSES, Caller, Role
from app.engines.base import ConflictError
from app.records_model import TaskLink
from app.entities import COMMENTS, TASKS
from app.rag.understanding.query import Predicate, TrackerQuery
from app.rag.understanding.vocabulary import VALUE_FIELDS
from tests.support import employee, project, sprint

TODAY = dt.date(2026, 12, 6)
STATUSES = ["TODO", "IN_PROGRESS", "IN_REVIEW", "BLOCKED", "DONE", "CLOSED", None]
PRIORITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", None]
PRIORITY_NAMES = ["Blocker", "Major", "Minor", "Trivial", None]  # the tracker's own, beside ours (V16 / V22)
LABELS = ["backend", "ui", "Señal débil", "needs review"]
SAYS = ["Blocked until the API contract is agreed.", "waiting on design", "unblocked yesterday", "this blocks X"]


def _tracker(engine):
    """A small tracker written through the engine; returns (people, tasks as dicts of what was written)."""
    rng, own = random.Random(31), random.Random(32)  # own: the tracker's priorities and earlier sprints
    manager = employee(engine, "Maria", "Lopez", role="MANAGER")
    devs = [employee(engine, "Ben", "Okafor"), employee(engine, "Ana", "Ruiz"), employee(engine, "Chen", "Wei")]
    projects = [project(engine, "Payments"), project(engine, "Mobile")]
    sprints = [sprint(engine, projects[1], "Mobile Sprint 2")]
    earlier = sprint(engine, projects[1], "Mobile Sprint 1", status="CLOSED")
    tasks = []
    for i in range(40):
        t = {"TITLE": f"Task {i} {rng.choice(['export', 'crash', 'ledger'])}", "STATUS": rng.choice(STATUSES),
             "PRIORITY": rng.choice(PRIORITIES), "PROJECT_ID": rng.choice([*projects, None]),
             "SPRINT_ID": rng.choice([*sprints, None]), "ASSIGNEE_ID": rng.choice([*devs, None]),
             "REPORTER_ID": rng.choice([manager, *devs, None]), "STORY_POINTS": rng.choice([1, 2, 3, 5, None]),
             "EXPECTED_END_DATE": rng.choice([None, TODAY + dt.timedelta(days=rng.randrange(-10, 20))]),
             "DESCRIPTION": rng.choice([None, "plain text", *SAYS]),
             "RESOLUTION": rng.choice([None, "Fixed", "Won't Fix"]),
             "ISSUE_TYPE": rng.choice(["Bug", "Story"]), "LABELS": rng.sample(LABELS, rng.choice([0, 1, 2])),
             "CREATED_AT": dt.datetime(2026, 11, 1, 9) + dt.timedelta(days=rng.randrange(30), hours=rng.randrange(8)),
             "PRIORITY_NAME": own.choice(PRIORITY_NAMES), "PRIORITY_RANK": own.choice([1, 2, 3, None])}
        t["TASK_ID"] = engine.create(TASKS, t)["task_id"]
        # every sprint it was in: the earlier one for some (carried over), written as an import writes it
        t["SPRINTS"] = own.sample([earlier, *sprints], own.choice([0, 0, 1, 2]))
        if t["SPRINTS"]:
            with engine.batch() as tx:
                assert tx.replace_task_sprints(t["TASK_ID"], t["SPRINTS"]) is True
        tasks.append(t)
    for t in tasks:
        t["LINKS"] = []
        if rng.random() < 0.2:
            target = rng.choice(tasks)
            t["LINKS"] = [TaskLink("BLOCKED_BY", f"T-{target['TASK_ID']}", target["TASK_ID"])]
            engine.replace_task_links(t["TASK_ID"], t["LINKS"])
        t["COMMENTS"] = []
        if rng.random() < 0.2:
            body = rng.choice(SAYS)
            engine.create(COMMENTS, {"TASK_ID": t["TASK_ID"], "BODY": body})
            t["COMMENTS"] = [body]
    return Caller(manager, Role.MANAGER), [Caller(d, Role.DEVELOPER) for d in devs], {t["TASK_ID"]: t for t in tasks}


def _open(t) -> bool:
    return t["STATUS"] is None or t["STATUS"].upper() not in DONE_STATUSES


def _blocked(t, tasks) -> bool:
    said = [t["DESCRIPTION"] or "", *t["COMMENTS"]]
    return (t["STATUS"] == "BLOCKED" or any(_open(tasks[link.target_task_id]) for link in t["LINKS"])
            or any(s.startswith(("Blocked", "waiting")) for s in said))  # of SAYS, these two say so


HOLDS = {
    "open": (Predicate("open", (True,)), lambda t, ts: _open(t)),
    "not critical": (Predicate("priority", ("critical",), negate=True), lambda t, ts: t["PRIORITY"] != "CRITICAL"),
    "unassigned": (Predicate("assignee", (None,)), lambda t, ts: t["ASSIGNEE_ID"] is None),
    "label": (Predicate("label", ("señal débil", "UI")),
              lambda t, ts: bool({"Señal débil", "ui"} & set(t["LABELS"]))),
    "unresolved": (Predicate("resolution", (None,)), lambda t, ts: t["RESOLUTION"] is None),
    "created": (Predicate("created", window=(dt.date(2026, 11, 10), dt.date(2026, 11, 20))),
                lambda t, ts: dt.date(2026, 11, 10) <= t["CREATED_AT"].date() < dt.date(2026, 11, 20)),
    "overdue": (Predicate("overdue", (TODAY,)),
                lambda t, ts: t["EXPECTED_END_DATE"] is not None and t["EXPECTED_END_DATE"] < TODAY and _open(t)),
    "blocked": (Predicate("blocked", (True,)), _blocked),
    "words": (Predicate("text", ("EXPORT",)), lambda t, ts: "export" in t["TITLE"]),
    "priority name": (Predicate("priority_name", ("MAJOR", "trivial")),
                      lambda t, ts: t["PRIORITY_NAME"] in ("Major", "Trivial")),
    "not minor": (Predicate("priority_name", ("minor",), negate=True), lambda t, ts: t["PRIORITY_NAME"] != "Minor"),
}


@pytest.fixture
def tracker(engine):
    return engine, *_tracker(engine)


def _seen(caller, tasks):
    return [t for t in tasks.values() if caller.sees_everything or t["ASSIGNEE_ID"] == caller.employee_id]


@pytest.mark.parametrize("kind", sorted(HOLDS))
def test_each_predicate_kind_counts_lists_and_sums_what_was_written(tracker, kind):
    engine, manager, devs, tasks = tracker
    predicate, holds = HOLDS[kind]
    for caller in (manager, *devs):
        want = [t for t in _seen(caller, tasks) if holds(t, tasks)]
        got = engine.run_tracker_query(caller, TrackerQuery(where=(predicate,), limit=500))
        assert got.total == len(want) and [r["task_id"] for r in got.rows] == sorted(t["TASK_ID"] for t in want)
        assert got.points == pytest.approx(sum(t["STORY_POINTS"] or 0 for t in want))
    assert any(holds(t, tasks) for t in tasks.values())


def test_the_most_urgent_first_and_a_record_with_its_fields(tracker):
    engine, manager, _devs, tasks = tracker
    got = engine.run_tracker_query(manager, TrackerQuery(where=(Predicate("open", (True,)),), order="priority",
                                                         descending=True, limit=3))
    rank = {"CRITICAL": 0, "HIGH": 1, "MEDIUM": 2, "LOW": 3, None: 4}
    # the most urgent first; among equals the tracker's most important (unknown last), then the one due soonest
    # (undated last), then by id
    want = sorted((t for t in tasks.values() if _open(t)),
                  key=lambda t: (rank[t["PRIORITY"]], t["PRIORITY_RANK"] is None, t["PRIORITY_RANK"] or 0,
                                 t["EXPECTED_END_DATE"] is None, t["EXPECTED_END_DATE"] or "", t["TASK_ID"]))
    assert [r["task_id"] for r in got.rows] == [t["TASK_ID"] for t in want[:3]]
    query = TrackerQuery(where=(Predicate("label", ("backend",)),), returns="field", record_field="labels",
                         order="created")
    [record] = engine.run_tracker_query(manager, query).rows
    first = min((t for t in tasks.values() if "backend" in t["LABELS"]), key=lambda t: (t["CREATED_AT"], t["TASK_ID"]))
    assert record["task_id"] == first["TASK_ID"]
    assert set(record["labels"]) == set(first["LABELS"]) and record["reporter_id"] == first["REPORTER_ID"]


def test_a_group_by_assignee_and_by_label_cover_every_match(tracker):
    engine, manager, devs, tasks = tracker
    groups = engine.run_tracker_query(manager, TrackerQuery(returns="group", group_by="assignee")).groups
    want: dict = {}
    for t in tasks.values():
        want[t["ASSIGNEE_ID"]] = want.get(t["ASSIGNEE_ID"], 0) + 1
    assert {g.key: g.count for g in groups} == want and sum(g.count for g in groups) == len(tasks)
    labels = engine.run_tracker_query(manager, TrackerQuery(returns="group", group_by="label")).groups
    by_label: dict = {}
    for t in tasks.values():
        for value in t["LABELS"] or [None]:
            by_label[value] = by_label.get(value, 0) + 1
    assert {g.key: g.count for g in labels} == by_label
    for dev in devs:  # a developer's count and group cover exactly their assigned tasks
        mine = sum(1 for t in tasks.values() if t["ASSIGNEE_ID"] == dev.employee_id)
        assert engine.run_tracker_query(dev, TrackerQuery(returns="count")).total == mine
        assert [(g.key, g.count) for g in engine.run_tracker_query(
            dev, TrackerQuery(returns="group", group_by="assignee")).groups] == [(dev.employee_id, mine)]


def test_the_vocabulary_reads_values_under_the_access_rule(tracker):
    engine, manager, devs, tasks = tracker
    every = engine.tracker_values(manager)
    assert set(every.values) == set(VALUE_FIELDS)
    assert set(every.values["label"]) == {v for t in tasks.values() for v in t["LABELS"]}
    assert every.counts["priority"] == {p: sum(1 for t in tasks.values() if t["PRIORITY"] == p)
                                        for p in PRIORITIES if p and any(t["PRIORITY"] == p for t in tasks.values())}
    assert [p.name for p in every.projects] == ["Payments", "Mobile"] and len(every.people) == 4
    assert every.counts["priority_name"] == {n: sum(1 for t in tasks.values() if t["PRIORITY_NAME"] == n)
                                             for n in PRIORITY_NAMES if n and any(
                                                 t["PRIORITY_NAME"] == n for t in tasks.values())}
    for dev in devs:
        mine = [t for t in tasks.values() if t["ASSIGNEE_ID"] == dev.employee_id]
        seen = engine.tracker_values(dev)
        assert set(seen.values["label"]) == {v for t in mine for v in t["LABELS"]}  # a hidden value reads as missing
        assert seen.values["resolution"] == tuple(sorted({t["RESOLUTION"] for t in mine} - {None}))
        assert (seen.projects, seen.people, seen.sprints) == (every.projects, every.people, every.sprints)  # public


def test_a_sprint_holds_the_tasks_carried_over_from_it_and_a_reimport_replaces_the_set(tracker):
    engine, manager, devs, tasks = tracker
    earlier = next(s.sprint_id for s in engine.tracker_values(manager).sprints if s.name == "Mobile Sprint 1")
    for caller in (manager, *devs):
        want = [t for t in _seen(caller, tasks) if earlier in (t["SPRINT_ID"], *t["SPRINTS"])]
        got = engine.run_tracker_query(caller, TrackerQuery(where=(Predicate("sprint", (earlier,)),), limit=500))
        assert [r["task_id"] for r in got.rows] == sorted(t["TASK_ID"] for t in want)
    assert any(earlier in t["SPRINTS"] for t in tasks.values())
    groups = engine.run_tracker_query(manager, TrackerQuery(returns="group", group_by="sprint")).groups
    assert earlier not in {g.key for g in groups}  # a group-by stays by the latest sprint
    carried = next(t for t in tasks.values() if earlier in t["SPRINTS"])
    with engine.batch() as tx:
        assert tx.replace_task_sprints(carried["TASK_ID"], [s for s in carried["SPRINTS"] if s != earlier]) is True
        assert tx.replace_task_sprints(carried["TASK_ID"], [s for s in carried["SPRINTS"] if s != earlier]) is False
    left = engine.run_tracker_query(manager, TrackerQuery(where=(Predicate("sprint", (earlier,)),), limit=500))
    assert carried["TASK_ID"] not in {r["task_id"] for r in left.rows}
    # a deleted task or sprint takes its rows with it (ON DELETE CASCADE on both sides)
    other = next((t for t in tasks.values() if earlier in t["SPRINTS"] and t is not carried), None)
    if other is not None:
        engine.delete(TASKS, other["TASK_ID"])
    from app.entities import SPRINTS
    engine.delete(SPRINTS, earlier)
    assert engine.run_tracker_query(manager, TrackerQuery(where=(Predicate("sprint", (earlier,)),))).total == 0
    with pytest.raises(ConflictError), engine.batch() as tx:
        tx.replace_task_sprints(carried["TASK_ID"], [earlier])  # the sprint is gone


def test_the_tracker_priority_name_is_in_every_row(tracker):
    engine, manager, _devs, tasks = tracker
    rows = engine.run_tracker_query(manager, TrackerQuery(limit=500)).rows
    assert {r["task_id"]: r["priority_name"] for r in rows} == {i: t["PRIORITY_NAME"] for i, t in tasks.items()}
    stored = engine.get(TASKS, rows[0]["task_id"])
    assert (stored["priority_name"], stored["priority_rank"]) == (
        tasks[rows[0]["task_id"]]["PRIORITY_NAME"], tasks[rows[0]["task_id"]]["PRIORITY_RANK"])
