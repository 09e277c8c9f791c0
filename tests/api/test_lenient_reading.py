"""A tracker question with a few words the reader does not know (issue 31: "a word that is not understood and is
not a topic is ignored"): retrieval reads it first, and when nothing it finds covers the question, the typed query
answers, saying what it ran. The story around a question ("I'm preparing the standup and need to know …") asks
nothing of its own. Asked through the offline chat on the demo data; every truth is read with SQL here."""

from __future__ import annotations

import re

from .chat_data import ask
from .test_tracker_questions import ANA, MARIA, OPEN, assert_lists, ids, sql


def payments(demo) -> int:
    return sql(demo, "SELECT PROJECT_ID FROM PROJECTS WHERE NAME = 'Payments Platform'")[0][0]


def in_release(demo, release: str) -> list[int]:
    return ids(demo, f"{OPEN} AND TASK_ID IN (SELECT TASK_ID FROM TASK_VALUES WHERE FIELD = 'FIX_VERSION' AND VALUE = ?)",
               release)


def test_a_count_with_words_nobody_listed_is_the_databases_count(demo, offline):
    answer = ask(offline, MARIA, "give me the number of open tasks with fix version 2026.2 for the retro slide")
    truth = in_release(demo, "2026.2")
    assert answer["route"] == "tasks" and truth, answer
    assert re.search(rf"\b{len(truth)}\b", answer["answer"].splitlines()[0]), answer["answer"]


def test_the_story_before_a_question_is_not_the_askers_own_work(demo, offline):
    """"I'm preparing …" is the one asking, not the one holding the tasks: a manager gets everyone's."""
    answer = ask(offline, MARIA, "I'm preparing the standup and need to know which tasks are still open in "
                                 "Payments Platform")
    assert_lists(answer, ids(demo, f"PROJECT_ID = ? AND {OPEN}", payments(demo)))


def test_a_developer_gets_only_what_they_may_see_from_a_guessed_reading(demo, offline):
    answer = ask(offline, ANA, "give me the number of open tasks with fix version 2026.2 for the retro slide")
    visible = [t for t in in_release(demo, "2026.2") if t in ids(demo, "ASSIGNEE_ID = ?", ANA)]
    cited = {int(t) for t in re.findall(r"\[TASK #(\d+)\]", answer["answer"])}
    assert cited <= set(visible)
    assert re.search(rf"\b{len(visible)}\b", answer["answer"].splitlines()[0]), answer["answer"]
