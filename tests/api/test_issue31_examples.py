"""Issue 31's demo examples, replayed as written (as their conversations where they were ones), offline and with the
loopback LLM that invents an anchor (its replies are refused, so the computed answer stands) — through the API on
the demo data. Every truth is computed from the source rows read back here, never from the code under test."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from fastapi.testclient import TestClient

from app.entities import EMPLOYEES, PROJECTS, SPRINTS, TASKS
from app.evals.loopback_llm import LoopbackLLM
from app.services.records import iter_records

from .chat_data import converse, demo_app, llm_settings

MARIA, ANA, BEN, CHEN, DIEGO, EMMA, FARAH = 1, 2, 3, 4, 5, 6, 7  # demo employees, seed order
DONE = ("DONE", "CLOSED", "CANCELLED", "RESOLVED")  # a finished task, restated from the domain


@pytest.fixture(scope="module", params=["offline", "inventing"])
def face(request, demo):
    if request.param == "offline":
        with TestClient(demo_app(demo), raise_server_exceptions=False) as c:
            yield c
        return
    with LoopbackLLM("inventing") as llm, TestClient(demo_app(demo, **llm_settings(llm)),
                                                     raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def rows(demo):
    engine, _ = demo
    return {e.name: list(iter_records(engine, e)) for e in (TASKS, EMPLOYEES, PROJECTS, SPRINTS)}


def tasks(rows, **where):
    def holds(t):
        return all((t[k] in v) if isinstance(v, (set, tuple, list)) else t[k] == v for k, v in where.items())
    return [t for t in rows[TASKS.name] if holds(t)]


def open_(ts):
    return [t for t in ts if (t["status"] or "") not in DONE]


def anchors(ts) -> set[str]:
    return {f"[TASK #{t['task_id']}]" for t in ts}


def cited(answer: dict) -> set[str]:
    return {c for c in answer["citations"] if c.startswith("[TASK")}


def figure(answer: dict) -> int:
    """The count a computed answer states ("Tasks (…): 3 — …", "Tareas (…): 3")."""
    return int(re.search(r"\): (\d+)", answer["answer"]).group(1))


def project_id(rows, name: str) -> int:
    return next(p["project_id"] for p in rows[PROJECTS.name] if p["name"] == name)


def test_and_anas_then_how_many_of_those_are_critical(face, rows):
    """Maria: Ben's tasks in review, then "and Ana's?" (Ana's in review, not all her open tasks), then a count of
    those that are critical (not a card of one task)."""
    bens, anas, critical = converse(face, MARIA, "which of Ben's tasks are in review?", "and Ana's?",
                                    "how many of those are critical?")
    assert cited(bens) == anchors(tasks(rows, assignee_id=BEN, status="IN_REVIEW"))
    in_review = tasks(rows, assignee_id=ANA, status="IN_REVIEW")
    assert cited(anas) == anchors(in_review) and anas["route"] == "tasks"
    assert figure(critical) == len([t for t in in_review if t["priority"] == "CRITICAL"])


def test_farah_then_the_ones_in_review_then_which_is_due_first(face, rows):
    working, reviewing, first = converse(face, MARIA, "what is Farah working on?", "and the ones in review?",
                                         "which of those is due first?")
    farah_open = open_(tasks(rows, assignee_id=FARAH))
    assert cited(working) <= anchors(farah_open) and str(len(farah_open)) in working["answer"]
    in_review = [t for t in farah_open if t["status"] == "IN_REVIEW"]
    assert cited(reviewing) == anchors(in_review)  # Farah kept, not every task in review
    due = sorted((t for t in in_review if t["expected_end_date"]), key=lambda t: (t["expected_end_date"], t["task_id"]))
    assert cited(first) == anchors(due[:1])


def test_a_sprint_then_the_previous_sprint_then_who_holds_most(face, rows):
    mobile = project_id(rows, "Mobile App Relaunch")
    sprints = sorted((s for s in rows[SPRINTS.name] if s["project_id"] == mobile),
                     key=lambda s: (s["start_date"] or dt.date.min, s["sprint_id"]))
    current, previous = sprints[-1], sprints[-2]
    first, before, holder = converse(face, MARIA, f"what is still open in {current['name']}?",
                                     "what about the previous sprint?", "and who holds most of them?")
    current_open = open_(tasks(rows, sprint_id=current["sprint_id"]))
    assert cited(first) <= anchors(current_open) and str(len(current_open)) in first["answer"].splitlines()[0]
    before_open = open_(tasks(rows, sprint_id=previous["sprint_id"]))
    assert cited(before) <= anchors(before_open) and str(len(before_open)) in before["answer"].splitlines()[0]
    counts: dict[int, int] = {}
    for t in before_open:
        if t["assignee_id"] is not None:
            counts[t["assignee_id"]] = counts.get(t["assignee_id"], 0) + 1
    best = max(counts.values())
    winners = {e["first_name"] for e in rows[EMPLOYEES.name] if counts.get(e["employee_id"]) == best}
    assert holder["route"] == "compare" and any(w in holder["answer"].splitlines()[0] for w in winners)
    assert str(best) in holder["answer"].splitlines()[0]


def test_overdue_in_latam_then_in_payments_then_who_has_most_there(face, rows):
    today = dt.date.today()
    latam, payments = project_id(rows, "Portal de Clientes LATAM"), project_id(rows, "Payments Platform")

    def overdue(project):
        return [t for t in open_(tasks(rows, project_id=project))
                if t["expected_end_date"] and t["expected_end_date"] < today]
    first, second, who = converse(face, MARIA, "¿qué hay atrasado en el portal LATAM?", "¿y en pagos?",
                                  "¿quién acumula más retrasos ahí?")
    assert cited(first) <= anchors(overdue(latam)) and str(len(overdue(latam))) in first["answer"].splitlines()[0]
    assert cited(second) <= anchors(overdue(payments)) and str(len(overdue(payments))) in second["answer"].splitlines()[0]
    counts: dict[int, int] = {}
    for t in overdue(payments):
        if t["assignee_id"] is not None:
            counts[t["assignee_id"]] = counts.get(t["assignee_id"], 0) + 1
    best = max(counts.values())
    winners = {e["first_name"] for e in rows[EMPLOYEES.name] if counts.get(e["employee_id"]) == best}
    line = who["answer"].splitlines()[0]
    assert who["route"] == "compare" and any(w in line for w in winners) and str(best) in line


def test_my_most_important_open_task_then_when_is_it_due(face, rows):
    rank = {"CRITICAL": 0, "HIGH": 1, "MEDIUM": 2, "LOW": 3}
    mine = sorted(open_(tasks(rows, assignee_id=BEN)),
                  key=lambda t: (rank.get(t["priority"], 9), t["task_id"]))
    top, due = converse(face, BEN, "what's my most important open task?", "when is it due?")
    assert cited(top) == anchors(mine[:1])  # one task, the most urgent, not the whole list
    assert str(mine[0]["expected_end_date"]) in due["answer"] and cited(due) == anchors(mine[:1])


@pytest.mark.parametrize("who, question, truth", [
    (BEN, "is any of my work stuck waiting on something?", "blocked"),
    (BEN, "¿voy retrasado con algo?", "overdue"),
    (BEN, "¿cuántas tareas abiertas me quedan en el proyecto de pagos?", "open_in_payments"),
    (MARIA, "how many open tasks have nobody assigned?", "open_unassigned"),
    (BEN, "what do I need to get done next week?", "next_week"),
])
def test_ordinary_rewordings_are_answered_not_refused(face, rows, who, question, truth):
    today = dt.date.today()
    answer = converse(face, who, question)[0]
    mine = tasks(rows, assignee_id=who)
    if truth == "blocked":
        assert answer["route"] in ("tasks", "blockers") and cited(answer)
        assert cited(answer) <= anchors(open_(mine))
    elif truth == "overdue":
        late = [t for t in open_(mine) if t["expected_end_date"] and t["expected_end_date"] < today]
        assert cited(answer) == anchors(late)
    elif truth == "open_in_payments":
        assert figure(answer) == len(open_(tasks(rows, assignee_id=who, project_id=project_id(rows, "Payments Platform"))))
    elif truth == "open_unassigned":
        assert figure(answer) == len(open_(tasks(rows, assignee_id=None)))
    else:
        monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=1)
        week = [t for t in mine if t["expected_end_date"] and monday <= t["expected_end_date"] < monday + dt.timedelta(days=7)]
        wanted = [t for t in week if (t["status"] or "") not in DONE]
        assert cited(answer) <= anchors(week) and anchors(wanted) <= cited(answer)


def test_sprint_and_project_facts_are_their_cards_not_rankings(face, rows):
    mobile, data = project_id(rows, "Mobile App Relaunch"), project_id(rows, "Data Warehouse Migration")
    active = {p for p in (mobile, data) for s in rows[SPRINTS.name] if s["project_id"] == p and s["status"] == "ACTIVE"}
    current_mobile = next(s for s in rows[SPRINTS.name] if s["project_id"] == mobile and s["status"] == "ACTIVE")
    ends, data_sprint, projects = converse(face, MARIA, "when does the current mobile sprint finish?",
                                          "¿en qué sprint está ahora el equipo de datos?",
                                          "which projects are currently active?")
    assert ends["route"] == "lookup" and str(current_mobile["end_date"]) in ends["answer"]
    assert f"[SPRINT #{current_mobile['sprint_id']}]" in ends["citations"]
    if data in active:
        current_data = next(s for s in rows[SPRINTS.name] if s["project_id"] == data and s["status"] == "ACTIVE")
        assert f"[SPRINT #{current_data['sprint_id']}]" in data_sprint["citations"]
    wanted = {f"[PROJECT #{p['project_id']}]" for p in rows[PROJECTS.name] if p["status"] == "ACTIVE"}
    assert {c for c in projects["citations"] if c.startswith("[PROJECT")} == wanted


def test_a_greeting_never_pushes_a_question_out_of_the_tracker(face, rows):
    plain, greeted = (converse(face, BEN, q)[0] for q in ("¿qué tengo abierto?", "hola, ¿qué tengo abierto?"))
    assert plain["route"] == greeted["route"] == "tasks" and cited(plain) == cited(greeted)
    assert str(len(open_(tasks(rows, assignee_id=BEN)))) in greeted["answer"].splitlines()[0]
