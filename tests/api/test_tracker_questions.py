"""Tracker questions of issue 23 that were misread, asked through the offline chat on the demo data in English
and Spanish: a person's tasks in a status said without a noun, overdue in other words, a due window, a
comparison over sprints, "to do" said of tasks and of points, and a sprint pointed at but not named. Every
truth is read from the database with SQL here."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from app.domain import DONE_STATUSES

from .chat_data import ask

MARIA, ANA, CHEN = 1, 2, 4  # demo employees (app/demo_data.EMPLOYEES, seed order)
TASK = re.compile(r"\[TASK #(\d+)\]")
OPEN = f"STATUS NOT IN ({', '.join(repr(s) for s in DONE_STATUSES)})"


# `demo` and `offline`: tests/api/conftest.py (the module's own copy of the run's seeded demo, no LLM)


def sql(demo, query, *args):
    return demo[0].conn.execute(query, args).fetchall()


def ids(demo, where, *args):
    return [r[0] for r in sql(demo, f"SELECT TASK_ID FROM TASKS WHERE {where} ORDER BY TASK_ID", *args)]


def assert_lists(answer, truth):
    """The whole truth, or its first 15 beside the figure (a list cut at its limit)."""
    assert answer["route"] == "tasks" and truth
    assert int(re.search(r"— (\d+)", answer["answer"].splitlines()[0]).group(1)) == len(truth)
    assert [int(t) for t in TASK.findall(answer["answer"])] == truth[:15]


@pytest.mark.parametrize("question", ["which of Chen's tasks are done?", "¿qué tareas de Chen están terminadas?",
                                      "what does Chen have in review?", "¿qué tiene Chen en revisión?"])
def test_a_persons_tasks_in_a_status_are_listed_not_read_as_blocked(demo, offline, question):
    status = "DONE" if "don" in question or "termin" in question else "IN_REVIEW"
    assert_lists(ask(offline, MARIA, question), ids(demo, "ASSIGNEE_ID = ? AND STATUS = ?", CHEN, status))


def test_someone_elses_tasks_a_developer_cannot_see_are_no_match(demo, offline):
    assert ids(demo, "ASSIGNEE_ID = ? AND STATUS = 'IN_REVIEW'", CHEN)  # there are some; Ana sees none of them
    answer = ask(offline, ANA, "what does Chen have in review?")
    assert answer["route"] == "tasks" and answer["citations"] == []
    assert answer["answer"].startswith("No task you can see matches: assigned to Chen")


@pytest.mark.parametrize("question", ["what work of mine is past its due date?", "¿qué tareas mías están vencidas?"])
def test_overdue_in_other_words(demo, offline, question):
    today = dt.date.today().isoformat()
    assert_lists(ask(offline, ANA, question), ids(demo, f"ASSIGNEE_ID = ? AND {OPEN} AND EXPECTED_END_DATE < ?",
                                                  ANA, today))


@pytest.mark.parametrize("question, weeks", [("what do I have due next week?", 1), ("¿qué tareas mías vencen esta "
                                                                                    "semana?", 0),
                                             # the same weeks said otherwise (issue 23's third batch)
                                             ("which of my things are due during the current week?", 0),
                                             ("what do I need to deliver the week after this one?", 1),
                                             ("¿qué tengo para la semana entrante?", 1)])
def test_a_week_is_monday_to_sunday_and_lists_everything_due_in_it(demo, offline, question, weeks):
    today = dt.date.today()
    monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=weeks)
    truth = ids(demo, "ASSIGNEE_ID = ? AND EXPECTED_END_DATE >= ? AND EXPECTED_END_DATE < ?", ANA,
                monday.isoformat(), (monday + dt.timedelta(days=7)).isoformat())
    answer = ask(offline, ANA, question)
    assert monday.isoformat() in answer["answer"].splitlines()[0]  # the window it read, whatever it holds
    if truth:
        assert_lists(answer, truth)
    else:
        assert answer["route"] == "tasks" and answer["citations"] == []


@pytest.mark.parametrize("question", ["which sprint has the most story points left?",
                                      "¿qué iteración tiene más puntos por hacer?"])
def test_a_comparison_over_sprints_ranks_sprints(demo, offline, question):
    """The tasks of no sprint are not a sprint: the winner is the sprint with the most points not done."""
    ranking = sql(demo, f"SELECT s.NAME, s.SPRINT_ID, SUM(COALESCE(t.STORY_POINTS, 0)) AS n FROM TASKS t JOIN "
                        f"SPRINTS s ON s.SPRINT_ID = t.SPRINT_ID WHERE t.{OPEN} GROUP BY s.SPRINT_ID "
                        "ORDER BY n DESC, s.NAME")
    (name, sprint_id, figure), runner_up = ranking[0], ranking[1]
    assert figure > runner_up[2]
    answer = ask(offline, MARIA, question)
    assert answer["route"] == "compare"
    assert answer["answer"].splitlines()[0].endswith(f"{name} [SPRINT #{sprint_id}] — {figure:g}.")


def test_still_to_do_said_of_tasks_is_the_to_do_status(demo, offline):
    assert_lists(ask(offline, ANA, "which of my tasks are still to do?"),
                 ids(demo, "ASSIGNEE_ID = ? AND STATUS = 'TODO'", ANA))


@pytest.mark.parametrize("question, lead", [("how many story points are left in the sprint?", "Which sprint? "),
                                            ("¿cuántos puntos quedan en la iteración?", "¿Qué iteración? ")])
def test_a_sprint_pointed_at_but_not_named_is_asked_for(demo, offline, question, lead):
    answer = ask(offline, MARIA, question)
    names = [r[0] for r in sql(demo, "SELECT NAME FROM SPRINTS ORDER BY SPRINT_ID")]
    assert answer["route"] == "clarify" and answer["answer"].startswith(lead) and answer["citations"] == []
    assert all(name in answer["answer"] for name in names[:10])


def test_the_project_pointed_at_in_a_scoped_conversation_is_the_scopes_project(demo, offline):
    """'The project' in a conversation scoped to Payments is Payments: the answer itself, not the question back."""
    (payments,) = sql(demo, "SELECT PROJECT_ID FROM PROJECTS WHERE NAME = 'Payments Platform'")
    in_review = sql(demo, "SELECT COUNT(*) FROM TASKS WHERE PROJECT_ID = ? AND STATUS = 'IN_REVIEW'", payments[0])
    answer = ask(offline, MARIA, "how many tasks are in review in the project?", rag_scope=str(payments[0]))
    assert not answer["answer"].startswith("Which project?"), answer["answer"]
    assert f": {in_review[0][0]}" in answer["answer"].splitlines()[0], answer["answer"]
