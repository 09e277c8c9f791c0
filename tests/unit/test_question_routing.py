"""Pure conversation logic: ids in text, tracker questions (English and Spanish), where a question is
routed, the answer to a tracker question, clean citations, and demo dates relative to the day seeded."""

from __future__ import annotations

import datetime as dt

import pytest

from app import demo_data
from app.domain import Named, Person, Vocabulary
from app.rag import citations, refs, routing, task_answers, task_questions

TODAY = dt.date(2026, 12, 2)  # a Wednesday
NAMES = Vocabulary(
    people=(Person(1, "Maria", "Lopez"), Person(2, "Ana", "Garcia"), Person(4, "Chen", "Wei"),
            Person(9, "Ana", "Ruiz")),
    projects=(Named(1, "Mobile App Relaunch"), Named(2, "Payments Platform"), Named(4, "Portal de Clientes LATAM")),
    sprints=(Named(3, "Payments Sprint 1", 2), Named(4, "Payments Sprint 2", 2), Named(7, "Portal Iteración 1", 4)))


@pytest.mark.parametrize("text, found", [
    ("what is the status of task 107?", [("task", 107)]),
    ("status of TASK #107 and [DOC #6]", [("task", 107), ("doc", 6)]),
    ("#107?", [("task", 107)]),
    ("¿cuál es el estado de la tarea 107?", [("task", 107)]),
    ("documento 6 y doc 6", [("doc", 6)]),
    ("sprint 3 and project no. 2", [("sprint", 3), ("project", 2)]),
    ("my 1:1 with Maria, p95 of 2.3 s", []),
    ("task 0 and task 99999999999999999999", []),  # not an id: zero, or past 64 bits
    ("issue#12 and &#35;", [("task", 12)]),
])
def test_ids_in_text(text, found):
    assert refs.mentions(text) == found


def test_a_sprint_name_ending_in_a_number_is_not_an_id():
    text = "how many story points are left in payments sprint 2?"
    assert refs.mentions(text) == [("sprint", 2)]
    assert refs.mentions(text, masked=task_questions.name_spans(text, NAMES)) == []


@pytest.mark.parametrize("question, expected", [
    ("which of my tasks are still in progress?", dict(mine=True, status="IN_PROGRESS")),
    ("¿cuáles de mis tareas siguen en progreso?", dict(mine=True, status="IN_PROGRESS", lang="es")),
    ("which tasks are overdue in sprint 3?", dict(overdue=True, sprint=Named(3, "Payments Sprint 1", 2))),
    ("which critical tasks are unassigned?", dict(priority="CRITICAL", unassigned=True)),
    ("how many story points are left in Payments Sprint 2?",
     dict(aggregate="points", open_only=True, sprint=Named(4, "Payments Sprint 2", 2))),
    ("what is Chen working on?", dict(people=(Person(4, "Chen", "Wei"),), open_only=True)),
    ("¿en qué está trabajando Chen?", dict(people=(Person(4, "Chen", "Wei"),), open_only=True, lang="es")),
    ("¿cuántas tareas críticas hay sin asignar?", dict(aggregate="count", priority="CRITICAL", unassigned=True,
                                                       lang="es")),
    ("tareas vencidas del proyecto Portal de Clientes LATAM",
     dict(overdue=True, project=Named(4, "Portal de Clientes LATAM"), lang="es")),
    ("what tasks are due this week?", dict(due=(dt.date(2026, 11, 30), dt.date(2026, 12, 7)), due_label="this week")),
    ("¿qué tareas vencen mañana?", dict(due=(dt.date(2026, 12, 3), dt.date(2026, 12, 4)), due_label="mañana",
                                        lang="es")),
    ("show me the high priority tasks in the payments project", dict(priority="HIGH",
                                                                     project=Named(2, "Payments Platform"))),
    ("which tasks does Ana have?", dict(people=(Person(2, "Ana", "Garcia"), Person(9, "Ana", "Ruiz")))),
    ("which tasks does Ana Ruiz have?", dict(people=(Person(9, "Ana", "Ruiz"),))),
])
def test_tracker_questions_parse(question, expected):
    parsed = task_questions.parse(question, NAMES, TODAY)
    assert parsed is not None, question
    defaults = task_questions.TaskQuestion(lang=expected.get("lang", "en"))
    for field, value in vars(defaults).items():
        if field != "words":
            assert getattr(parsed, field) == expected.get(field, value), (question, field)


@pytest.mark.parametrize("question", [
    "fix the login bug on the refund flow", "who is assigned to the payroll export failure?",
    "what is the status of task 107?", "which tasks are about the refund flow?", "tasks",
    "what did we agree in my 1:1 with Maria?", "how many approvals does payments code need in code review?",
    "¿cuántos días de vacaciones me quedan este año?", "what is the goal of Payments Sprint 2?",
])
def test_anything_else_is_left_to_retrieval(question):
    assert task_questions.parse(question, NAMES, TODAY) is None


