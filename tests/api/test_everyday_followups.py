"""Follow-ups and first questions as the sixth and seventh development sets wrote them (issue 31): a field of the
record just singled out asked with courtesy or shortly ("due date?", "gracias, ¿y cuál es su fecha límite?"), "which
one's due soonest" over the last list, work to take up first, a version swapped by a follow-up. Asked through the
chat on the demo data offline and with the loopback LLM, honest and inventing (its answers are checked against the
same truths); every truth is read with SQL here."""

from __future__ import annotations

import re

import pytest
from .chat_data import converse
from .test_tracker_questions import MARIA, OPEN, TASK, ids, sql

BEN, CHEN = 3, 4
PRIORITY = "CASE PRIORITY WHEN 'CRITICAL' THEN 4 WHEN 'HIGH' THEN 3 WHEN 'MEDIUM' THEN 2 ELSE 1 END"


def most_important_open(demo, assignee: int) -> int:
    """The engines' order: priority, then the earliest due date (none last), then the id."""
    return sql(demo, f"SELECT TASK_ID FROM TASKS WHERE ASSIGNEE_ID = ? AND {OPEN} ORDER BY {PRIORITY} DESC, "
                     "EXPECTED_END_DATE IS NULL, EXPECTED_END_DATE, TASK_ID LIMIT 1", assignee)[0][0]


def first_cited(answer) -> int:
    return int(TASK.search(answer["answer"]).group(1))


@pytest.mark.parametrize("follow_up", ["due date?", "gracias, ¿y cuál es su fecha límite?", "when's that due?"])
def test_the_due_date_of_the_record_just_singled_out(demo, face, follow_up):
    top, due = converse(face, BEN, "my top priority ticket?", follow_up)
    task = most_important_open(demo, BEN)
    assert first_cited(top) == task
    date = sql(demo, "SELECT EXPECTED_END_DATE FROM TASKS WHERE TASK_ID = ?", task)[0][0]
    assert f"[TASK #{task}]" in due["answer"] and date and date[:10] in due["answer"], due["answer"]


@pytest.mark.parametrize("question", ["what should I pick up first?", "¿qué debería coger primero?"])
def test_work_to_take_up_first_is_the_most_important(demo, face, question):
    (answer,) = converse(face, BEN, question)
    assert answer["route"] == "tasks" and first_cited(answer) == most_important_open(demo, BEN), answer["answer"]


@pytest.mark.parametrize("last", ["when's the earliest due?", "which one's due soonest", "¿cuál hay que entregar "
                                                                                           "primero?"])
def test_which_of_the_last_list_is_due_first(demo, face, last):
    *_, answer = converse(face, MARIA, "what's on Chen's plate?", "just the ones in In Progress", last)
    truth = sql(demo, f"SELECT TASK_ID FROM TASKS WHERE ASSIGNEE_ID = ? AND STATUS = 'IN_PROGRESS' AND {OPEN} "
                      "AND EXPECTED_END_DATE IS NOT NULL ORDER BY EXPECTED_END_DATE, TASK_ID LIMIT 1", CHEN)
    assert truth and first_cited(answer) == truth[0][0], answer["answer"]


def test_a_version_said_in_a_follow_up_keeps_the_last_questions_field(demo, face):
    fixed = "SELECT DISTINCT VALUE FROM TASK_VALUES WHERE FIELD = 'FIX_VERSION' ORDER BY VALUE"
    first, second = (r[0] for r in sql(demo, fixed)[:2])
    answers = converse(face, MARIA, f"which tasks were fixed in {first}?", f"same for {second}")
    truth = ids(demo, f"NOT ({OPEN}) AND TASK_ID IN (SELECT TASK_ID FROM TASK_VALUES WHERE FIELD = 'FIX_VERSION' "
                      "AND VALUE = ?)", second)
    cited = [int(t) for t in TASK.findall(answers[1]["answer"])]
    assert "fix version" in answers[1]["answer"].splitlines()[0] and cited == truth[:len(cited)], answers[1]["answer"]
    assert re.search(rf"\b{len(truth)}\b", answers[1]["answer"].splitlines()[0]) or not truth
