"""Questions by tracker key (issue 24): "what is the status of PAY-1210?", "PAY-1210", "who commented on
PAY-1210?", "what blocks PAY-1210?" are lookups under the access rule, offline and through the model's
get_entity tool (the loopback LLM, tests/fake_llm.py); a key the asker may not see answers exactly like a key
no task has. The tasks are imported through the engine's own write path and indexed by the real worker."""

from __future__ import annotations

import json

import pytest

from app.config import Settings
from app.domain import Scope
from app.records_model import TaskLink
from app.engines.sqlite.engine import SQLiteEngine
from app.entities import COMMENTS, TASKS
from app.worker import Worker
from tests.fake_llm import FakeLLM, Reply
from tests.support import employee, project

from .chat_data import AUTH, client_for, llm_settings, tool_result

JIRA = "jira:https://acme.atlassian.net"


@pytest.fixture(scope="module")
def imported(tmp_path_factory, embedder):
    path = tmp_path_factory.mktemp("keys") / "keys.db"
    settings = Settings(_env_file=None, database_url=f"sqlite:///{path}", api_tokens="test-token", run_worker=False,
                        backfill_on_startup=False)
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    ids = {"ana": employee(engine, "Ana", "Garcia"), "diego": employee(engine, "Diego", "Ruiz"),
           "chen": employee(engine, "Chen", "Wei"), "payments": project(engine, "Payments Platform")}
    with engine.batch() as tx:  # one page of an import
        ids["pay1210"] = tx.create(TASKS, {
            "TITLE": "Refund fails for partial captures", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-1210",
            "ISSUE_TYPE": "Bug", "STATUS": "IN_REVIEW", "STATUS_NAME": "In QE Test", "PRIORITY": "HIGH",
            "ASSIGNEE_ID": ids["ana"], "PROJECT_ID": ids["payments"]})["task_id"]
        ids["pay56"] = tx.create(TASKS, {
            "TITLE": "Settlement ledger outage", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-56", "STATUS": "IN_PROGRESS",
            "ASSIGNEE_ID": ids["diego"], "PROJECT_ID": ids["payments"]})["task_id"]
        ids["pay57"] = tx.create(TASKS, {
            "TITLE": "Chargeback export", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-57", "STATUS": "TODO",
            "ASSIGNEE_ID": ids["diego"], "PROJECT_ID": ids["payments"]})["task_id"]
        tx.create(COMMENTS, {"TASK_ID": ids["pay1210"], "AUTHOR_ID": ids["chen"], "BODY": "Blocked until the PSP "
                             "answers our ticket.", "CREATED_AT": "2026-11-20T09:15:00", "SOURCE": JIRA,
                             "EXTERNAL_KEY": "10042"})
        tx.replace_task_links(ids["pay1210"], [TaskLink("BLOCKED_BY", "PAY-56")])
        tx.set_sync_cursor(JIRA, "2026-11-21T00:00:00.000+0000")
    assert Worker(engine, settings).run_once().failed == 0
    try:
        yield engine, settings, ids
    finally:
        engine.close()


@pytest.fixture(scope="module")
def offline(imported):
    engine, settings, _ = imported
    with client_for(settings, engine) as c:
        yield c


def ask(c, who, message):
    response = c.post("/api/v1/chat", json={"employee_id": who, "message": message}, headers=AUTH)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("question, route", [
    ("what is the status of PAY-1210?", "lookup"), ("PAY-1210", "lookup"), ("who commented on PAY-1210?", "comments"),
    ("what blocks PAY-1210?", "blockers"), ("¿cuál es el estado de PAY-1210?", "lookup")])
def test_a_key_the_asker_may_see_is_a_lookup_of_that_task(offline, imported, question, route):
    _, _, ids = imported
    answer = ask(offline, ids["ana"], question)
    assert answer["route"] == route, answer
    if route == "blockers":  # the stored "is blocked by" link answers it, by key (its target may be hidden)
        assert "Blocked by: PAY-56" in answer["answer"] and "Settlement ledger" not in answer["answer"]
    assert f"[TASK #{ids['pay1210']}]" in answer["citations"]
    assert any(r["source_type"] == "task" and r["source_id"] == ids["pay1210"] for r in answer["results"])


