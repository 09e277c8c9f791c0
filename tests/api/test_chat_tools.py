"""The model's tools and honest answers, against the loopback fake LLM (tests/fake_llm.py): scope
switching and the pinned refusal, find_tasks under the access rule, project matching, what a developer's
prompt contains, invented anchors, and LLM faults (answered extractively, both turns stored)."""

from __future__ import annotations

import json

import pytest

from tests.fake_llm import FakeLLM, Reply

from .chat_data import AUTH, client_for, llm_settings, project_of, seed, tool_result


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


def ask(c, who, message, **extra):
    return c.post("/api/v1/chat", json={"employee_id": who, "message": message, **extra}, headers=AUTH)


def call(name, **arguments):
    return (f"call-{name}", name, json.dumps(arguments))


def test_the_model_switches_the_scope_and_it_persists(sqlite_engine, sqlite_settings, ids):
    script = [Reply.tools(call("set_rag_scope", scope=str(ids["payments"]))), Reply.plain("Switched."),
              Reply.plain("Still payments.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        body = ask(c, ids["boss"], "from now on, only the payments project").json()
        stored = c.get(f"/api/v1/conversations/{body['conversation_id']}", params={"employee_id": ids["boss"]},
                       headers=AUTH).json()
        later = ask(c, ids["boss"], "refunds?", conversation_id=body["conversation_id"]).json()
    assert (body["new_rag_scope"], body["new_rag_scope_label"]) == (str(ids["payments"]), "Payments Platform")
    assert body["rag_scope"] == str(ids["payments"]) and stored["rag_scope"] == str(ids["payments"])
    assert tool_result(llm.requests[1]) == {"success": True, "rag_scope": str(ids["payments"]),
                                            "label": "Payments Platform"}
    # retrieval was redone in the new scope, and the prompt says so
    assert {project_of(ids, h) for h in body["results"]} == {ids["payments"]}
    assert "retrieved from: Payments Platform" in llm.requests[1]["body"]["messages"][0]["content"]
    assert later["rag_scope"] == str(ids["payments"]) and later["new_rag_scope"] is None
    assert {project_of(ids, h) for h in later["results"]} == {ids["payments"]}


def test_a_pinned_conversation_refuses_the_models_scope_change(sqlite_engine, sqlite_settings, ids):
    script = [Reply.tools(call("set_rag_scope", scope="all")), Reply.plain("I cannot leave this project.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        body = ask(c, ids["boss"], "show me everything", rag_scope=ids["mobile"], pinned=True).json()
        stored = c.get(f"/api/v1/conversations/{body['conversation_id']}", params={"employee_id": ids["boss"]},
                       headers=AUTH).json()
    refusal = tool_result(llm.requests[1])
    assert refusal["success"] is False and "pinned" in refusal["error"]
    assert body["new_rag_scope"] is None and body["rag_scope"] == str(ids["mobile"])
    assert stored["pinned_project_id"] == ids["mobile"] and stored["rag_scope"] == str(ids["mobile"])


def test_set_rag_scope_validates_existence(sqlite_engine, sqlite_settings, ids):
    script = [Reply.tools(call("set_rag_scope", scope="424242")), Reply.plain("No such project.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        body = ask(c, ids["boss"], "switch to project 424242").json()
    assert tool_result(llm.requests[1]) == {"success": False, "error": "project 424242 does not exist"}
    assert body["rag_scope"] == "all" and body["new_rag_scope"] is None


def test_find_tasks_never_returns_a_task_the_caller_may_not_see(sqlite_engine, sqlite_settings, ids):
    script = [Reply.tools(call("find_tasks", priority="critical"), call("find_tasks", limit=100)),
              Reply.plain("Here they are.")]
    results = {}
    for who in ("ana", "boss"):
        with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
            assert ask(c, ids[who], "which tasks are critical?").status_code == 200
        results[who] = [[t["task_id"] for t in tool_result(llm.requests[1], i)["tasks"]] for i in (0, 1)]
    assert results["ana"] == [[], [ids["login"]]]  # Luis's and the unassigned task stay hidden
    assert results["boss"] == [[ids["refund"], ids["sdk"]], [ids["login"], ids["refund"], ids["sdk"]]]


def test_find_tasks_is_bounded_by_the_conversations_scope(sqlite_engine, sqlite_settings, ids):
    # After "only look at payments", the model's find_tasks lists Payments' tasks, as the routed answers and
    # retrieval do; a project the model names explicitly still wins (the asker named it).
    script = [Reply.tools(call("find_tasks"), call("find_tasks", project=ids["mobile"])), Reply.plain("Listed.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        assert ask(c, ids["boss"], "list the tasks", rag_scope=ids["payments"]).status_code == 200
    scoped, named = (tool_result(llm.requests[1], i) for i in (0, 1))
    assert {t["task_id"] for t in scoped["tasks"]} == {ids["refund"], ids["sdk"]}
    assert [t["task_id"] for t in named["tasks"]] == [ids["login"]]


def test_find_tasks_filters_overdue_and_unassigned(sqlite_engine, sqlite_settings, ids):
    script = [Reply.tools(call("find_tasks", overdue=True), call("find_tasks", unassigned=True, priority="CRITICAL"),
                          call("find_tasks", limit=0)),
              Reply.plain(f"[TASK #{ids['sdk']}] is overdue; [TASK #31337] too.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        body = ask(c, ids["boss"], "critical unassigned tasks that are overdue").json()
    overdue, unassigned, bad = (tool_result(llm.requests[1], i) for i in range(3))
    assert [t["task_id"] for t in overdue["tasks"]] == [ids["sdk"]]
    assert [t["task_id"] for t in unassigned["tasks"]] == [ids["sdk"]]
    assert bad["success"] is False and "limit" in bad["error"]
    # an anchor a tool showed the model is citable; one it was never shown makes the reply ungrounded as a
    # whole (issue 23: it used to be trimmed to "[TASK #3] is overdue." and accepted): the tracker answer stands
    assert body["llm_used"] is False and body["llm_error"] == "ungrounded"
    assert "[TASK #31337]" not in body["answer"] and body["citations"] == [f"[TASK #{ids['sdk']}]"]
    assert body["answer"].startswith("Tasks (critical, overdue, unassigned)")


def test_search_projects_scores_names_descriptions_and_summaries(sqlite_engine, sqlite_settings, ids):
    sqlite_engine.set_project_summary(ids["mobile"], "The phone apps: login, push notifications and offline mode.")
    script = [Reply.tools(call("search_projects", query="refunds for merchants"),
                          call("search_projects", query="push notifications"), call("search_projects", query=" ")),
              Reply.plain("Found them.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        assert ask(c, ids["boss"], "which project handles refunds?").status_code == 200
    refunds, push, empty = (tool_result(llm.requests[1], i) for i in range(3))
    assert [p["id"] for p in refunds["projects"]][0] == ids["payments"]  # no summary: description counts
    assert refunds["projects"][0]["summary_snippet"].startswith("Card payments")
    assert refunds["projects"][0]["score"] > refunds["projects"][1]["score"] >= 0
    assert push["projects"][0] == {"id": ids["mobile"], "title": "Mobile App", "score": push["projects"][0]["score"],
                                   "summary_snippet": "The phone apps: login, push notifications and offline mode."}
    assert empty["success"] is False


def test_a_developer_never_gets_a_summary_written_from_tasks_they_may_not_see(sqlite_engine, sqlite_settings, ids):
    """A summary is written from all of a project's recent tasks; a developer is matched on the project's
    own name and description only, so neither the snippet nor the score can reveal a hidden task."""
    sqlite_engine.set_project_summary(ids["mobile"], "Luis is fixing the zebrafish outage in the phone apps.")
    script = [Reply.tools(call("search_projects", query="zebrafish outage")), Reply.plain("None.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        assert ask(c, ids["ana"], "which project has the zebrafish outage?").status_code == 200
    projects = tool_result(llm.requests[1], 0)["projects"]
    assert "zebrafish" not in json.dumps(projects)
    mobile = next(p for p in projects if p["id"] == ids["mobile"])
    assert mobile["score"] < 0.5  # no credit for the summary's words


def test_the_tool_loop_is_bounded(sqlite_engine, sqlite_settings, ids):
    script = [Reply.tools(call("find_tasks")), Reply.tools(call("find_tasks")), Reply.plain("Final answer.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine,
                                             **llm_settings(llm, chat_max_tool_rounds=1)) as c:
        body = ask(c, ids["boss"], "tasks?").json()
    # round 1 used the one allowed tool round; the next call offers no tools (the fake's reply 2 is
    # tool calls, which a plain completion reads as no text: a bad_response, answered extractively)
    assert len(llm.requests) == 2 and "tools" in llm.requests[0]["body"] and "tools" not in llm.requests[1]["body"]
    assert body["llm_error"] == "bad_response" and body["llm_used"] is False


def test_a_developer_gets_no_content_of_another_developers_task(sqlite_engine, sqlite_settings, ids):
    with FakeLLM(Reply.plain("I don't know.")) as llm, client_for(sqlite_settings, sqlite_engine,
                                                                  **llm_settings(llm)) as c:
        body = ask(c, ids["ana"], "why does the Adyen refund flow time out after 30 s?").json()
    prompt = json.dumps(llm.requests[0]["body"]["messages"])
    assert "Adyen" not in prompt.split("Question:")[0] and "Refund flow times out" not in prompt
    assert f"[TASK #{ids['refund']}]" not in prompt and f"Ana Garcia (DEVELOPER, employee id {ids['ana']})" in prompt
    assert all(not (h["source_type"] == "task" and h["source_id"] == ids["refund"]) for h in body["results"])


@pytest.mark.parametrize("reply, reason, timeout_s", [
    (Reply.status(500), "bad_response", 10.0), (Reply.silent(), "timeout", 0.5),
    (Reply.raw_body(b"{nope"), "bad_response", 10.0)], ids=["500", "silent", "bad"])
def test_llm_faults_are_reported_and_the_extractive_answer_is_stored(sqlite_engine, sqlite_settings, ids, reply,
                                                                     reason, timeout_s):
    with FakeLLM(reply) as llm, client_for(sqlite_settings, sqlite_engine,
                                           **llm_settings(llm, llm_timeout_s=timeout_s)) as c:
        body = ask(c, ids["boss"], "login bug").json()
        stored = c.get(f"/api/v1/conversations/{body['conversation_id']}/messages",
                       params={"employee_id": ids["boss"]}, headers=AUTH).json()
    assert body["llm_error"] == reason and body["llm_used"] is False and "Fix login bug" in body["answer"]
    assert [(m["role"], m["content"]) for m in stored["items"]] == [("user", "login bug"),
                                                                       ("assistant", body["answer"])]
