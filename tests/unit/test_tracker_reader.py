"""The typed reader of issue 31 (app/rag/understanding): questions read into one typed query with the data's own
values, and follow-ups that edit the last query. Pure: a lexicon built here, as Engine.tracker_values reads one."""

from __future__ import annotations

import datetime as dt

import pytest

from app.rag.understanding import edits, lexicon, reader
from app.rag.understanding.query import Predicate, TrackerQuery
from app.rag.understanding.vocabulary import PersonName, ProjectName, SprintName

TODAY = dt.date(2026, 12, 6)  # a Sunday
ASKER = 2
LEXICON = lexicon.build(
    {"fix_version": ["2.0.0", "2.1"], "affects_version": ["2.0.0"], "component": ["Web UI", "backend"],
     "label": ["backend", "needs-triage"], "issue_type": ["Bug", "Task", "Story", "New Feature"],
     "resolution": ["Won't Fix", "Duplicate", "Fixed"], "status_name": ["Patch Available", "Open"]},
    projects=[ProjectName(1, "Payments Platform", "PAY"), ProjectName(2, "Mobile App Relaunch", "MOB")],
    sprints=[SprintName(4, "Mobile Sprint 1", 2, "CLOSED", dt.date(2026, 10, 1)),
             SprintName(5, "Mobile Sprint 2", 2, "ACTIVE", dt.date(2026, 11, 1)),
             SprintName(6, "Mobile Sprint 3", 2, "PLANNED", dt.date(2026, 12, 14))],
    people=[PersonName(2, "Ana", "Lopez"), PersonName(3, "Ben", "Okafor"),
            PersonName(4, "María José", "García López", "mjgarcia"), PersonName(5, "Ana", "Silva")],
    counts={("component", "backend"): 14, ("label", "backend"): 10})


def query_of(question: str, last: TrackerQuery | None = None) -> TrackerQuery | None:
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None
    if last is not None and edits.is_edit(said):
        return edits.edit(last, said, LEXICON).query
    return edits.compose(said, LEXICON).query if edits.confident(said) else None


def where(query: TrackerQuery | None) -> dict[str, object]:
    assert query is not None
    return {p.field: (p.window if p.window else p.values) + (("not",) if p.negate else ()) for p in query.where}


@pytest.mark.parametrize("question, expected", [
    ("what's still open for 2.0.0?", {"fix_version": ("2.0.0",), "open": (True,)}),
    ("open issues in the backend component", {"component": ("backend",), "open": (True,)}),
    ("open issues labelled backend", {"label": ("backend",), "open": (True,)}),  # the field word decides
    ("issues tagged needs-triage", {"label": ("needs-triage",)}),
    ("how many bugs in Payments are unresolved?", {"project": (1,), "issue_type": ("Bug",), "open": (True,)}),
    ("bugs affecting 2.0.0", {"issue_type": ("Bug",), "affects_version": ("2.0.0",)}),
    ("issues reported by Ben", {"reporter": (3,)}),
    ("what did Ben report?", {"reporter": (3,)}),
    ("how many PAY issues were closed as Won't Fix?", {"project": (1,), "resolution": ("Won't Fix",)}),
    ("how many open issues does María José have?", {"assignee": (4,), "open": (True,)}),  # a three-word first name
    ("how many open tasks have nobody assigned?", {"assignee": (None,), "open": (True,)}),
    ("is any of my work stuck waiting on something?", {"assignee": (ASKER,), "blocked": (True,), "open": (True,)}),
    ("issues created last month in MOB", {"project": (2,), "created": (dt.date(2026, 11, 1), dt.date(2026, 12, 1))}),
    ("¿cuántas incidencias se resolvieron la semana pasada?",
     {"resolved": (dt.date(2026, 11, 23), dt.date(2026, 11, 30))}),
    ("¿cuántos errores abiertos hay en pagos?", {"issue_type": ("Bug",), "open": (True,), "project": (1,)}),
    ("hola! cuantas tareas abiertas me quedan en el proyecto de pagos?",
     {"assignee": (ASKER,), "open": (True,), "project": (1,)}),
    ("thanks! which features are still open?", {"issue_type": ("New Feature",), "open": (True,)}),
])
def test_a_question_is_read_with_the_datas_own_values(question, expected):
    assert where(query_of(question)) == expected


@pytest.mark.parametrize("question, returns", [
    ("which project has the most open bugs?", ("group", "project", False)),
    ("who reported the most issues?", ("group", "reporter", False)),
    ("which component has the fewest open issues?", ("group", "component", True)),
    ("open issues per label", ("group", "label", False)),
    ("how many issues are labelled backend?", ("count", None, False)),
    ("story points left in Mobile Sprint 2", ("points", None, False)),
])
def test_what_to_return_is_read_too(question, returns):
    query = query_of(question)
    assert query is not None and (query.returns, query.group_by, query.ascending) == returns


