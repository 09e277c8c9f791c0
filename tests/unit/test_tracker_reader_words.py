"""The typed reader (issue 31) on words people use that no single phrasing lists: a status name as the tracker
writes it, the tracker's priority names, negated finishing, any state, a field said empty, orders said by a date's
verb, values said with their field word that no visible task holds, and follow-ups that swap one value. Pure."""

from __future__ import annotations

import datetime as dt

import pytest

from app.rag.understanding import edits, lexicon, reader
from app.rag.understanding.query import TrackerQuery
from app.rag.understanding.vocabulary import PersonName, ProjectName

TODAY = dt.date(2026, 12, 6)
ASKER = 2
LEXICON = lexicon.build(
    {"fix_version": ["2.0.0", "3.1.1"], "affects_version": ["2.0.0"], "component": ["Web UI", "planner"],
     "label": ["backend", "platform"], "issue_type": ["Bug", "Task", "Story", "Improvement"],
     "resolution": ["Won't Fix", "Duplicate"], "status_name": ["Open", "Closed", "Resolved", "In Progress"],
     "priority_name": ["Blocker", "Critical", "Major", "Minor", "Trivial"]},
    projects=[ProjectName(1, "Payments Platform", "PAY"), ProjectName(2, "Harbor Storage", "HRB")],
    people=[PersonName(2, "Ana", "Lopez"), PersonName(3, "Elena", "Bianchi")])


def read(question: str, last: TrackerQuery | None = None) -> TrackerQuery | None:
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None
    if last is not None:
        said = edits.with_last_fields(last, said, LEXICON)
        if edits.is_edit(said):
            return edits.edit(last, said, LEXICON).query
    return edits.compose(said, LEXICON).query if edits.confident(said) else None


def where(query: TrackerQuery | None) -> dict[str, object]:
    assert query is not None
    return {p.field: p.window or p.values for p in query.where}


@pytest.mark.parametrize("question, expected", [
    ("how many HRB issues are Closed?", {"project": (2,), "status_name": ("Closed",)}),  # as the tracker writes it
    ("how many closed HRB issues?", {"project": (2,), "status": ("DONE",)}),  # a word: every finished one
    ("solo las que están en In Progress", {"status_name": ("In Progress",)}),
    ("¿cuántas incidencias menores hay?", {"priority_name": ("Minor",)}),  # the tracker's Minor, not LOW
    ("which issues are blocker priority?", {"priority_name": ("Blocker",)}),  # not "blocked"
    ("which tickets with fix version 3.1.1 haven't been closed yet", {"fix_version": ("3.1.1",), "open": (True,)}),
    ("count of tickets labelled backend, open or closed", {"label": ("backend",)}),  # any state said outright
    ("how many Story tasks without a resolution?", {"issue_type": ("Story",), "open": (True,)}),
    ("¿qué tareas no tienen sprint?", {"sprint": (None,)}),
    ("open issues not assigned to anyone", {"assignee": (None,), "open": (True,)}),
    ("open tasks in the Cobros component", {"open": (True,), "component": ("cobros",)}),  # seen by nobody here
    ("¿qué incidencias se arreglaron en la versión 2.0.0?", {"fix_version": ("2.0.0",), "open": (False,)}),
    ("issues with fix version 2.0.0", {"fix_version": ("2.0.0",)}),
    ("known bugs in 2.0.0?", {"affects_version": ("2.0.0",), "issue_type": ("Bug",)}),
    ("¿cuáles reportó Elena?", {"reporter": (3,)}),
    ("Can you pull up everything open with the label platform?", {"label": ("platform",), "open": (True,)}),
])
def test_words_read_from_the_data_and_the_glossary(question, expected):
    assert where(read(question)) == expected


@pytest.mark.parametrize("question, order", [
    ("¿cuál se creó más recientemente?", ("created", True)),
    ("which one was updated last?", ("updated", True)),
    ("which of those was resolved most recently?", ("resolved", True)),
    ("y cual tiene la fecha limite mas cercana", ("due", False)),
    ("hey which of my tickets is the most pressing right now", ("priority", True)),
])
def test_an_order_said_by_a_dates_verb_or_the_glossary(question, order):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.order == order and not said.unknown


def test_created_last_month_is_a_window_not_an_order():
    said = reader.read("issues created last month in HRB", LEXICON, ASKER, TODAY)
    assert said is not None and said.order is None
    assert where(edits.compose(said, LEXICON).query)["created"] == (dt.date(2026, 11, 1), dt.date(2026, 12, 1))


@pytest.mark.parametrize("first, follow_up, expected", [
    ("how many open tasks are labelled backend?", "and i18n?", {"open": (True,), "label": ("i18n",)}),
    ("open Bug issues assigned to me", "lo mismo pero Story",
     {"issue_type": ("Story",), "assignee": (ASKER,), "open": (True,)}),
    ("open issues in HRB", "¿cuáles están sin asignar?", {"project": (2,), "open": (True,), "assignee": (None,)}),
    ("open issues in HRB", "which did Elena report?", {"project": (2,), "open": (True,), "reporter": (3,)}),
    ("open issues in Payments Platform", "same in Harbor Storage", {"project": (2,), "open": (True,)}),
])
def test_a_follow_up_swaps_or_narrows_one_part(first, follow_up, expected):
    assert where(read(follow_up, read(first))) == expected


def test_a_ranking_by_priority_uses_the_trackers_names_where_the_data_holds_them():
    query = read("how many open issues per priority?")
    assert query is not None and query.returns == "group" and query.group_by == "priority_name"