@pytest.mark.parametrize("question, focus, kind", [
    ("what is the status of task 107?", ("task", 55), "lookup"),
    ("which tasks are overdue in sprint 3?", ("task", 55), "tasks"),
    ("is it overdue?", ("task", 55), "follow_up"),
    ("is it overdue?", None, "tasks"),
    ("when is it due?", ("task", 55), "follow_up"),
    ("¿y quién lo tiene?", ("task", 55), "follow_up"),
    ("list my tasks", ("task", 55), "tasks"),
    ("what about the checkout page?", ("task", 55), "retrieve"),
    ("when is it due?", None, "retrieve"),
    ("what is the goal of Payments Sprint 2?", None, "retrieve"),
])
def test_routes(question, focus, kind):
    route = routing.route(question, focus, NAMES, TODAY)
    assert route.kind == kind
    if kind == "follow_up":
        assert route.refs == (focus,)


def test_tracker_answers_list_count_and_sum_with_their_anchors():
    rows = [{"task_id": 12, "title": "Fix login", "status": "IN_PROGRESS", "priority": "HIGH", "sprint_name": "S2",
             "assignee_name": "Ana Garcia", "expected_end_date": dt.date(2026, 12, 9), "story_points": 5.0},
            {"task_id": 30, "title": "Docs", "status": "TODO", "priority": "LOW", "sprint_name": None,
             "assignee_name": None, "expected_end_date": None, "story_points": None}]
    listed = task_answers.answer(task_questions.parse("which tasks are in progress?", NAMES, TODAY), rows)
    assert listed.splitlines() == ["Tasks (in progress) — 2:",
                                   "- [TASK #12] Fix login — IN_PROGRESS, HIGH, due 2026-12-09, S2, Ana Garcia",
                                   "- [TASK #30] Docs — TODO, LOW, unassigned"]
    count = task_answers.answer(task_questions.parse("¿cuántas tareas críticas hay?", NAMES, TODAY), rows)
    assert count == "Tareas (críticas): 2 — [TASK #12], [TASK #30]."
    points = task_answers.answer(task_questions.parse("how many story points are left in Payments Sprint 2?",
                                                      NAMES, TODAY), rows)
    assert points == ("Story points left (in Payments Sprint 2): 5, from 2 task(s): [TASK #12] 5, [TASK #30] -. "
                      "(1 of them have no estimate)")
    none = task_answers.answer(task_questions.parse("which critical tasks are unassigned?", NAMES, TODAY), [])
    assert none == "No task you can see matches: critical, unassigned."
    two_anas = task_questions.parse("which tasks does Ana have?", NAMES, TODAY)
    assert task_answers.ambiguous_person(two_anas) == (
        "Which one do you mean: Ana Garcia (#2) / Ana Ruiz (#9)? Ask again with the full name.")


@pytest.mark.parametrize("answer, citable, cleaned, grounded", [
    ("task [TASK #107] is blocked; see [DOC #5] and [DOC #7].", {"[TASK #107]"}, "task [TASK #107] is blocked.", True),
    ("task [TASK #107] is blocked; see [DOC #5] and [DOC #7].", {"[TASK #107]", "[DOC #5]"},
     "task [TASK #107] is blocked; see [DOC #5].", True),
    ("task [TASK #107] is blocked; see [DOC #5] and [DOC #7].", set(), "", False),
    ("Diego owns it [TASK #107]. Also see [TASK #99999].", {"[TASK #107]"}, "Diego owns it [TASK #107].", True),
    ("Ana owns the login fix [TASK #107], and Ben is on the iOS build [TASK #55].", {"[TASK #55]"},
     "Ben is on the iOS build [TASK #55].", True),
    ("[TASK #1] and [TASK #2] are late.", {"[TASK #1]"}, "[TASK #1] are late.", True),
    ("Hello!\n- first [TASK #2]\n- second [TASK #3]", {"[TASK #3]"}, "Hello!\n- second [TASK #3]", True),
    ("I don't know.", set(), "I don't know.", True),
    ("It is due soon (see [TASK #4]). Ask Ana.", set(), "Ask Ana.", False),
])
def test_a_removed_citation_takes_its_claim_with_it(answer, citable, cleaned, grounded):
    result = citations.clean(answer, citable)
    assert (result.text, result.grounded) == (cleaned, grounded)
    assert set(result.cited) <= citable and not set(result.removed) & citable


def test_demo_dates_follow_the_day_seeded_and_nothing_else_does():
    today = dt.date(2027, 3, 10)
    data = demo_data.build(today=today)
    assert data == demo_data.build(today=today)  # deterministic for a given day
    running = [s for s in data.sprints if s["status"] == "ACTIVE"]
    assert running and all(s["start_date"] <= today <= s["end_date"] for s in running)
    assert all(s["end_date"] < today for s in data.sprints if s["status"] == "CLOSED")
    dues = [t["expected_end_date"] for t in data.tasks]
    assert min(dues) >= today - dt.timedelta(days=20) and max(dues) < today + dt.timedelta(days=60)
    other = demo_data.build(today=dt.date(2025, 1, 1))
    strip = lambda rows: [{k: v for k, v in r.items() if not isinstance(v, dt.date)} for r in rows]  # noqa: E731
    assert strip(other.tasks) == strip(data.tasks) and strip(other.sprints) == strip(data.sprints)
