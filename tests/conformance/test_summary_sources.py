"""The summary job's storage contract on both engines: its input (projects with their newest tasks) and
the summary write with its fingerprint."""

from __future__ import annotations

import datetime as dt

from tests.support import project, task


def test_summary_sources_bound_the_newest_tasks_and_carry_the_stored_fingerprint(engine):
    apollo = project(engine, "Apollo", description="Launch the rocket")
    zeus = project(engine, "Zeus")
    ids = [task(engine, f"Task {i}", project_id=apollo, status="DONE" if i % 2 else "TODO") for i in range(5)]
    task(engine, "No project")  # belongs to no project: in no source
    task(engine, "Zeus work", project_id=zeus)
    first, second = engine.summary_sources(3)
    assert (first.project_id, first.name, first.description) == (apollo, "Apollo", "Launch the rocket")
    assert first.tasks == (("Task 4", "TODO"), ("Task 3", "DONE"), ("Task 2", "TODO"))  # newest first, 3 of 5
    assert second.tasks == (("Zeus work", "TODO"),)
    assert (first.auto_summary, first.auto_summary_at, first.summary_inputs) == (None, None, None)
    assert len(ids) == 5 and engine.summary_sources(0)[0].tasks == ()

    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(seconds=5)
    assert engine.set_project_summary(apollo, "Apollo launches rockets.", "p:aa;t:bb") is True
    stored = engine.summary_sources(3)[0]
    assert (stored.auto_summary, stored.summary_inputs) == ("Apollo launches rockets.", "p:aa;t:bb")
    assert before <= stored.auto_summary_at <= before + dt.timedelta(minutes=1)  # naive UTC
    assert engine.set_project_summary(apollo, "By hand.") is True  # no fingerprint: unknown inputs
    assert engine.summary_sources(3)[0].summary_inputs is None
    assert engine.set_project_summary(zeus + 1000, "x", "p:1;t:2") is False
