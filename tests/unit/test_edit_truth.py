"""The edits batch's truths (app/evals/edit_truth.py) on a hand-made snapshot: each chain turn is the previous
question with its edit applied, under the access rule; and the judge's "one" kind (the record a question picks)."""

from __future__ import annotations

import datetime as dt

import pytest

from app.evals import edit_cases
from app.evals.conversation_score import judge
from app.evals.conversation_truth import REFUSAL, Hidden, Snapshot, Truth
from app.evals.edit_truth import truth, values_of, window

TODAY = dt.date(2026, 12, 2)  # a Wednesday


def task(task_id, assignee, status="TODO", priority="HIGH", due=TODAY, project=1, sprint=1, **more):
    return {"task_id": task_id, "title": f"Task number {task_id}", "status": status, "priority": priority,
            "assignee_id": assignee, "project_id": project, "sprint_id": sprint, "story_points": 3.0,
            "expected_end_date": due, **more}


@pytest.fixture
def snap() -> Snapshot:
    people = {1: ("Maria", "Lopez", "MANAGER"), 2: ("Ana", "Garcia", "DEVELOPER"), 3: ("Ben", "Carter", "DEVELOPER")}
    late = TODAY - dt.timedelta(days=2)
    tasks = [
        task(1, 2, "IN_REVIEW", "CRITICAL", TODAY + dt.timedelta(days=9), labels="ui, needs design",
             issue_type="Bug", reporter_id=3, created_at="2026-11-24T09:00:00"),
        task(2, 2, "IN_REVIEW", "LOW", TODAY + dt.timedelta(days=3), labels="ui", issue_type="Story",
             reporter_id=1, created_at="2026-11-30T09:00:00"),
        task(3, 3, "IN_REVIEW", "CRITICAL", late, project=2, sprint=2, issue_type="Bug", reporter_id=1,
             created_at="2026-10-02T09:00:00", resolution=None),
        task(4, 3, "TODO", "HIGH", late, project=2, sprint=2, issue_type="Bug", reporter_id=1,
             created_at="2026-11-25T09:00:00"),
        task(5, None, "TODO", "MEDIUM", late, project=2, sprint=3, labels="ui"),
        task(6, 3, "DONE", "CRITICAL", late, project=2, sprint=3, issue_type="Bug", resolution="Won't Fix",
             resolved_at="2026-11-26T10:00:00"),
    ]
    return Snapshot(TODAY, {i: {"employee_id": i, "first_name": f, "last_name": last, "role": r}
                            for i, (f, last, r) in people.items()},
                    {1: {"project_id": 1, "name": "Mobile App Relaunch"}, 2: {"project_id": 2, "name": "Payments Platform"}},
                    {i: {"sprint_id": i, "name": f"Sprint {i}", "project_id": 1 if i == 1 else 2,
                         "start_date": f"2026-1{i}-01"} for i in (1, 2, 3)},
                    {t["task_id"]: t for t in tasks}, (), {})


def test_an_edit_replaces_the_person_and_then_counts_those_by_priority(snap):
    slots = {"person": 2, "person2": 3, "status": "IN_REVIEW", "priority": "CRITICAL"}
    assert truth(snap, 1, "e_person_status/1", slots).tasks == {"[TASK #1]", "[TASK #2]"}
    assert truth(snap, 1, "e_person_status/2", slots).tasks == {"[TASK #3]"}
    three = truth(snap, 1, "e_person_status/3", slots)
    assert three.kind == "count" and three.figure == 1
    # Ana sees her own tasks only: Ben's turn and its count are refusals for her
    assert truth(snap, 2, "e_person_status/1", slots).tasks == {"[TASK #1]", "[TASK #2]"}
    assert truth(snap, 2, "e_person_status/2", slots) == REFUSAL
    assert truth(snap, 2, "e_person_status/3", slots) == REFUSAL


def test_narrowing_then_picking_the_one_due_first(snap):
    slots = {"person": 2, "status": "IN_REVIEW"}
    assert truth(snap, 1, "e_person_work/2", slots).tasks == {"[TASK #1]", "[TASK #2]"}
    first = truth(snap, 1, "e_person_work/3", slots)
    assert first.kind == "one" and first.tasks == {"[TASK #2]"} and "2026-12-05" in first.values[0]


