"""Wordings of development sets 12–14 (issue 31), each a rule of reading: a question inside a context ("for the
standup: …", "estoy revisando el área X: …"), requests and greetings with a vocative ("Hi team bot, kindly share …"),
the finished said as included ("including resolved ones"), "nº de", nobody having picked work up, narrowing said
with a verb, the sprint before said as "the earlier one", whose plate is fullest, and a modal's "first".
Pure: the reader on a test lexicon."""

from __future__ import annotations

import pytest

from app.rag.understanding import edits, reader, spelling

from tests.unit.test_tracker_reader_words import ASKER, LEXICON, TODAY, read, where


@pytest.mark.parametrize("question, expected", [
    # a clause of context before the one that reads, without a question mark
    ("for the standup: open tickets in Harbor Storage pls", {"project": (2,), "open": (True,)}),
    # the asker's own doing is no status of the tasks
    ("Buenas, estoy revisando el área planner: ¿qué incidencias Improvement siguen sin cerrar?",
     {"component": ("planner",), "issue_type": ("Improvement",), "open": (True,)}),
    ("I'm closing out the week: which Harbor Storage tickets are still open?", {"project": (2,), "open": (True,)}),
    # a greeting's vocative and a request said with "kindly share"
    ("Hi team bot, kindly share the open tickets of Harbor Storage", {"project": (2,), "open": (True,)}),
    ("issues pendientes con el label backend x fa", {"label": ("backend",), "open": (True,)}),
    ("lista de issues con el tag backend que sigan sin cerrar porfa", {"label": ("backend",), "open": (True,)}),
])
def test_a_question_said_inside_its_context(question, expected):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown and edits.confident(said)
    assert where(read(question)) == expected


