"""A question told inside the asker's story (issue 31, the third development set's finding): the clause that asks is
read whole; a clause that only tells the situation gives its values of the data and nothing else; "I" is the
asker's own work only as the one who holds or does it. Pure."""

from __future__ import annotations

import datetime as dt

import pytest

from app.domain import Vocabulary
from app.rag import followup, routing, task_questions as tq, terms
from app.rag.understanding import clauses, edits, reader

from tests.unit.test_tracker_reader_words import ASKER, LEXICON, TODAY, read, where


@pytest.mark.parametrize("question, expected", [
    # the story's words and its "I" ask nothing; the question's own words are read whole
    ("I'm preparing the release notes draft and before I start I need to know what is still open for 2.0.0, "
     "can you list those tickets?", {"fix_version": ("2.0.0",), "open": (True,)}),
    ("Our PM asked me for a number for the meeting tomorrow. How many issues are open against fix version 3.1.1?",
     {"fix_version": ("3.1.1",), "open": (True,), }),
    # the story names the value the question points at ("that area", "their plate")
    ("I'm taking over planner from a colleague, so I'd like to see every ticket that's still open there",
     {"component": ("planner",), "open": (True,)}),
    ("Elena says she's overloaded; before I reassign anything I'd like to know how many open issues she has",
     {"assignee": (3,), "open": (True,)}),
    # a clause that tells "open or closed doesn't matter" leaves the state out
    ("how many issues carry the label backend, open or closed doesn't matter", {"label": ("backend",)}),
    ("¿qué incidencias siguen abiertas para la versión 2.0.0? Estoy cerrando el milestone y quiero ver qué queda",
     {"fix_version": ("2.0.0",), "open": (True,)}),
    ("I'm looking at planner today; list the open bug tickets there",
     {"issue_type": ("Bug",), "open": (True,), "component": ("planner",)}),
])
def test_the_story_around_a_question_gives_its_values_and_nothing_else(question, expected):
    assert where(read(question)) == expected