def test_the_previous_sprint_and_who_holds_most_of_it(snap):
    slots = {"sprint": 3, "sprint_before": 2}
    assert truth(snap, 1, "e_sprint/1", slots).tasks == {"[TASK #5]"}  # task 6 is done
    assert truth(snap, 1, "e_sprint/2", slots).tasks == {"[TASK #3]", "[TASK #4]"}
    who = truth(snap, 1, "e_sprint/3", slots)
    assert who.kind == "compare" and who.figure == 2 and "ben carter" in who.values[0]


def test_the_most_urgent_is_the_highest_priority_then_the_earliest_due(snap):
    assert truth(snap, 3, "e_urgent/1", {}).tasks == {"[TASK #3]"}  # critical beats high; 6 is done
    assert "ben carter" in truth(snap, 2, "e_urgent_reporter/2", {}).values[0]  # task 1, reported by Ben
    assert truth(snap, 1, "t_my_most_urgent", {}) == REFUSAL  # the manager holds no task


def test_counts_by_project_then_the_unassigned_ones(snap):
    slots = {"status": "TODO", "project": 1, "project2": 2}
    assert truth(snap, 1, "e_status_count/1", slots) == REFUSAL  # nothing to count
    assert truth(snap, 1, "e_status_count/2", slots).figure == 2
    assert truth(snap, 1, "e_status_count/3", slots).tasks == {"[TASK #5]"}


def test_field_questions_read_whole_values_types_resolutions_and_windows(snap):
    assert values_of(snap.tasks[1], "label") == ("ui", "needs design")  # whole, never split on spaces
    assert truth(snap, 1, "t_count_label", {"label": "ui"}).figure == 3
    assert truth(snap, 1, "t_count_label", {"label": "design"}) == REFUSAL
    assert truth(snap, 1, "t_unresolved_type", {"type": "bug", "project": 2}).figure == 2
    assert truth(snap, 1, "t_resolution", {"project": 2, "resolution": "won't fix"}).figure == 1
    assert window(TODAY, "last_week") == (dt.date(2026, 11, 23), dt.date(2026, 11, 30))
    assert truth(snap, 1, "t_created_window", {"project": 2, "window": "last_week"}).figure == 1
    assert truth(snap, 1, "t_resolved_window", {"window": "last_month"}).tasks == {"[TASK #6]"}  # November
    top = truth(snap, 1, "t_top_reporter", {"project": 2})
    assert top.figure == 2 and "maria lopez" in top.values[0]
    assert truth(snap, 2, "t_reporter_of", {"task": 3}) == REFUSAL  # Ben's task, hidden from Ana
    assert "2026-11-24" in truth(snap, 2, "t_created_of", {"task": 1}).values[0]
    assert truth(snap, 3, "e_type_switch/3", {"type": "Story", "type2": "Bug"}).tasks == {"[TASK #4]"}


def test_one_is_right_only_when_it_singles_out_the_picked_record():
    pick = Truth("one", tasks=frozenset({"[TASK #3]"}), values=(("2026-12-05",),))
    hidden = Hidden(frozenset(), ())
    assert judge(pick, "Your most urgent: [TASK #3], due 2026-12-05.", hidden).outcome == "right"
    assert judge(pick, "[TASK #3] due 2026-12-05\n[TASK #4] due 2026-12-09", hidden).outcome == "wrong"
    assert judge(pick, "[TASK #4] due 2026-12-05", hidden).outcome == "wrong"
    assert judge(pick, "[TASK #3] (no date)", hidden).outcome == "wrong"


def test_slot_values_are_said_as_people_write_them(snap):
    said = edit_cases.said(snap, {"person2": 3, "status": "IN_REVIEW", "priority": "CRITICAL", "task": 4}, "es")
    assert said == {"person2": "Ben", "status": "In Review", "priority": "crítica", "key": "#4"}


def test_a_version_the_question_names_is_no_figure_of_the_answer(snap):
    two = Truth("count", tasks=frozenset({"[TASK #1]", "[TASK #2]"}), figure=2, named=("2.0.0",))
    hidden = Hidden(frozenset(), ())
    assert judge(two, "Open tasks with fix version 2.0.0 — 5: [TASK #1] …", hidden).outcome == "wrong"
    assert judge(two, "Open tasks with fix version 2.0.0 — 2: [TASK #1], [TASK #2]", hidden).outcome == "right"
    zero = Truth("refusal", named=("Wave 0",))
    assert judge(zero, "Tasks with fix version Wave 0: [TASK #1]", hidden).outcome == "wrong"
    assert truth(snap, 1, "t_count_label", {"label": "ui"}).named == ("ui",)
