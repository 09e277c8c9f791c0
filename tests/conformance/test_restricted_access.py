"""A task the tracker restricts (TASKS.RESTRICTED: a Jira issue-security level) under RAG_ACCESS_RULE=project, on
both engines (issue 32, "Synced from the tracker"): no project membership grants it, so a member of its project sees
it nowhere — search (vector, lexical, hybrid; k best visible rows), the typed tracker query (list, count, group-by),
lookups by id and by key (it reads as a missing key), its comments, a link's target — while its assignee, managers
and admins still do. Setting or clearing the flag counts on the writer's commit, with the worker stopped."""

from __future__ import annotations

import pytest

from app.domain import Scope, TurnFacts
from app.rag.understanding.query import TrackerQuery
from app.records_model import TaskLink
from app.services import entities
from app.services.conversations import withdrawn
from tests.support import comment, drain_all, employee, project, task


def restrict(engine, task_id: int, flag: bool = True) -> bool:
    with engine.batch() as tx:
        return tx.set_task_restricted(task_id, flag)


@pytest.fixture
def team(engine):
    engine.access_rule = "project"
    ids = {"ana": employee(engine, "Ana", "Ruiz"), "bob": employee(engine, "Bob", "Stone"),
           "mia": employee(engine, "Mia", "Boss", role="MANAGER")}
    ids["pay"] = project(engine, "Payments Platform", "Card payments")
    ids["open"] = task(engine, "Refund webhook retries", "Retry refund webhooks on timeout",
                       assignee_id=ids["bob"], project_id=ids["pay"], story_points=5, external_key="PAY-7",
                       source="jira")
    ids["secret"] = task(engine, "Refund fraud rules", "Refund fraud thresholds, embargoed",
                         assignee_id=ids["bob"], project_id=ids["pay"], story_points=8, external_key="PAY-8",
                         source="jira")
    ids["secret_free"] = task(engine, "Refund chargeback audit", "Unassigned refund audit, embargoed",
                              project_id=ids["pay"], story_points=2, external_key="PAY-9", source="jira")
    comment(engine, ids["secret"], "Refund fraud limit is 900 euros", author_id=ids["bob"])
    with engine.batch() as tx:
        tx.replace_task_links(ids["open"], [TaskLink("BLOCKED_BY", "PAY-8")])
    drain_all(engine)  # the chunks are indexed before the flag is set: the flag needs no worker
    engine.put_project_member(ids["pay"], ids["ana"], "manual")
    assert restrict(engine, ids["secret"]) and restrict(engine, ids["secret_free"])
    return ids


def tasks_found(engine, employee_id, mode, k=20, scope=Scope()):
    hits = engine.search(engine.embed_query("refund"), "refund", engine.caller(employee_id), k, scope, mode).hits
    return [h.source_id for h in hits if h.source_type == "task"]


@pytest.mark.parametrize("mode", ["vector", "lexical", "hybrid"])
def test_a_member_does_not_find_a_restricted_task_its_assignee_and_a_manager_do(engine, team, mode):
    assert set(tasks_found(engine, team["ana"], mode)) == {team["open"]}
    assert set(tasks_found(engine, team["bob"], mode)) == {team["open"], team["secret"]}  # assigned: still his
    assert set(tasks_found(engine, team["mia"], mode)) == {team["open"], team["secret"], team["secret_free"]}


@pytest.mark.parametrize("mode", ["vector", "lexical", "hybrid"])
def test_a_members_search_returns_its_k_best_visible_rows(engine, team, mode):
    """k=1 among the project's tasks: the one visible task, never none because a restricted one ranked first."""
    assert tasks_found(engine, team["ana"], mode, 1, Scope(project=team["pay"], source_types=("task",))) == \
        [team["open"]]