@pytest.mark.parametrize("question", [
    "how many issues carry the backend tag, including resolved ones?",
    "Oye, ¿cuántos tickets llevan el tag backend, contando también los ya resueltos?",
    "¿cuántos issues llevan el tag backend, incluso los ya cerrados?",
    "nº de issues etiquetadas backend, abiertas y cerradas tb",
    "count of backend issues, open and resolved",
])
def test_the_finished_said_as_included_is_every_state(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown and said.returns == "count"
    assert where(read(question)) == {"label": ("backend",)}


def test_the_finished_alone_still_filters():
    assert where(read("how many backend issues are resolved?")) == {"label": ("backend",), "status": ("DONE",)}


@pytest.mark.parametrize("question", [
    "how many issues in Harbor Storage are still open and nobody has picked them up?",
    "Harbor Storage: nº de issues abiertas sin responsable?",
    "¿Cuántas incidencias siguen abiertas en Harbor Storage sin que nadie las tenga asignadas?",
    "which open Harbor Storage tickets has no one taken?",
])
def test_nobody_having_taken_work_on_is_unassigned(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown and not said.those
    assert where(read(question)) == {"project": (2,), "assignee": (None,), "open": (True,)}


def test_no_said_as_a_negation_is_no_count():
    said = reader.read("no de Ana, las de Elena", LEXICON, ASKER, TODAY)
    assert said is not None and said.returns != "count"


@pytest.mark.parametrize("follow_up", ["Can you narrow that down to minor priority?", "filter it to minor",
                                       "filtra por minor"])
def test_narrowing_said_with_a_verb_edits_the_last_question(follow_up):
    last = read("open bugs in planner")
    assert where(read(follow_up, last)) == {"issue_type": ("Bug",), "component": ("planner",),
                                            "priority_name": ("Minor",), "open": (True,)}


@pytest.mark.parametrize("follow_up", ["ok and the earlier one in that project?", "the prior one?",
                                       "what about the earlier sprint"])
def test_the_sprint_before_said_as_the_earlier_one(follow_up):
    said = reader.read(follow_up, LEXICON, ASKER, TODAY)
    assert said is not None and said.relative_sprint == "previous" and edits.confident(said)


@pytest.mark.parametrize("question", ["whose plate is fullest there?", "who's busiest of those?", "who is the busiest?",
                                      "¿quién está más cargado?"])
def test_whose_plate_is_fullest_ranks_assignees_by_their_open_work(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and (said.returns, said.group_by) == ("group", "assignee") and not said.unknown
    assert [p.field for p in said.predicates] == ["open"]


@pytest.mark.parametrize("question", ["¿Qué ticket abierto mío debería atender primero?", "my most critical open jira?",
                                      "which of my open tickets should I handle first?"])
def test_the_one_to_take_up_first_is_the_most_important(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and (said.order, said.limit) == (("priority", True), 1) and not said.unknown


def test_a_date_verb_with_first_and_no_modal_is_still_a_date_order():
    said = reader.read("which of my tickets was opened first?", LEXICON, ASKER, TODAY)
    assert said is not None and said.order == ("created", False)


def test_a_clause_with_words_the_reader_knows_is_no_situation():
    said = reader.read("planner bugs still open - assigned to me for sprintplanning", LEXICON, ASKER, TODAY)
    assert said is not None and "sprintplanning" in said.unknown and not edits.confident(said)
    assert {p.field for p in said.predicates} >= {"assignee", "component", "open"}


@pytest.mark.parametrize("question, expected", [
    # a purpose set off by a colon: its date is the meeting's
    ("Para la revisión de mañana: las issues abiertas con la etiqueta backend.", {"label": ("backend",), "open": (True,)}),
    ("For the sprint review: open issues in Harbor Storage.", {"project": (2,), "open": (True,)}),
    # dictated: fillers, a word taken back, the engines' own tie-break said as a condition
    ("okay so um in Harbor Storage how many open bugs, I mean issues, don't have an owner yet so yeah just the number",
     {"project": (2,), "assignee": (None,), "open": (True,)}),
    ("bueno este que hay abierto en Harbor Storage o sea lo que no se cerro", {"project": (2,), "open": (True,)}),
    # a sentence's first word is capitalised whatever it is: "Open" is no status as the tracker writes it
    ("Open issues with label backend, please.", {"label": ("backend",), "open": (True,)}),
])
def test_dictated_and_purposeful_wordings(question, expected):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and not said.unknown
    assert where(read(question)) == expected


@pytest.mark.parametrize("question", ["how many HRB issues are Open?", "Open in HRB, how many?"])
def test_a_status_written_as_stored_is_the_trackers_unless_it_opens_a_sentence_before_a_noun(question):
    assert where(read(question)) == {"project": (2,), "status_name": ("Open",)}


def test_a_word_of_this_year_is_no_filler():
    said = reader.read("¿Cuántas incidencias se crearon en Harbor Storage este año?", LEXICON, ASKER, TODAY)
    assert said is not None and [p.field for p in said.predicates if p.window] == ["created"]


@pytest.mark.parametrize("question", [
    "um how many tickets have the backend label like in total not just open ones, all of them",
    "tío, ¿cuántas incidencias tienen la etiqueta backend? me da igual si están cerradas",
])
def test_every_state_said_as_not_only_the_open_ones(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and said.returns == "count" and said.any_state
    assert {p.field for p in said.predicates} == {"label"}


def test_how_many_open_in_total_keeps_the_open_ones():
    assert where(read("how many open bugs in total?")) == {"issue_type": ("Bug",), "open": (True,)}


@pytest.mark.parametrize("question", [
    "hey so yeah what's my most urgent issue like highest priority and uh if there's a few then whichever deadline "
    "comes first", "tío, de todo lo que tengo abierto, ¿qué es lo primero que debería atender?"])
def test_the_most_urgent_with_its_tie_break_said(question):
    said = reader.read(question, LEXICON, ASKER, TODAY)
    assert said is not None and (said.order, said.limit) == (("priority", True), 1) and not said.unknown


@pytest.mark.parametrize("typed, meant", [
    ("open issues in sprnt planning", "open issues in sprint planning"), ("and the prevous sprint?", "and the previous sprint?"),
    ("list open issues for compnent planner", "list open issues for component planner"),
    ("q tickets siguen abiertsa?", "q tickets siguen abiertas?"), ("assinged to me", "assigned to me")])
def test_a_word_one_slip_from_a_known_word_is_read_as_it(typed, meant):
    assert spelling.corrected(typed, frozenset()) == meant


@pytest.mark.parametrize("word", ["writing", "cerrando", "curro", "Parece", "close", "haven't", "Tariq", "v2.1x",
                                  "storage-engne"])
def test_a_real_word_an_ending_a_name_or_a_value_is_no_slip(word):
    assert spelling.corrected(word, spelling.data_words(LEXICON) | {"tariq"}) == word


def test_the_datas_own_words_are_never_corrected():
    assert spelling.corrected("plannr", frozenset({"plannr"})) == "plannr"


@pytest.mark.parametrize("follow_up", ["previous sprint instead", "y el de antes, digo el anterior"])
def test_the_sprint_before_said_with_instead_or_twice(follow_up):
    said = reader.read(follow_up, LEXICON, ASKER, TODAY)
    assert said is not None and said.edit and said.relative_sprint == "previous" and not said.unknown


def test_who_carries_most_ranks_assignees():
    said = reader.read("quien carga con mas", LEXICON, ASKER, TODAY)
    assert said is not None and (said.returns, said.group_by) == ("group", "assignee") and not said.unknown
