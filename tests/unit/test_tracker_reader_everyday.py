"""Everyday wordings of the sixth and seventh development sets (issue 31), each a rule of reading: the tracker's type
"task" said in Spanish, a bug and a task said together, an area said with "in", a version said in a follow-up, bugs
"in version X", contractions, verbs of delivering and of taking work up first, "with the biggest", "switch to".
Pure: the reader on a test lexicon."""

from __future__ import annotations

import pytest

from app.domain import Vocabulary
from app.rag import followup, routing, terms
from app.rag.understanding import edits, lexicon, reader
from app.rag.understanding.query import Predicate, TrackerQuery
from app.rag.understanding.vocabulary import PersonName

from tests.unit.test_tracker_reader_words import ASKER, LEXICON, TODAY, read, where

OPEN_BUGS = TrackerQuery(where=(Predicate("issue_type", ("Bug",)), Predicate("assignee", (ASKER,)),
                                Predicate("open", (True,))))


@pytest.mark.parametrize("question, expected", [
    # Spanish says "tarea": the English word is the tracker's type
    ("mis task abiertos", {"issue_type": ("Task",), "assignee": (ASKER,), "open": (True,)}),
    ("task abiertos en planner", {"issue_type": ("Task",), "component": ("planner",), "open": (True,)}),
    # ... while in English "tasks" is every issue
    ("my open tasks", {"assignee": (ASKER,), "open": (True,)}),
    # a bug and a task said together are every issue
    ("open bugs/tasks targeted at the 2.0.0 release pls", {"fix_version": ("2.0.0",), "open": (True,)}),
    ("planner open bugs and tasks", {"component": ("planner",), "open": (True,)}),
    # bugs in a version said bare are where they were found; "for" or the field's own name is the fix version
    ("bugs conocidos de la versión 2.0.0", {"affects_version": ("2.0.0",), "issue_type": ("Bug",)}),
    ("known bugs in version 2.0.0", {"affects_version": ("2.0.0",), "issue_type": ("Bug",)}),
    ("open bugs in fix version 2.0.0", {"fix_version": ("2.0.0",), "issue_type": ("Bug",), "open": (True,)}),
    # what shipped in a release is its finished work
    ("hola, qué salió en la release 3.1.1", {"fix_version": ("3.1.1",), "open": (False,)}),
    ("what went out in 3.1.1?", {"fix_version": ("3.1.1",), "open": (False,)}),
])
def test_values_said_the_everyday_way(question, expected):
    assert where(read(question)) == expected


def test_a_value_that_is_both_a_label_and_an_area_is_the_area_said_with_in():
    both = lexicon.build({"component": ["docs"], "label": ["docs"]},
                         counts={("label", "docs"): 18, ("component", "docs"): 11})  # more tasks carry the label
    said = reader.read("open issues in docs", both, ASKER, TODAY)
    tagged = reader.read("open docs issues", both, ASKER, TODAY)
    assert said is not None and tagged is not None
    assert [p.field for p in said.predicates if p.field in ("component", "label")] == ["component"]
    assert [p.field for p in tagged.predicates if p.field in ("component", "label")] == ["label"]


@pytest.mark.parametrize("question, order", [
    ("when's the earliest due?", ("due", False)), ("which one's due soonest", ("due", False)),
    ("¿cuál hay que entregar primero?", ("due", False)), ("cual tiene la fecha limite mas cercana", ("due", False)),
    ("what should I pick up first?", ("priority", True)), ("¿qué debería coger primero?", ("priority", True)),
    ("which ticket was created first?", ("created", False)),
])
def test_orders_said_with_a_verb_and_first(question, order):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown
    assert (said.order, said.limit) == (order, 1)


def test_a_ranking_said_as_the_value_with_the_biggest():
    said = reader.read("HRB component with the biggest open backlog?", LEXICON, ASKER, TODAY)
    assert said is not None and (said.returns, said.group_by) == ("group", "component")


@pytest.mark.parametrize("follow_up, expected", [
    ("same for 3.1.1", {"fix_version": ("3.1.1",), "open": (False,)}),  # 2.0.0 is also an affected version
    ("lo mismo para 2.0.0", {"fix_version": ("2.0.0",), "open": (False,)}),
])
def test_a_version_said_in_a_follow_up_swaps_the_last_questions_version(follow_up, expected):
    last = read("issues fixed in 3.1.1") if "2.0.0" in follow_up else TrackerQuery(
        where=(Predicate("fix_version", ("2.0.0",)), Predicate("open", (False,))))
    assert where(read(follow_up, last)) == expected