def test_the_typed_query_neither_lists_counts_nor_groups_a_restricted_task(engine, team):
    ana, bob = engine.caller(team["ana"]), engine.caller(team["bob"])
    assert [r["task_id"] for r in engine.run_tracker_query(ana, TrackerQuery(returns="list")).rows] == [team["open"]]
    counted = engine.run_tracker_query(ana, TrackerQuery(returns="count"))
    assert (counted.total, counted.points) == (1, 5.0)
    grouped = engine.run_tracker_query(ana, TrackerQuery(returns="group", group_by="project"))
    assert {g.key: g.count for g in grouped.groups} == {team["pay"]: 1}
    assert engine.run_tracker_query(bob, TrackerQuery(returns="count")).total == 2
    assert engine.run_tracker_query(engine.caller(team["mia"]), TrackerQuery(returns="count")).total == 3


def test_a_restricted_key_reads_as_missing_and_its_comments_and_link_target_are_not_shown(engine, team):
    ana = engine.caller(team["ana"])
    assert entities.refs_by_key(engine, ana, ["PAY-8"]) == entities.refs_by_key(engine, ana, ["PAY-999"]) == []
    assert entities.lookup(engine, ana, ("task", team["secret"])) is None
    assert entities.refs_by_key(engine, ana, ["PAY-7"]) == [("task", team["open"])]
    linked = entities.lookup(engine, ana, ("task", team["open"]))
    targets = [("task", link.target_task_id) for link in linked.links]
    assert targets == [("task", team["secret"])] and entities.visible(engine, ana, targets) == {}
    bobs = entities.lookup(engine, engine.caller(team["bob"]), ("task", team["secret"]))
    assert "900 euros" in entities.text_of(bobs)  # the assignee reads it with its comments


def test_setting_and_clearing_the_flag_counts_at_once_with_the_worker_stopped(engine, team):
    assert restrict(engine, team["secret"], False) is True and restrict(engine, team["secret"], False) is False
    assert set(tasks_found(engine, team["ana"], "hybrid")) == {team["open"], team["secret"]}
    assert entities.refs_by_key(engine, engine.caller(team["ana"]), ["PAY-8"]) == [("task", team["secret"])]
    assert engine.run_tracker_query(engine.caller(team["ana"]), TrackerQuery(returns="count")).total == 2
    assert restrict(engine, team["open"]) is True
    assert set(tasks_found(engine, team["ana"], "vector")) == {team["secret"]}
    assert set(tasks_found(engine, team["ana"], "lexical")) == {team["secret"]}
    assert entities.lookup(engine, engine.caller(team["ana"]), ("task", team["open"])) is None


def test_under_the_assignee_rule_the_flag_changes_nothing(engine, team):
    engine.access_rule = "assignee"
    assert set(tasks_found(engine, team["bob"], "hybrid")) == {team["open"], team["secret"]}
    assert set(tasks_found(engine, team["ana"], "hybrid")) == set()


def test_the_explainer_says_why_a_restricted_task_is_withheld(engine, team):
    from app.services.access_explainer import explain_entity

    hidden = explain_entity(engine, engine.caller(team["ana"]), "task", team["secret"]).verdict
    assert not hidden.visible and hidden.reason == "restricted in the tracker: its assignee, managers and admins only"
    assert explain_entity(engine, engine.caller(team["bob"]), "task", team["secret"]).verdict.visible


def test_memory_resting_on_a_task_is_withdrawn_when_the_tracker_restricts_it(engine, team):
    conv = engine.create_conversation(team["ana"], "all", None, None)
    engine.append_turn(conv.conversation_id, "what about PAY-7?", "Bob's refund retries", [f"[TASK #{team['open']}]"],
                       facts=TurnFacts(entities=(("task", team["open"]),)))
    history = engine.recent_messages(conv.conversation_id, 10)
    assert withdrawn(engine, engine.caller(team["ana"]), history) == set()
    restrict(engine, team["open"])
    assert withdrawn(engine, engine.caller(team["ana"]), history) == {history[1].message_id}
