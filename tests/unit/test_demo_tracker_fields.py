"""The demo's tracker fields (issue 31): every task has them, they agree with its status, and they come from a
stream of their own (the fields the conversation benchmark's truths rest on do not move)."""

from __future__ import annotations

import datetime as dt

from app import demo_data

TODAY = dt.date(2026, 12, 6)


def test_every_demo_task_has_the_tracker_fields_and_they_agree_with_its_status():
    data = demo_data.build(today=TODAY)
    midnight = dt.datetime.combine(TODAY, dt.time())  # every time is before the day seeded
    for task in data.tasks:
        assert 0 <= task["reporter"] < len(demo_data.EMPLOYEES)
        assert task["created_at"] <= task["updated_at"] < midnight
        assert task["issue_type"] in ("Bug", "Feature", "Improvement") and task["labels"] and task["components"]
        assert task["fix_versions"][0] in demo_data.RELEASES[task["project"]]
        done = task["status"] == "DONE"
        assert (task["resolution"] is not None) == done == (task["resolved_at"] is not None)
        if done:
            assert task["created_at"] < task["resolved_at"] == task["updated_at"]
        bug = task["issue_type"] == "Bug"
        assert bool(task["affects_versions"]) == bug == (task["environment"] is not None)
    resolutions = {t["resolution"] for t in data.tasks}
    assert {"Fixed", "Won't Fix", "Duplicate"} <= resolutions
    assert len({t["components"][0] for t in data.tasks}) > 10
    assert set(demo_data.COMPONENTS) == {a for areas in demo_data.AREAS.values() for a in areas}


def test_the_tracker_fields_do_not_move_the_fields_the_benchmark_rests_on():
    """The other fields are drawn from the seed's stream exactly as before: building with the tracker fields
    removed gives the same ids, titles, assignees, statuses, due dates and comments for any seed and day."""
    extra = {"reporter", "created_at", "updated_at", "resolved_at", "resolution", "issue_type", "labels",
             "components", "fix_versions", "affects_versions", "environment"}
    first = demo_data.build(today=TODAY)
    original = demo_data._tracker_fields
    try:
        demo_data._tracker_fields = lambda *args: {}
        bare = demo_data.build(today=TODAY)
    finally:
        demo_data._tracker_fields = original
    assert [{k: v for k, v in t.items() if k not in extra} for t in first.tasks] == bare.tasks
    assert first.comments == bare.comments and first.employees == bare.employees
