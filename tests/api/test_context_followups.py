"""Chains and questions as development sets 12–14 wrote them (issue 31): a question after a clause of context ("for
the standup: …"), the sprint before said as "the earlier one in that project", whose plate is fullest, narrowing
said with a verb, a count that includes the finished, nobody having picked work up. Asked through the chat on the
demo data offline and with the loopback LLM, honest and inventing; every truth is read with SQL here."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from .chat_data import converse
from .test_tracker_questions import MARIA, OPEN, TASK, ids, sql


def cited(answer) -> list[int]:
    return [int(t) for t in TASK.findall(answer["answer"])]


def figure(answer, number: int) -> bool:
    return bool(re.search(rf"\b{number}\b", answer["answer"].splitlines()[0]))


def sprint_with_one_before(demo, order: str) -> tuple[int, str, int]:
    """(id, name) of the first sprint by id in ``order`` ("ASC"/"DESC") that has one before it in its project, and
    the id of that one."""
    sprint, name, project, start = sql(
        demo, "SELECT s.SPRINT_ID, s.NAME, s.PROJECT_ID, s.START_DATE FROM SPRINTS s WHERE EXISTS (SELECT 1 FROM "
              "SPRINTS b WHERE b.PROJECT_ID = s.PROJECT_ID AND b.START_DATE < s.START_DATE) "
              f"ORDER BY s.SPRINT_ID {order} LIMIT 1")[0]
    before = sql(demo, "SELECT SPRINT_ID FROM SPRINTS WHERE PROJECT_ID = ? AND START_DATE < ? "
                       "ORDER BY START_DATE DESC LIMIT 1", project, start)[0][0]
    return sprint, name, before


def assert_lists_the_open_tasks_of(demo, answer, sprint: int) -> None:
    truth = ids(demo, f"SPRINT_ID = ? AND {OPEN}", sprint)
    assert truth and set(cited(answer)) <= set(truth) and figure(answer, len(truth)), answer["answer"]


def test_a_sprint_then_the_earlier_one_then_whose_plate_is_fullest(demo, face):
    sprint, name, before = sprint_with_one_before(demo, "ASC")
    first, earlier, most = converse(face, MARIA, f"for the standup: open tickets in {name} pls",
                                    "ok and the earlier one in that project?", "whose plate is fullest there?")
    assert_lists_the_open_tasks_of(demo, first, sprint)
    assert_lists_the_open_tasks_of(demo, earlier, before)
    holders = Counter(r[0] for r in sql(demo, f"SELECT ASSIGNEE_ID FROM TASKS WHERE SPRINT_ID = ? AND {OPEN} "
                                              "AND ASSIGNEE_ID IS NOT NULL", before))
    (top, count), *_ = holders.most_common()
    first_name = sql(demo, "SELECT FIRST_NAME FROM EMPLOYEES WHERE EMPLOYEE_ID = ?", top)[0][0]
    assert first_name in most["answer"].splitlines()[0] and figure(most, count), most["answer"]


def test_narrowing_said_with_a_verb_then_how_many(demo, face):
    component, kind = sql(demo, "SELECT v.VALUE, t.ISSUE_TYPE FROM TASK_VALUES v JOIN TASKS t ON t.TASK_ID = "
                                f"v.TASK_ID WHERE v.FIELD = 'COMPONENT' AND t.ISSUE_TYPE IS NOT NULL AND t.{OPEN} "
                                "GROUP BY 1, 2 HAVING COUNT(DISTINCT t.PRIORITY) > 1 ORDER BY COUNT(*) DESC LIMIT 1")[0]
    where = f"ISSUE_TYPE = ? AND {OPEN} AND TASK_ID IN (SELECT TASK_ID FROM TASK_VALUES WHERE FIELD = 'COMPONENT' " \
            "AND VALUE = ?)"
    priority = sql(demo, f"SELECT PRIORITY FROM TASKS WHERE {where} ORDER BY TASK_ID LIMIT 1", kind, component)[0][0]
    listed, narrowed, counted = converse(
        face, MARIA, f"Before the release, could you list the open {kind} issues filed against {component}?",
        f"Can you narrow that down to {priority.lower()} priority?", "Thanks, and how many are there?")
    every, few = ids(demo, where, kind, component), ids(demo, f"{where} AND PRIORITY = ?", kind, component, priority)
    assert set(cited(listed)) <= set(every) and figure(listed, len(every)), listed["answer"]
    assert few and set(cited(narrowed)) <= set(few) and figure(narrowed, len(few)), narrowed["answer"]
    assert figure(counted, len(few)), counted["answer"]


@pytest.mark.parametrize("question", ["how many issues carry the {label} tag, including resolved ones?",
                                      "Oye, ¿cuántos tickets llevan el tag {label}, contando también los ya resueltos?"])
def test_a_count_that_includes_the_finished_counts_every_state(demo, face, question):
    label, count = sql(demo, "SELECT VALUE, COUNT(*) FROM TASK_VALUES v JOIN TASKS t ON t.TASK_ID = v.TASK_ID "
                             f"WHERE FIELD = 'LABEL' GROUP BY VALUE HAVING SUM(NOT ({OPEN})) > 0 "
                             "ORDER BY COUNT(*) DESC LIMIT 1")[0]
    (answer,) = converse(face, MARIA, question.format(label=label))
    assert figure(answer, count), answer["answer"]


@pytest.mark.parametrize("question", ["how many issues in {project} are still open and nobody has picked them up?",
                                      "¿Cuántas incidencias siguen abiertas en {project} sin que nadie las tenga "
                                      "asignadas?"])
def test_nobody_having_picked_work_up_is_the_unassigned(demo, face, question):
    project, name, count = sql(demo, "SELECT p.PROJECT_ID, p.NAME, COUNT(*) FROM TASKS t JOIN PROJECTS p ON "
                                     f"p.PROJECT_ID = t.PROJECT_ID WHERE t.ASSIGNEE_ID IS NULL AND t.{OPEN} "
                                     "GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 1")[0]
    (answer,) = converse(face, MARIA, question.format(project=name))
    assert count == len(ids(demo, f"PROJECT_ID = ? AND ASSIGNEE_ID IS NULL AND {OPEN}", project))
    assert figure(answer, count), answer["answer"]


def test_a_dictated_chain_with_slips_and_a_purpose(demo, face):
    sprint, name, before = sprint_with_one_before(demo, "DESC")
    first, earlier = converse(face, MARIA, f"For the sprint review: open issues in sprnt {name}.",
                              "okay so um the prevous sprint instead")
    assert_lists_the_open_tasks_of(demo, first, sprint)
    assert_lists_the_open_tasks_of(demo, earlier, before)