def test_an_order_asks_for_the_first_record():
    query = query_of("what's my most important open task?")
    assert query is not None and (query.order, query.descending, query.limit) == ("priority", True, 1)
    assert where(query) == {"assignee": (ASKER,), "open": (True,)}


def test_a_name_several_people_share_is_asked_back():
    said = reader.read("how many open issues does Ana have?", LEXICON, 3, TODAY)
    composed = edits.compose(said, LEXICON)
    assert composed.query is None and {i for i, _ in composed.ambiguous} == {2, 5}


def test_a_negation_is_never_dropped():
    assert query_of("which tasks are not critical?") is None  # "not" unexplained: not a confident reading


def test_a_value_no_visible_task_holds_reads_as_said_and_as_a_missing_one():
    """tracker_values reads field values under the access rule: a label only hidden tasks hold is missing for the
    asker. Said with its field word it is still the question's predicate (which matches nothing they may see, so
    the answer says so rather than answering without it), exactly as a value that exists nowhere."""
    hidden, missing = query_of("open issues labelled layoffs-2027"), query_of("open issues labelled nowhere-1999")
    assert where(hidden) == {"open": (True,), "label": ("layoffs-2027",)}
    assert where(missing) == {"open": (True,), "label": ("nowhere-1999",)}
    assert query_of("how much is left open for 9.9.9?").first("fix_version").values == ("9.9.9",)


@pytest.mark.parametrize("chain, expected", [
    (["which of Ben's tasks are in review?", "and Ana Lopez's?", "how many of those are critical?"],
     ({"assignee": (2,), "status": ("IN_REVIEW",), "priority": ("CRITICAL",)}, "count")),
    (["what is Ben working on?", "and the ones in review?", "which of those is due first?"],
     ({"assignee": (3,), "open": (True,), "status": ("IN_REVIEW",)}, "list")),
    (["what's open in Mobile Sprint 2?", "what about the previous sprint?", "and who holds most of them?"],
     ({"sprint": (4,), "open": (True,)}, "group")),
    (["how many bugs in Payments are unresolved?", "¿y en la app de mobile?", "list them"],
     ({"issue_type": ("Bug",), "open": (True,), "project": (2,)}, "list")),
    (["open bugs in the backend component", "only the critical ones", "how many is that?"],
     ({"issue_type": ("Bug",), "open": (True,), "component": ("backend",), "priority": ("CRITICAL",)}, "count")),
    (["which issues were fixed in 2.0.0?", "and in 2.1?", "which of them did Ben report?"],
     ({"fix_version": ("2.1",), "open": (False,), "reporter": (3,)}, "list")),
    # fixed in it is its finished work; the field's name is the version only
    (["issues fixed in 2.0.0", "and in 2.1?", "which of them did Ben report?"],
     ({"fix_version": ("2.1",), "open": (False,), "reporter": (3,)}, "list")),
    (["issues with fix version 2.0.0", "and in 2.1?", "which of them did Ben report?"],
     ({"fix_version": ("2.1",), "reporter": (3,)}, "list")),
])
def test_a_follow_up_edits_the_last_query(chain, expected):
    last = None
    for question in chain:
        last = query_of(question, last)
        assert last is not None, question
    predicates, returns = expected
    assert where(last) == predicates and last.returns == returns


def test_after_a_top_one_answer_a_pronoun_is_the_focus_not_an_edit():
    last = query_of("what's my most important open task?")
    for question in ("when is it due?", "and is it blocked?", "¿quién lo tiene?"):
        said = reader.read(question, LEXICON, ASKER, TODAY)
        assert said is not None and not edits.is_edit(edits.with_last_fields(last, said, LEXICON)), question


def test_a_new_question_is_not_an_edit_of_the_last():
    last = query_of("which of Ben's tasks are in review?")
    said = reader.read("what is overdue?", LEXICON, ASKER, TODAY)
    assert said is not None and not edits.is_edit(said)
    assert where(query_of("what is overdue?", last)) == {"overdue": (TODAY,)}


def test_the_next_and_current_sprint_follow_the_data():
    said = reader.read("what's left in the current sprint of Mobile App Relaunch?", LEXICON, ASKER, TODAY)
    assert where(edits.compose(said, LEXICON).query)["sprint"] == (5,)
    last = query_of("what's open in Mobile Sprint 2?")
    assert where(query_of("and the next sprint?", last))["sprint"] == (6,)
    orphan = edits.compose(reader.read("what's open in the current sprint?", LEXICON, ASKER, TODAY), LEXICON)
    assert orphan.query is None and orphan.missing == "project"  # of which project? asked back


def test_a_stored_query_survives_its_json():
    query = query_of("bugs affecting 2.0.0 created this year, most recent first")
    assert query is not None
    from app.rag.understanding.query import query_from_json
    assert query_from_json(query.to_json()) == query
    assert query_from_json('{"where": [{"field": "nope", "values": [1]}]}') is None  # never trusted blindly
    assert Predicate("created", window=(dt.date(2026, 1, 1), None)).window[0] == dt.date(2026, 1, 1)
