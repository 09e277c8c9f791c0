"""The read path on both engines: the access rule inside the query, scopes, and no result loss."""

from __future__ import annotations

import pytest

from app.domain import Scope
from app.services.search import UnknownCallerError, resolve_caller, search
from tests.support import document, drain_all, employee, project, sprint, task


@pytest.fixture
def team(engine):
    """Two projects, two developers, a manager; tasks, sprints and documents on both sides."""
    ids = {
        "manager": employee(engine, "Mia", "Boss", role="MANAGER", telegram_id="tg-1"),
        "ana": employee(engine, "Ana", "Ruiz"),
        "leo": employee(engine, "Leo", "Diaz"),
    }
    ids["apollo"] = project(engine, "Apollo", "Customer portal")
    ids["hermes"] = project(engine, "Hermes", "Billing engine")
    ids["s1"] = sprint(engine, ids["apollo"], "Apollo sprint 1", "Login and SSO")
    ids["s2"] = sprint(engine, ids["hermes"], "Hermes sprint 1", "Invoices")
    ids["ana_tasks"] = [
        task(engine, f"Login bug {i}", "Users are redirected to the wrong page after login",
             assignee_id=ids["ana"], project_id=ids["apollo"], sprint_id=ids["s1"]) for i in range(6)
    ]
    ids["leo_tasks"] = [
        task(engine, f"Invoice rounding {i}", "Totals are off by one cent on invoices",
             assignee_id=ids["leo"], project_id=ids["hermes"], sprint_id=ids["s2"]) for i in range(6)
    ]
    ids["orphan"] = task(engine, "Unassigned login cleanup", "Nobody owns this login task yet",
                         project_id=ids["apollo"])
    ids["org_doc"] = document(engine, "Onboarding", "How we work: login to the VPN first.")
    ids["leo_doc"] = document(engine, "Leo's notes", "Private login notes", owner_id=ids["leo"])
    ids["loose"] = task(engine, "No project task", "Login page copy", assignee_id=ids["ana"])
    drain_all(engine)
    return ids


def keys(hits):
    return {(h.source_type, h.source_id) for h in hits}


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_developer_sees_only_what_the_rule_allows(engine, team, mode):
    ana = resolve_caller(engine, team["ana"])
    hits = search(engine, "login", ana, 50, mode=mode).result.hits
    visible_tasks = {("task", t) for t in team["ana_tasks"]} | {("task", team["loose"])}
    allowed = visible_tasks | {("project", team["apollo"]), ("project", team["hermes"]),
                               ("sprint", team["s1"]), ("sprint", team["s2"]), ("doc", team["org_doc"])}
    assert keys(hits) == allowed  # 50 > visible: everything visible comes back, nothing else
    assert ("task", team["orphan"]) not in keys(hits) and ("doc", team["leo_doc"]) not in keys(hits)


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_manager_sees_everything(engine, team, mode):
    manager = resolve_caller(engine, team["manager"])
    hits = search(engine, "login", manager, 100, mode=mode).result.hits
    assert ("task", team["orphan"]) in keys(hits) and ("doc", team["leo_doc"]) in keys(hits)
    assert len(hits) == 6 + 6 + 1 + 1 + 2 + 2 + 2  # every chunk


def test_role_comes_from_employees(engine, team):
    assert resolve_caller(engine, team["manager"]).sees_everything
    assert not resolve_caller(engine, team["ana"]).sees_everything
    assert resolve_caller(engine, telegram_id="tg-1").employee_id == team["manager"]
    with pytest.raises(UnknownCallerError):
        resolve_caller(engine, 987_654)


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_developer_gets_k_results_when_k_are_visible(engine, team, mode):
    """The invariant an approximate or post-filtered KNN breaks: k visible => k returned."""
    leo = resolve_caller(engine, team["leo"])
    for k in (1, 3, 7, 10):
        hits = search(engine, "login redirect", leo, k, mode=mode).result.hits
        assert len(hits) == k
    # Leo sees 6 tasks + 1 doc? no: his doc + org doc + 2 projects + 2 sprints + 6 tasks = 12 chunks.
    assert len(search(engine, "anything", leo, 100, mode=mode).result.hits) == 12


def test_scopes_combine(engine, team):
    manager = resolve_caller(engine, team["manager"])
    def run(scope):
        return keys(search(engine, "login invoice", manager, 100, scope, mode="vector").result.hits)

    apollo = run(Scope(project=team["apollo"]))
    assert apollo == ({("task", t) for t in team["ana_tasks"]} | {("task", team["orphan"]),
                      ("project", team["apollo"]), ("sprint", team["s1"])})
    assert run(Scope(project="none")) == {("task", team["loose"]), ("doc", team["org_doc"]),
                                          ("doc", team["leo_doc"])}
    assert run(Scope(sprint_id=team["s2"])) == {("task", t) for t in team["leo_tasks"]} | {("sprint", team["s2"])}
    assert run(Scope(project=team["hermes"], source_types=("sprint", "project"))) == {
        ("sprint", team["s2"]), ("project", team["hermes"])}
    assert run(Scope(source_types=("doc",))) == {("doc", team["org_doc"]), ("doc", team["leo_doc"])}


def test_scope_and_role_together(engine, team):
    ana = resolve_caller(engine, team["ana"])
    hits = search(engine, "login", ana, 100, Scope(project=team["hermes"]), mode="vector").result.hits
    assert keys(hits) == {("project", team["hermes"]), ("sprint", team["s2"])}


def test_hybrid_ranks_an_exact_keyword_match_first(engine, team):
    manager = resolve_caller(engine, team["manager"])
    t = task(engine, "Rotate the XK-42 signing key", "Quarterly key rotation")
    drain_all(engine)
    hits = search(engine, "XK-42", manager, 3, mode="hybrid").result.hits
    assert hits[0].source_id == t and hits[0].source_type == "task"
    assert all(h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_vector_results_ordered_by_distance(engine, team):
    manager = resolve_caller(engine, team["manager"])
    hits = search(engine, "invoice totals rounding", manager, 8, mode="vector").result.hits
    distances = [h.distance for h in hits]
    assert distances == sorted(distances)
    assert hits[0].source_id in team["leo_tasks"]


def test_reassigning_a_document_moves_its_visibility(engine, team):
    """Same text, new owner: the chunk must follow the owner, not be skipped as unchanged."""
    from app.entities import DOCUMENTS

    leo, ana = resolve_caller(engine, team["leo"]), resolve_caller(engine, team["ana"])
    doc = ("doc", team["leo_doc"])
    assert doc in keys(search(engine, "private notes", leo, 100, mode="vector").result.hits)
    engine.update(DOCUMENTS, team["leo_doc"], {"OWNER_EMPLOYEE_ID": team["ana"], "PROJECT_ID": team["apollo"]})
    drain_all(engine)
    assert doc not in keys(search(engine, "private notes", leo, 100, mode="vector").result.hits)
    assert doc in keys(search(engine, "private notes", ana, 100, Scope(project=team["apollo"]),
                              mode="vector").result.hits)
