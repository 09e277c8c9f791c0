"""RAG_ACCESS_RULE=project on both engines (issue 32): a developer also sees every task of a project they are a
member of — in every search mode, the typed tracker query (list, count, group-by, points, one field), lookups by
id and by key, and conversation memory — and a membership added or removed counts on the next question, with the
worker stopped. A task outside their projects reads exactly like one that does not exist."""

from __future__ import annotations

import pytest

from app.domain import Scope, TurnFacts
from app.rag.understanding.query import Predicate, TrackerQuery
from app.services import entities
from app.services.conversations import withdrawn
from tests.support import comment, drain_all, employee, project, task


@pytest.fixture
def team(engine):
    engine.access_rule = "project"
    ids = {"ana": employee(engine, "Ana", "Ruiz"), "bob": employee(engine, "Bob", "Stone"),
           "cy": employee(engine, "Cy", "Lee"), "mia": employee(engine, "Mia", "Boss", role="MANAGER")}
    ids["pay"] = project(engine, "Payments Platform", "Card payments")
    ids["ops"] = project(engine, "Ops", "Servers")
    ids["bobs"] = task(engine, "Refund webhook retries", "Retry refund webhooks on timeout",
                       assignee_id=ids["bob"], project_id=ids["pay"], story_points=5, external_key="PAY-7",
                       source="jira")
    ids["free"] = task(engine, "Refund ledger export", "Unassigned refund work", project_id=ids["pay"],
                       story_points=3)
    ids["ops_task"] = task(engine, "Refund server patching", "Patch the refund servers", assignee_id=ids["cy"],
                           project_id=ids["ops"], story_points=8, external_key="OPS-1", source="jira")
    ids["anas"] = task(engine, "Refund reports", "Ana's own refund reports", assignee_id=ids["ana"],
                       project_id=ids["ops"], story_points=1)
    comment(engine, ids["bobs"], "Refund retries need a backoff", author_id=ids["bob"])
    drain_all(engine)
    engine.put_project_member(ids["pay"], ids["ana"], "manual")
    return ids


def tasks_found(engine, employee_id, mode):
    caller = engine.caller(employee_id)
    hits = engine.search(engine.embed_query("refund"), "refund", caller, 20, Scope(), mode).hits
    return {h.source_id for h in hits if h.source_type == "task"}


@pytest.mark.parametrize("mode", ["vector", "lexical", "hybrid"])
def test_a_member_finds_every_task_of_their_project_and_nothing_of_others(engine, team, mode):
    assert tasks_found(engine, team["ana"], mode) == {team["bobs"], team["free"], team["anas"]}
    assert tasks_found(engine, team["cy"], mode) == {team["ops_task"]}  # a member of nothing: their own
    assert tasks_found(engine, team["mia"], mode) == {team["bobs"], team["free"], team["ops_task"], team["anas"]}


def test_under_the_assignee_rule_a_membership_grants_nothing(engine, team):
    engine.access_rule = "assignee"
    assert tasks_found(engine, team["ana"], "hybrid") == {team["anas"]}


def test_a_search_returns_its_k_best_visible_rows(engine, team):
    """k=1 in the member's project scope: the best visible row, never none because a hidden one ranked first."""
    caller = engine.caller(team["ana"])
    for scope in (Scope(project=team["pay"]), Scope(source_types=("task",))):
        for mode in ("vector", "lexical", "hybrid"):
            hits = engine.search(engine.embed_query("refund"), "refund", caller, 1, scope, mode).hits
            assert len(hits) == 1 and (hits[0].source_type, hits[0].source_id) != ("task", team["ops_task"])


