"""The names a model's tool gives, resolved against a lexicon (app/services/tool_names.py): pure, so every edge
is checked directly; the MCP and chat tests (tests/api/test_query_tasks.py) run the same over real sockets."""

from __future__ import annotations

import datetime as dt

import pytest

from app.rag.understanding import lexicon as lexicons
from app.rag.understanding.lexicon import PersonFact, ProjectFact, SprintFact
from app.services import tool_names
from app.services.tool_names import Refused

TODAY = dt.date(2026, 12, 6)
LEXICON = lexicons.build(
    projects=[ProjectFact(1, "Payments Platform", "PAY"), ProjectFact(2, "Mobile App"), ProjectFact(3, "Mobile Web")],
    sprints=[SprintFact(10, "Sprint 1", 2, "CLOSED", dt.date(2026, 10, 1)),
             SprintFact(11, "Sprint 2", 2, "ACTIVE", dt.date(2026, 10, 15)),
             SprintFact(12, "Sprint 1", 3, "ACTIVE", dt.date(2026, 10, 1))],
    people=[PersonFact(1, "María José", "López"), PersonFact(2, "Ana", "Garcia"), PersonFact(3, "Ana", "Ruiz"),
            PersonFact(4, "Luis", "Perez", "lperez"), PersonFact(5, "Wu", "Chen", "557058:aa-bb")])
VALUES = {"status": ("IN_REVIEW", "TODO"), "issue_type": ("Bug", "Story"), "label": ("needs-triage", "ui"),
          "fix_version": ("2.0", "2.0.0"), "component": ()}


@pytest.mark.parametrize("said, expected", [(1, 1), ("1", 1), ("PAY", 1), ("pay", 1), ("payments platform", 1),
                                            ("payments", 1), ("MOBILE APP", 2), ("mobile web", 3)])
def test_a_project_by_id_key_name_or_its_own_word(said, expected):
    assert tool_names.project(LEXICON, said) == expected


@pytest.mark.parametrize("said, words", [("mobile", ["Mobile App (id 2)", "Mobile Web (id 3)", "several"]),
                                         ("Nowhere", ["search_projects", "Payments Platform"]),
                                         (99, ["no project #99", "search_projects"]), (True, ["name, key or id"])])
def test_a_project_not_named_once_is_refused_with_candidates(said, words):
    with pytest.raises(Refused) as refused:
        tool_names.project(LEXICON, said)
    assert all(w in str(refused.value) for w in words), str(refused.value)


def test_sprints_by_name_id_and_relative_to_a_project():
    assert tool_names.sprint(LEXICON, "sprint 1", 3, TODAY) == 12
    assert tool_names.sprint(LEXICON, 11, None, TODAY) == 11
    assert tool_names.sprint(LEXICON, "current", 2, TODAY) == 11
    assert tool_names.sprint(LEXICON, "Previous", 2, TODAY) == 10
    for said, project, words in [("Sprint 1", None, ["id 10", "id 12", "Mobile App", "Mobile Web"]),
                                 ("current", None, ["give project"]), ("next", 2, ["no next sprint"]),
                                 ("Sprint 9", 2, ["Sprint 1", "Sprint 2"])]:
        with pytest.raises(Refused) as refused:
            tool_names.sprint(LEXICON, said, project, TODAY)
        assert all(w in str(refused.value) for w in words), str(refused.value)


@pytest.mark.parametrize("said, expected", [(None, None), ("me", 9), (2, 2), ("maria jose lopez", 1),
                                            ("María", 1), ("lopez", 1), ("ana garcia", 2), ("lperez", 4),
                                            ("Chen", 5)])
def test_a_person_by_name_login_id_or_me(said, expected):
    assert tool_names.person(LEXICON, said, asker_id=9) == expected


@pytest.mark.parametrize("said, words", [("Ana", ["Ana Garcia (id 2)", "Ana Ruiz (id 3)"]),
                                         ("Anna Garsia", ["Ana Garcia"]), ("557058:aa-bb", ["no employee"]),
                                         (77, ["no employee #77"])])
def test_a_person_not_named_once_is_refused_with_candidates(said, words):
    with pytest.raises(Refused) as refused:
        tool_names.person(LEXICON, said, asker_id=9)
    assert all(w in str(refused.value) for w in words), str(refused.value)


@pytest.mark.parametrize("name, said, expected", [("status", "in review", "IN_REVIEW"), ("status", "todo", "TODO"),
                                                  ("issue_type", "bugs", "Bug"), ("issue_type", "stories", "Story"),
                                                  ("label", "NEEDS-TRIAGE", "needs-triage"),
                                                  ("fix_version", "2.0", "2.0"), ("resolution", None, None)])
def test_a_value_is_one_the_visible_tasks_hold(name, said, expected):
    assert tool_names.value(VALUES, name, said) == expected


def test_an_unknown_value_lists_the_closest_first_and_an_empty_field_says_so():
    with pytest.raises(Refused) as refused:
        tool_names.value(VALUES, "label", "needs triage!")
    assert str(refused.value).endswith("(the label values: needs-triage, ui)")
    with pytest.raises(Refused) as refused:
        tool_names.value(VALUES, "component", "API")
    assert str(refused.value) == "no task the asker may see has any component"
    with pytest.raises(Refused):
        tool_names.value(VALUES, "fix_version", "2")  # "2" is not the start of "2.0"