def test_a_question_in_one_clause_is_read_as_before():
    said = reader.read("which open bugs does Elena have in planner?", LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown
    assert clauses.situation(terms.fold("which open bugs does Elena have in planner?"), ["x"]) == []


@pytest.mark.parametrize("text, asks", [
    ("i need to cover for elena tomorrow", False), ("i need the count of open bugs", True),
    ("i'd like to see every open ticket", True), ("can you list them", True), ("i'm preparing the standup", False),
    ("¿qué queda", True), ("estoy cerrando el milestone", False), ("how many are open", True),
])
def test_a_clause_asks_by_its_opening(text, asks):
    assert [a for *_, a in clauses.clauses(text)][-1] is asks


@pytest.mark.parametrize("question, mine", [
    ("what am I working on?", True), ("what do I have due this week?", True), ("what must I wrap up by Friday?", True),
    ("which of my tickets should I work on first?", True), ("¿qué tengo pendiente yo?", True),
    ("¿qué me vence mañana?", True), ("am I behind on anything?", True), ("voy retrasado con algo?", True),
    ("I wonder which project has the most open bugs", False), ("I'm curious how many tickets ended up as Duplicate",
                                                               False),
    ("Our PM asked me for a number", False), ("I need to know the open count", False),
    ("estoy cerrando el milestone y quiero ver qué queda", False), ("¿me decís cuántos tickets siguen abiertos?", False),
])
def test_i_is_the_askers_work_only_as_the_one_who_holds_or_does_it(question, mine):
    assert tq.says_i(terms.fold(question)) is mine


def test_a_count_with_a_few_unknown_words_is_counted_as_a_guess():
    """No retrieved text counts: the typed query answers, marked guessed (with an LLM, context it may check)."""
    question = "give me the total number of tickets tagged backend for the retro slide"
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.unknown and not edits.confident(said)
    route = routing.route(question, None, Vocabulary(), TODAY, tracker=routing.Tracker(LEXICON, ASKER))
    assert route.kind == "tasks" and route.guessed and route.query is not None
    assert route.query.returns == "count" and {p.field: p.values for p in route.query.where} == {"label": ("backend",)}


def test_a_list_with_a_few_unknown_words_rides_along_retrieval_as_a_guess():
    """Retrieval reads it first; its query answers only if nothing retrieved covers it (chat_evidence)."""
    question = "give me the tickets tagged backend for the retro slide"
    route = routing.route(question, None, Vocabulary(), TODAY, tracker=routing.Tracker(LEXICON, ASKER))
    assert route.kind == "retrieve" and route.guessed and route.query is not None
    assert {p.field: p.values for p in route.query.where} == {"label": ("backend",)}


def test_a_negation_or_too_many_unknown_words_is_no_guess():
    tracker = routing.Tracker(LEXICON, ASKER)
    for question in ("how many open bugs are not in the planner but were moved by the intern team last spring?",
                     "what did the architecture review say about the open planner bugs and their migration plan?"):
        route = routing.route(question, None, Vocabulary(), dt.date(2026, 12, 6), tracker=tracker)
        assert route.kind != "retrieve" or route.query is None, question


@pytest.mark.parametrize("question", ["how many open tasks in Harbor Data model?",  # "model" beside a name
                                      "how many tickets are in Wave Zeta?"])  # a name the asker sees nowhere
def test_a_word_written_as_part_of_a_name_is_no_guess(question):
    """An unknown word beside a capitalised one is a value nobody here can see: no guess reads the rest."""
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.named_unknown
    route = routing.route(question, None, Vocabulary(), TODAY, tracker=routing.Tracker(LEXICON, ASKER))
    assert not route.guessed


def test_bare_relative_sprint_in_a_short_follow_up():
    for question, which in (("y el anterior?", "previous"), ("and the next one?", "next")):
        said = reader.read(question, LEXICON, ASKER, TODAY)
        assert said is not None and said.relative_sprint == which and edits.is_edit(said), question
    said = reader.read("which tickets were fixed before the release?", LEXICON, ASKER, TODAY)  # a question of its own
    assert said is not None and said.relative_sprint is None


@pytest.mark.parametrize("question, field", [
    ("Out of all projects, which one has the highest number of unresolved bug tickets?", "project"),
    ("of all the components, which has the fewest open issues?", "component"),
    ("componente de Harbor Storage con más tareas abiertas", "component"),  # the winner's field before a long name
])
def test_the_field_ranked_said_as_the_set_the_winner_comes_from(question, field):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.returns == "group" and said.group_by == field


def test_a_superlative_in_another_clause_is_no_order_of_the_verb():
    """"de lo que tengo abierto, ¿qué debería atacar primero?": priority, not the first opened."""
    said = reader.read("Oye, de lo que tengo abierto, ¿qué debería atacar primero?", LEXICON, ASKER, TODAY)
    assert said is not None and said.order == ("priority", True) and said.mine


def test_nobody_on_them_is_unassigned():
    query = read("I'm doing triage for Harbor Storage this week. First thing: how many open issues have nobody on "
                 "them?")
    assert query is not None and query.returns == "count"
    assert where(query) == {"assignee": (None,), "open": (True,), "project": (2,)}


def test_that_counted_is_the_last_questions_rows():
    """"y eso cuántos son" after a list counts its rows; "is it blocked?" stays about the focus."""
    last = read("open bugs in planner")
    said = reader.read("y eso cuántos son", LEXICON, ASKER, TODAY)
    assert said is not None and said.it and edits.is_edit(said)
    edited = edits.edit(last, said, LEXICON).query
    assert edited is not None and edited.returns == "count" and where(edited) == where(last)
    assert not edits.is_edit(reader.read("is it blocked?", LEXICON, ASKER, TODAY))


@pytest.mark.parametrize("question, field", [("no, I meant Elena", "assignee"), ("sorry, only the Major ones",
                                                                                  "priority_name"),
                                             ("perdón, en Harbor Storage", "project"),
                                             ("no wait, I meant Payments Platform", "project")])
def test_a_correction_edits_the_last_question(question, field):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.edit and field in said.fields and "no" not in said.unknown


def test_no_before_a_question_is_still_a_negation():
    said = reader.read("no bugs in Harbor Storage?", LEXICON, ASKER, TODAY)
    assert said is not None and not said.edit and "no" in said.unknown


@pytest.mark.parametrize("question, expected", [
    ("my top prio", {"assignee": (ASKER,), "open": (True,)}),
    ("open issues fix ver 3.1.1", {"fix_version": ("3.1.1",), "open": (True,)}),
    ("en HRB cuantos issues task unresolved quedan", {"issue_type": ("Task",), "project": (2,), "open": (True,)}),
    ("Hola, ¿me podrías listar los tickets abiertos del componente planner, por favor?",
     {"component": ("planner",), "open": (True,)}),  # "me podrías listar" asks; it is no "mine"
])
def test_shorthand_and_spanglish(question, expected):
    assert where(read(question)) == expected


def test_it_after_a_value_named_first_is_that_value():
    said = reader.read("2.0.0 — what bugs hit it?", LEXICON, ASKER, TODAY)
    assert said is not None and not said.it and said.fields >= {"affects_version", "issue_type"}


@pytest.mark.parametrize("question, expected", [
    ("Buenas tardes, ¿serías tan amable de mostrarme las incidencias abiertas cuya versión de corrección es la "
     "3.1.1? Muchas gracias.", {"fix_version": ("3.1.1",), "open": (True,)}),
    ("2.0.0 — what bugs hit it?", {"affects_version": ("2.0.0",), "issue_type": ("Bug",)}),
])
def test_polite_and_value_first(question, expected):
    assert where(read(question)) == expected


@pytest.mark.parametrize("question", ["prev sprint?", "filtra Major", "cuantos salen", "list", "ensename cuales"])
def test_terse_follow_ups_edit_the_last_question(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and edits.is_edit(said), question


@pytest.mark.parametrize("question, expected, group", [
    ("in HRB, by whom have the most issues been raised, and how many?", {"project": (2,)}, "reporter"),
    ("where are the open tickets piling up in HRB? which component, and how many", {"project": (2,), "open": (True,)},
     "component"),
    ("project with the highest number of open bug tickets, and how many", {"issue_type": ("Bug",), "open": (True,)},
     "project"),
])
def test_rankings_said_otherwise(question, expected, group):
    query = read(question)
    assert query is not None and query.group_by == group and where(query) == expected


@pytest.mark.parametrize("question, expected", [
    ("¿Cuántas incidencias del proyecto HRB están en estado Closed? Parece que se quedan atascadas ahí",
     {"status_name": ("Closed",), "project": (2,)}),  # the aside's "atascadas" is no predicate, "Parece" no topic
    ("how many Harbor Storage tickets have been left in Closed? feels like they get stuck there",
     {"project": (2,), "status_name": ("Closed",)}),  # "left in Closed": the status said wins over "left"
    ("qué issues se arreglaron en la 2.0.0?", {"fix_version": ("2.0.0",), "open": (False,)}),
    ("en Harbor Storage, cuantas issues de tipo bug siguen sin resolverse",
     {"project": (2,), "issue_type": ("Bug",), "open": (True,)}),
])
def test_asides_and_verbs_of_fixing(question, expected):
    assert where(read(question)) == expected


@pytest.mark.parametrize("question", ["pásame esas mismas", "show me those"])
def test_those_given_lists_the_last_rows(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.list_again and edits.is_edit(said)


@pytest.mark.parametrize("question, follows", [("who reported that one?", True), ("when was that one created?", True),
                                               ("the one about refunds?", False)])
def test_that_one_points_at_the_focus(question, follows):
    assert followup.is_follow_up(question) is follows


def test_a_long_name_alone_is_a_fragment_of_the_last_question():
    for question in ("Payments Platform?", "Elena Bianchi?"):
        said = reader.read(question, LEXICON, ASKER, TODAY)
        assert said is not None and said.fragment and edits.is_edit(said), question
    said = reader.read("open bugs in Harbor Storage", LEXICON, ASKER, TODAY)  # a question of its own
    assert said is not None and not edits.is_edit(said)


def test_a_value_named_before_a_dash_is_kept_and_a_digit_word_is_no_guess():
    """"Zeta Fix in Harbor Storage — how many issues?": a name the asker cannot see is no situation to drop;
    "open w/ i18n count" where nobody here has i18n is no guess about every open task."""
    said = reader.read("Won't Fix Zeta in Harbor Storage — how many issues?", LEXICON, ASKER, TODAY)
    assert said is not None and said.named_unknown
    route = routing.route("open w/ i19n count", None, Vocabulary(), TODAY, tracker=routing.Tracker(LEXICON, ASKER))
    assert not route.guessed


@pytest.mark.parametrize("question, expected", [
    ("do we still have open Harbor Storage issues nobody's picked up? how many?",
     {"project": (2,), "assignee": (None,), "open": (True,)}),
    ("hi, would you mind telling me how many issues in Harbor Storage have the status Closed? thanks!",
     {"project": (2,), "status_name": ("Closed",)}),  # "telling me" asks; it is no "mine"
])
def test_unclaimed_and_telling_me(question, expected):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None
    assert {p.field: p.window or p.values for p in said.predicates} == expected


@pytest.mark.parametrize("question", [
    "of everything assigned to me, which one is most important — highest priority and soonest deadline",
    "¿Cuál de mis incidencias abiertas es la más importante? La de mayor prioridad y que venza antes",
    "what's my most urgent issue?",
])
def test_the_most_important_is_by_priority_then_due_of_open_work(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.order == ("priority", True) and said.limit == 1
    assert {p.field: p.values for p in said.predicates} == {"assignee": (ASKER,), "open": (True,)}


@pytest.mark.parametrize("question", ["keep only the Major ones", "y solo las críticas?", "the Major ones only",
                                      "limit it to Major", "las Major nada más"])
def test_narrowing_said_anywhere_edits(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and edits.is_edit(said) and not said.unknown, question


@pytest.mark.parametrize("question", ["number?", "total?", "y cuántas serían?", "how many does that leave?"])
def test_a_figure_asked_alone_counts_the_last_rows(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.returns == "count" and edits.is_edit(said), question


@pytest.mark.parametrize("question", ["fixed issues in 2.0.0", "fixes in 2.0.0", "tickets solved in 2.0.0"])
def test_the_noun_and_participle_of_fixing_is_finished_work(question):
    assert where(read(question)) == {"fix_version": ("2.0.0",), "open": (False,)}


@pytest.mark.parametrize("question", ["previous one?", "one sprint back", "the sprint that came before"])
def test_the_previous_sprint_said_shortly(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.relative_sprint == "previous" and edits.is_edit(said)


@pytest.mark.parametrize("question", ["what's my number one priority", "what needs my attention first",
                                      "¿por dónde empiezo?"])
def test_the_askers_first_task_said_otherwise(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.order == ("priority", True) and said.mine and said.returns is None


def test_who_else_is_no_ranking_and_work_is_a_noun():
    said = reader.read("¿quién más ha puesto algo?", LEXICON, ASKER, TODAY)  # who else: comments, not "the most"
    assert said is not None and said.returns is None
    said = reader.read("¿hay trabajo sobre las notificaciones por correo?", LEXICON, ASKER, TODAY)
    assert said is not None and not said.mine  # "trabajo" is the work asked about, not "I work"
    said = reader.read("¿cuántos puntos de historia quedan en Harbor Storage?", LEXICON, ASKER, TODAY)
    assert said is not None and said.returns == "points" and edits.confident(said)