def test_the_typed_query_counts_groups_and_lists_the_members_tasks(engine, team):
    ana = engine.caller(team["ana"])
    everything = engine.run_tracker_query(ana, TrackerQuery(returns="list"))
    assert {r["task_id"] for r in everything.rows} == {team["bobs"], team["free"], team["anas"]}
    counted = engine.run_tracker_query(ana, TrackerQuery(returns="count"))
    assert (counted.total, counted.points) == (3, 9.0)
    grouped = engine.run_tracker_query(ana, TrackerQuery(returns="group", group_by="project"))
    assert {g.key: g.count for g in grouped.groups} == {team["pay"]: 2, team["ops"]: 1}
    ops = engine.run_tracker_query(ana, TrackerQuery(where=(Predicate("project", (team["ops"],)),), returns="count"))
    assert ops.total == 1  # her own task there, not Cy's
    bobs = engine.run_tracker_query(ana, TrackerQuery(where=(Predicate("assignee", (team["bob"],)),), returns="list"))
    assert [r["task_id"] for r in bobs.rows] == [team["bobs"]]
    assert engine.run_tracker_query(engine.caller(team["cy"]), TrackerQuery(returns="count")).total == 1


def test_lookups_by_id_and_key_and_a_hidden_key_reads_as_missing(engine, team):
    ana = engine.caller(team["ana"])
    assert entities.lookup(engine, ana, ("task", team["bobs"])) is not None
    assert "backoff" in entities.text_of(entities.lookup(engine, ana, ("task", team["bobs"])))  # its comments
    assert entities.refs_by_key(engine, ana, ["PAY-7"]) == [("task", team["bobs"])]
    hidden, missing = entities.refs_by_key(engine, ana, ["OPS-1"]), entities.refs_by_key(engine, ana, ["OPS-999"])
    assert hidden == missing == []
    assert entities.lookup(engine, ana, ("task", team["ops_task"])) is None
    assert entities.lookup(engine, ana, ("task", 987_654_321)) is None


def test_a_membership_change_counts_at_once_with_the_worker_stopped(engine, team):
    engine.delete_project_member(team["pay"], team["ana"])
    assert tasks_found(engine, team["ana"], "hybrid") == {team["anas"]}
    assert entities.lookup(engine, engine.caller(team["ana"]), ("task", team["bobs"])) is None
    engine.put_project_member(team["ops"], team["ana"], "manual")
    assert tasks_found(engine, team["ana"], "vector") == {team["ops_task"], team["anas"]}
    assert engine.run_tracker_query(engine.caller(team["ana"]), TrackerQuery(returns="count")).total == 2
    engine.replace_project_members(team["ops"], "manual", [])
    assert tasks_found(engine, team["ana"], "lexical") == {team["anas"]}


def test_memory_resting_on_a_task_seen_through_a_membership_is_withdrawn_when_it_ends(engine, team):
    conv = engine.create_conversation(team["ana"], "all", None, None)
    engine.append_turn(conv.conversation_id, "what about PAY-7?", "Bob's refund retries", [f"[TASK #{team['bobs']}]"],
                       facts=TurnFacts(entities=(("task", team["bobs"]),)))
    history = engine.recent_messages(conv.conversation_id, 10)
    assert withdrawn(engine, engine.caller(team["ana"]), history) == set()
    engine.delete_project_member(team["pay"], team["ana"])
    assert withdrawn(engine, engine.caller(team["ana"]), history) == {history[1].message_id}


def test_the_explainer_names_the_membership_that_grants_a_task(engine, team):
    from app.services.access_explainer import explain_entity, explain_search

    ana = engine.caller(team["ana"])
    since = engine.project_membership(team["pay"], team["ana"]).added_at.date().isoformat()
    granted = explain_entity(engine, ana, "task", team["bobs"]).verdict
    assert granted.visible and granted.reason == f"member of Payments Platform since {since}"
    assert explain_entity(engine, ana, "task", team["anas"]).verdict.reason == "assigned to Ana Ruiz"
    hidden = explain_entity(engine, ana, "task", team["ops_task"]).verdict
    assert not hidden.visible and hidden.reason == "assigned to Cy Lee"
    searched = explain_search(engine, ana, "refund", 10, Scope(), "hybrid")
    assert {(e.hit.source_id, e.verdict.visible) for e in searched.visible if e.hit.source_type == "task"} == \
        {(team["bobs"], True), (team["free"], True), (team["anas"], True)}
    assert [e.hit.source_id for e in searched.withheld if e.hit.source_type == "task"] == [team["ops_task"]]