def test_the_looked_up_task_reads_with_its_key_status_name_link_and_comment_author(offline, imported):
    engine, _, ids = imported
    text = engine.load_records("task", [ids["pay1210"]])
    question = "refund partial captures"
    hits = engine.search(engine.embed_query(question), question, engine.caller(ids["ana"]), 5, Scope(), "hybrid").hits
    chunk = "\n".join(h.content for h in hits if h.source_id == ids["pay1210"])
    assert f"[TASK #{ids['pay1210']}] PAY-1210 (Bug) Refund fails for partial captures" in chunk
    assert "Status: IN_REVIEW (In QE Test)" in chunk and "Blocked by: PAY-56" in chunk
    assert "- Chen Wei (2026-11-20): Blocked until the PSP answers our ticket." in chunk
    assert "Settlement ledger outage" not in chunk  # a link names its target by key, never by its title
    assert text[ids["pay1210"]].comments[0].author_name == "Chen Wei"


def test_a_hidden_key_answers_exactly_like_an_unknown_one(offline, imported):
    engine, settings, ids = imported
    question = "what is the status of OPS-77?"
    before = ask(offline, ids["ana"], question)  # no task has the key
    hidden = engine.create(TASKS, {"TITLE": "Rotate the HSM keys", "SOURCE": JIRA, "EXTERNAL_KEY": "OPS-77",
                                   "STATUS": "TODO", "ASSIGNEE_ID": ids["diego"]})["task_id"]
    Worker(engine, settings).run_once()
    try:
        after = ask(offline, ids["ana"], question)  # Diego's task has it now
        assert ask(offline, ids["diego"], question)["route"] == "lookup"  # his own: found
    finally:
        engine.delete(TASKS, hidden)
        Worker(engine, settings).run_once()
    shown = ("answer", "route", "citations")
    assert {k: after[k] for k in shown} == {k: before[k] for k in shown}
    assert not any(r["source_type"] == "task" and r["source_id"] == hidden for r in after["results"])


def test_a_hidden_key_named_by_a_visible_link_finds_only_the_visible_task(offline, imported):
    _, _, ids = imported
    answer = ask(offline, ids["ana"], "what is the status of PAY-56?")  # Diego's, but her task is blocked by it
    assert answer["route"] == "retrieve"  # not a lookup of the hidden task
    assert not any(r["source_type"] == "task" and r["source_id"] == ids["pay56"] for r in answer["results"])
    assert "Settlement ledger outage" not in answer["answer"]


def test_the_models_get_entity_tool_takes_a_key_and_hides_and_misses_alike(imported):
    engine, settings, ids = imported
    calls = Reply.tools(("c1", "get_entity", json.dumps({"key": "PAY-1210"})),
                        ("c2", "get_entity", json.dumps({"key": "PAY-57"})),
                        ("c3", "get_entity", json.dumps({"key": "PAY-99"})))
    with FakeLLM(calls, Reply.plain("It is in review.")) as llm, \
            client_for(settings, engine, **llm_settings(llm)) as c:
        ask(c, ids["ana"], "tell me about the refund work")
    found, hidden, missing = (tool_result(llm.requests[1], i) for i in range(3))
    assert found["success"] is True and found["anchor"] == f"[TASK #{ids['pay1210']}]"
    assert "PAY-1210 (Bug)" in found["text"] and "Chen Wei (2026-11-20)" in found["text"]
    assert hidden["success"] is missing["success"] is False
    assert hidden["error"].replace("PAY-57", "K") == missing["error"].replace("PAY-99", "K")


@pytest.mark.parametrize("arguments", [{"key": 7}, {"key": ""}, {"key": "K" * 500}, {"key": "PAY-1210\n"}, {}])
def test_get_entity_answers_a_malformed_key_as_a_tool_error(imported, arguments):
    from app.services import tools

    engine, _, ids = imported
    state = tools.ToolState(engine, engine.caller(ids["ana"]), "all", None, None)
    result = tools.get_entity(state, **arguments)
    assert result["success"] is False and len(result["error"]) < 400 and state.anchors == set()
