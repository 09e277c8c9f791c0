"""PROJECT_MEMBERS on both engines (issue 32): the writers, the list, a sync's replace, the cascades, and the
caller each engine resolves under RAG_ACCESS_RULE=project."""

from __future__ import annotations

import datetime as dt

import pytest

from app.domain import Role
from app.entities import EMPLOYEES, PROJECTS
from tests.support import employee, project


@pytest.fixture
def team(engine):
    ids = {name: employee(engine, name.title(), "Dev") for name in ("ana", "bob", "cy", "dee")}
    ids["boss"] = employee(engine, "Mia", "Boss", role="MANAGER")
    ids["pay"] = project(engine, "Payments Platform")
    ids["ops"] = project(engine, "Ops")
    return ids


def test_put_is_idempotent_and_keeps_the_first_date(engine, team):
    first = engine.put_project_member(team["pay"], team["ana"], "manual")
    assert (first.project_id, first.employee_id, first.source) == (team["pay"], team["ana"], "manual")
    assert isinstance(first.added_at, dt.datetime)
    again = engine.put_project_member(team["pay"], team["ana"], "jira")
    assert again.added_at == first.added_at and again.source == "jira"
    assert engine.project_membership(team["pay"], team["ana"]) == again
    assert engine.project_members(team["pay"], limit=10).total == 1


def test_unknown_project_or_employee_is_none_and_a_bad_source_is_refused(engine, team):
    assert engine.put_project_member(10**9, team["ana"], "manual") is None
    assert engine.put_project_member(team["pay"], 10**9, "manual") is None
    assert engine.project_members(10**9, limit=10) is None
    with pytest.raises(ValueError):
        engine.put_project_member(team["pay"], team["ana"], "ldap")
    assert engine.project_members(team["pay"], limit=10).total == 0


def test_delete_says_whether_a_row_went(engine, team):
    engine.put_project_member(team["pay"], team["bob"], "manual")
    assert engine.delete_project_member(team["pay"], team["bob"]) is True
    assert engine.delete_project_member(team["pay"], team["bob"]) is False
    assert engine.project_membership(team["pay"], team["bob"]) is None


def test_the_list_pages_by_employee_id(engine, team):
    people = [team["ana"], team["bob"], team["cy"], team["dee"]]
    for person in reversed(people):
        engine.put_project_member(team["pay"], person, "manual")
    first = engine.project_members(team["pay"], limit=3)
    assert [m.employee_id for m in first.items] == people[:3] and first.total == 4 and first.more
    rest = engine.project_members(team["pay"], limit=3, after=first.items[-1].employee_id)
    assert [m.employee_id for m in rest.items] == people[3:] and not rest.more
    by_offset = engine.project_members(team["pay"], limit=2, offset=2)
    assert [m.employee_id for m in by_offset.items] == people[2:]


def test_replace_sets_one_sources_members_and_never_touches_anothers(engine, team):
    engine.put_project_member(team["pay"], team["ana"], "manual")
    assert engine.replace_project_members(team["pay"], "jira", [team["ana"], team["bob"], team["cy"]]) == (2, 0)
    assert engine.project_membership(team["pay"], team["ana"]).source == "manual"  # not taken over
    assert engine.replace_project_members(team["pay"], "jira", [team["cy"], team["dee"], 10**9]) == (1, 1)
    members = {m.employee_id: m.source for m in engine.project_members(team["pay"], limit=10).items}
    assert members == {team["ana"]: "manual", team["cy"]: "jira", team["dee"]: "jira"}
    assert engine.replace_project_members(team["pay"], "jira", []) == (0, 2)
    assert engine.replace_project_members(team["pay"], "jira", []) == (0, 0)
    with pytest.raises(LookupError):
        engine.replace_project_members(10**9, "jira", [team["ana"]])


def test_memberships_go_with_their_project_and_their_employee(engine, team):
    engine.put_project_member(team["pay"], team["ana"], "manual")
    engine.put_project_member(team["ops"], team["ana"], "manual")
    engine.put_project_member(team["ops"], team["bob"], "manual")
    engine.delete(PROJECTS, team["ops"])
    assert engine.project_membership(team["ops"], team["bob"]) is None
    engine.delete(EMPLOYEES, team["ana"])
    assert engine.project_members(team["pay"], limit=10).total == 0


def test_the_caller_carries_their_projects_only_under_the_project_rule(engine, team):
    engine.put_project_member(team["pay"], team["ana"], "manual")
    engine.put_project_member(team["pay"], team["boss"], "manual")
    assert engine.caller(team["ana"]).member_projects is None  # the default rule: assignee
    engine.access_rule = "project"
    assert engine.caller(team["ana"]).member_projects == frozenset({team["pay"]})
    assert engine.caller(team["bob"]).member_projects == frozenset()
    boss = engine.caller(team["boss"])
    assert boss.role is Role.MANAGER and boss.member_projects is None  # sees everything anyway
    engine.delete_project_member(team["pay"], team["ana"])
    assert engine.caller(team["ana"]).member_projects == frozenset()  # at once


def test_erasing_an_employee_removes_their_memberships_and_the_proof_passes(engine, team):
    from app.services.erasure import erase_employee
    from tests.support import drain_all

    engine.put_project_member(team["pay"], team["ana"], "jira")
    engine.put_project_member(team["pay"], team["bob"], "manual")
    result = erase_employee(engine, team["ana"], lambda: drain_all(engine))
    assert result.ok, result.failures
    assert [m.employee_id for m in engine.project_members(team["pay"], limit=10).items] == [team["bob"]]
    assert engine.project_membership(team["pay"], team["ana"]) is None