@pytest.mark.parametrize("follow_up, kind", [("now task", "Task"), ("the same but tasks", "Task"),
                                             ("switch to story", "Story"), ("cambia a improvement", "Improvement")])
def test_a_follow_up_names_the_type_it_switches_to(follow_up, kind):
    assert where(read(follow_up, OPEN_BUGS))["issue_type"] == (kind,)


@pytest.mark.parametrize("question", ["due date?", "gracias, ¿y cuál es su fecha límite?", "cool, who reported it?",
                                      "when's that due?"])
def test_a_field_of_the_last_record_asked_with_courtesy_names_no_topic(question):
    assert followup.is_follow_up(question)


def test_a_contraction_with_is_says_only_its_stop_word():
    assert terms.is_stop("when's") and terms.is_stop("that’s") and not terms.is_stop("ana's")
    assert followup.asks_about_one("when's that due?")


@pytest.mark.parametrize("question", ["whats the one ticket i absolutely need to work on today",
                                      "if I can only fix one thing this week, which of my tickets should it be?"])
def test_the_one_thing_to_work_on_is_the_most_important_whatever_day_it_is_worked_on(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown
    assert (said.order, said.limit) == (("priority", True), 1)
    assert {p.field for p in said.predicates} == {"assignee", "open"}  # no due window: the day is the asker's


def test_a_day_said_of_a_deadline_is_still_a_due_window():
    assert "due" in where(read("what do I need to finish this week?"))


def test_of_that_points_at_the_last_list_not_at_one_record():
    said = reader.read("y de eso lo que está en In Progress", LEXICON, ASKER, TODAY)
    assert said is not None and not said.it and said.edit
    assert edits.is_edit(said)


def test_a_word_of_a_projects_name_before_a_field_word_is_another_value():
    said = reader.read("open tickets in the Harbor model component", LEXICON, ASKER, TODAY)
    assert said is not None and "project" not in said.fields and "component" in said.fields


@pytest.mark.parametrize("question, expected", [
    # "task" in the singular where a figure counts many is the type; the plural stays every issue
    ("open major task count", {"priority_name": ("Major",), "issue_type": ("Task",), "open": (True,)}),
    ("# of minor task still open", {"priority_name": ("Minor",), "issue_type": ("Task",), "open": (True,)}),
    ("how many open tasks are there", {"open": (True,)}),
])
def test_a_count_of_task_in_the_singular_counts_the_type(question, expected):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.returns == "count"
    assert where(read(question)) == expected


def test_against_alone_leaves_a_version_in_the_only_field_the_data_holds_it_in():
    only_fixed = lexicon.build({"fix_version": ["Wave 3"], "affects_version": ["Wave 0"]})
    said = reader.read("how many issues are still open against Wave 3?", only_fixed, ASKER, TODAY)
    found = reader.read("bugs reported against Wave 0", only_fixed, ASKER, TODAY)
    assert said is not None and found is not None
    assert "fix_version" in said.fields and "affects_version" in found.fields


def test_which_before_a_field_word_ranks_even_with_a_value_between():
    said = reader.read("which Harbor Storage component is the worst off in terms of unresolved issues?", LEXICON,
                       ASKER, TODAY)
    assert said is not None and (said.returns, said.group_by) == ("group", "component")


def test_an_accented_name_does_not_make_an_english_question_spanish():
    assert terms.language("thanks - which ones were raised by María Castillo?") == "en"
    assert terms.language("¿Qué tareas tiene María?") == "es"


def test_thanks_alone_is_no_follow_up():
    assert not followup.is_follow_up("thanks") and followup.is_follow_up("thanks! when is it due?")


@pytest.mark.parametrize("question", ["¿Me los listas?", "me las pasas?",
                                      "could you count the planner issues for me, please?"])
def test_for_me_after_a_request_is_the_one_asking(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.mine and "assignee" not in said.fields


def test_for_me_said_of_the_work_is_still_the_askers():
    said = reader.read("what is there for me in planner?", LEXICON, ASKER, TODAY)
    assert said is not None and said.mine


@pytest.mark.parametrize("question, expected", [
    # nobody on it, no state said: the work waiting (a closed task without an owner is no one's to pick up)
    ("hey, how many Harbor Storage tickets are just sitting there without an owner",
     {"project": (2,), "assignee": (None,), "open": (True,)}),
    ("need the number of open, unowned tickets in Harbor Storage for standup",
     {"project": (2,), "assignee": (None,), "open": (True,)}),
    ("which closed tickets have no assignee?", {"assignee": (None,), "status": ("DONE",)}),
    # a resolution no other words could mean, even where nobody sees it
    ("how many HRB issues were closed as wont fix?", {"resolution": ("Won't Fix",), "project": (2,)}),
])
def test_states_said_the_everyday_way(question, expected):
    said = reader.read(question, LEXICON, ASKER, TODAY)  # "for standup": an unknown word, answered as a guess
    assert said is not None and where(edits.compose(said, LEXICON).query) == expected


def test_just_before_a_verb_narrows_nothing():
    said = reader.read("how many tickets are just sitting there without an owner", LEXICON, ASKER, TODAY)
    narrowed = reader.read("just the critical ones", LEXICON, ASKER, TODAY)
    assert said is not None and not said.edit and narrowed is not None and narrowed.edit


@pytest.mark.parametrize("question, group", [
    ("Hi! Who's the person that has opened the most issues in HRB?", "reporter"),
    ("who has the most open issues in HRB?", "assignee"),
    ("in HRB, who files the most bugs and stuff?", "reporter"),
    ("where in HRB is the backlog piling up - which category has the most open stuff", "component"),
])
def test_rankings_said_the_everyday_way(question, group):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and (said.returns, said.group_by) == ("group", group)
    assert "issue_type" not in said.fields  # "bugs and stuff" is every issue


def test_a_value_said_as_called_after_its_field_word_is_that_field_seen_or_not():
    assert where(read("open issues labelled as i18n"))["label"] == ("i18n",)


def test_a_guessed_reading_that_names_someone_several_people_could_be_asks_which():
    two = lexicon.build({}, people=[PersonName(3, "Chris", "Lindqvist"), PersonName(4, "Chris", "Okafor")])
    question = ("Hi there, could you tell me how many unresolved issues are currently assigned to Chris? I want to "
                "check before giving them more work.")
    route = routing.route(question, None, Vocabulary(), TODAY, tracker=routing.Tracker(two, ASKER))
    assert route.kind == "clarify" and {p for p, _ in route.ambiguous} == {3, 4}


@pytest.mark.parametrize("follow_up", ["¿Me los listas?", "me las pasas", "list them"])
def test_asking_for_the_last_rows_lists_them_again(follow_up):
    said = reader.read(follow_up, LEXICON, ASKER, TODAY)
    assert said is not None and said.list_again and not said.mine


@pytest.mark.parametrize("question, expected", [
    ("open bugs/tix in planner?", {"component": ("planner",), "open": (True,)}),
    ("¿Podrías indicarme cuántas incidencias tienen la etiqueta backend, sin importar su estado?",
     {"label": ("backend",)}),
    ("hola, en Harbor Storage cuantas issues abiertas no tiene nadie?",
     {"project": (2,), "assignee": (None,), "open": (True,)}),
    ("number of open issues in Harbor Storage that aren't assigned to anyone?",
     {"project": (2,), "assignee": (None,), "open": (True,)}),
    ("Me gustaría ver la lista de tickets pendientes etiquetados con backend, por favor.",
     {"label": ("backend",), "open": (True,)}),  # "me gustaría" is the one asking
])
def test_formal_and_hurried_wordings(question, expected):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown and where(edits.compose(said, LEXICON).query) == expected


@pytest.mark.parametrize("question", ["q tengo q hacer primero hoy, lo mas urgente mio", "cual es mi ticket mas prio xfa",
                                      "de lo q tengo asignado y sin cerrar, cual corre mas prisa"])
def test_the_most_urgent_said_in_a_hurry(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and (said.order, said.limit) == (("priority", True), 1)
    assert {p.field for p in said.predicates} == {"assignee", "open"}


def test_before_and_them_typed_short():
    said = reader.read("and the sprint b4?", LEXICON, ASKER, TODAY)
    them = reader.read("who's got most of em", LEXICON, ASKER, TODAY)
    assert said is not None and said.relative_sprint == "previous"
    assert them is not None and them.those and (them.returns, them.group_by) == ("group", "assignee")
