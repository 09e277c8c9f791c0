"""Conversations through the real app on the real SQLite engine: memory, persistent scope, ownership,
bad input, and the list filters (employees by Telegram id, unknown query parameters)."""

from __future__ import annotations

import pytest

from tests.fake_llm import FakeLLM, Reply

from .chat_data import AUTH, client_for, llm_settings, project_of, seed


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


def ask(c, who, message, **extra):
    return c.post("/api/v1/chat", json={"employee_id": who, "message": message, **extra}, headers=AUTH)


def test_follow_up_retrieves_the_task_of_the_previous_turn_offline(sqlite_engine, sqlite_settings, ids):
    login = f"[TASK #{ids['login']}]"
    with client_for(sqlite_settings, sqlite_engine) as c:
        first = ask(c, ids["boss"], "what is wrong with the login bug?").json()
        follow = ask(c, ids["boss"], "who is assigned to it?", conversation_id=first["conversation_id"]).json()
        history = c.get(f"/api/v1/conversations/{first['conversation_id']}/messages",
                        params={"employee_id": ids["boss"]}, headers=AUTH).json()
    top = follow["results"][0]
    assert (top["source_type"], top["source_id"]) == ("task", ids["login"])
    assert follow["conversation_id"] == first["conversation_id"] and login in follow["citations"]
    assert "Ana Garcia" in follow["answer"]
    assert [m["role"] for m in history["items"]] == ["user", "assistant", "user", "assistant"]
    assert history["items"][3]["message_id"] == follow["message_id"]
    assert history["items"][3]["citations"] == follow["citations"]


def test_follow_up_with_an_llm_condenses_and_keeps_the_last_turns(sqlite_engine, sqlite_settings, ids):
    login = f"[TASK #{ids['login']}]"
    script = [Reply.plain(f"Users are logged out after a reset {login}."),
              Reply.plain("login bug after password reset assignee"),  # the condensation call
              Reply.plain(f"Ana Garcia {login}.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine,
                                             **llm_settings(llm, chat_history_turns=1)) as c:
        first = ask(c, ids["boss"], "what is wrong with the login bug?").json()
        second = ask(c, ids["boss"], "who is assigned to it?", conversation_id=first["conversation_id"]).json()
    assert second["llm_used"] is True and second["answer"] == f"Ana Garcia {login}."
    assert (second["results"][0]["source_type"], second["results"][0]["source_id"]) == ("task", ids["login"])
    condense, answer = llm.requests[1]["body"], llm.requests[2]["body"]
    assert "standalone search query" in condense["messages"][0]["content"]
    assert "User: what is wrong with the login bug?" in condense["messages"][1]["content"]
    roles = [m["role"] for m in answer["messages"]]
    assert roles == ["system", "user", "assistant", "user"]  # one earlier turn (the setting), then the question
    assert answer["messages"][1]["content"] == "what is wrong with the login bug?"
    assert login in answer["messages"][3]["content"] and answer["messages"][3]["content"].endswith(
        "Question: who is assigned to it?")
    assert {t["function"]["name"] for t in answer["tools"]} == {"search_projects", "set_rag_scope", "find_tasks", "query_tasks",
                                                                 "get_entity"}
    assert f"The conversation is about: {login} Fix login bug" in condense["messages"][1]["content"]  # the focus


def test_scope_persists_across_requests_and_narrows_the_hits(sqlite_engine, sqlite_settings, ids):
    with client_for(sqlite_settings, sqlite_engine) as c:
        first = ask(c, ids["boss"], "tasks and deadlines", rag_scope=ids["payments"]).json()
        cid = first["conversation_id"]
        second = ask(c, ids["boss"], "login bug password reset", conversation_id=cid).json()
        patched = c.patch(f"/api/v1/conversations/{cid}", params={"employee_id": ids["boss"]},
                          json={"rag_scope": "none"}, headers=AUTH)
        third = ask(c, ids["boss"], "login bug password reset vacation", conversation_id=cid).json()
        listed = c.get("/api/v1/conversations", params={"employee_id": ids["boss"]}, headers=AUTH).json()["items"]
    assert first["rag_scope"] == str(ids["payments"]) and first["rag_scope_label"] == "Payments Platform"
    assert first["new_rag_scope"] is None
    assert second["rag_scope"] == str(ids["payments"]) and second["results"]
    assert {project_of(ids, h) for h in first["results"] + second["results"]} == {ids["payments"]}
    assert patched.status_code == 200 and patched.json()["rag_scope_label"] == "No project"
    assert third["rag_scope"] == "none" and third["results"]
    assert {project_of(ids, h) for h in third["results"]} == {None}
    assert [(c_["conversation_id"], c_["rag_scope"]) for c_ in listed] == [(cid, "none")]


def test_default_scope_is_all_and_a_deleted_project_reads_as_all(sqlite_engine, sqlite_settings, ids):
    gone = sqlite_engine.create(__import__("app.entities", fromlist=["PROJECTS"]).PROJECTS, {"NAME": "Old"})
    with client_for(sqlite_settings, sqlite_engine) as c:
        first = ask(c, ids["boss"], "login bug").json()
        scoped = ask(c, ids["boss"], "login bug", rag_scope=gone["project_id"]).json()
        assert c.delete(f"/api/v1/projects/{gone['project_id']}", headers=AUTH).status_code == 204
        after = ask(c, ids["boss"], "login bug", conversation_id=scoped["conversation_id"]).json()
    assert (first["rag_scope"], first["rag_scope_label"]) == ("all", "All projects")
    assert after["rag_scope"] == str(gone["project_id"])
    assert after["rag_scope_label"] == f"All projects (project #{gone['project_id']} no longer exists)"
    assert ("task", ids["login"]) in {(h["source_type"], h["source_id"]) for h in after["results"]}


def _state(c, who):
    listed = c.get("/api/v1/conversations", params={"employee_id": who}, headers=AUTH).json()["items"]
    return [(x["conversation_id"], x["rag_scope"], x["updated_at"]) for x in listed]


def test_bad_input_is_a_clear_4xx_and_changes_nothing(sqlite_engine, sqlite_settings, ids):
    with client_for(sqlite_settings, sqlite_engine) as c:
        mine = ask(c, ids["ana"], "login bug").json()["conversation_id"]
        theirs = ask(c, ids["luis"], "refund").json()["conversation_id"]
        before = (_state(c, ids["ana"]), _state(c, ids["luis"]))
        statuses = [
            ask(c, ids["ana"], "hi", conversation_id=999_999).status_code,
            ask(c, ids["ana"], "hi", conversation_id=theirs).status_code,
            ask(c, ids["ana"], "").status_code,
            ask(c, ids["ana"], "x" * 2001).status_code,
            ask(c, ids["ana"], "hi", rag_scope="everything").status_code,
            ask(c, ids["ana"], "hi", rag_scope=0).status_code,
            ask(c, ids["ana"], "hi", rag_scope=987_654).status_code,  # no such project
            ask(c, ids["ana"], "hi", rag_scope="all", conversation_id=mine).status_code,
            ask(c, ids["ana"], "hi", rag_scope="all", pinned=True).status_code,
            c.patch(f"/api/v1/conversations/{mine}", params={"employee_id": ids["ana"]},
                    json={"rag_scope": 987_654}, headers=AUTH).status_code,
            c.patch(f"/api/v1/conversations/{theirs}", params={"employee_id": ids["ana"]},
                    json={"rag_scope": "none"}, headers=AUTH).status_code,
            c.get(f"/api/v1/conversations/{theirs}", params={"employee_id": ids["ana"]}, headers=AUTH).status_code,
            c.delete(f"/api/v1/conversations/{theirs}", params={"employee_id": ids["ana"]}, headers=AUTH).status_code,
            c.get("/api/v1/conversations", headers=AUTH).status_code,  # nobody named
        ]
        after = (_state(c, ids["ana"]), _state(c, ids["luis"]))
        detail = ask(c, ids["ana"], "hi", conversation_id=theirs).json()["detail"]
    assert statuses == [404, 404, 422, 422, 422, 422, 422, 422, 422, 422, 404, 404, 404, 422]
    assert after == before and f"conversation {theirs} does not exist" in detail


def test_owner_reads_pages_and_deletes(sqlite_engine, sqlite_settings, ids):
    with client_for(sqlite_settings, sqlite_engine) as c:
        cid = ask(c, ids["ana"], "login bug").json()["conversation_id"]
        ask(c, ids["ana"], "and the comments?", conversation_id=cid)
        one = c.get(f"/api/v1/conversations/{cid}", params={"telegram_id": "ana_tg"}, headers=AUTH).json()
        first = c.get(f"/api/v1/conversations/{cid}/messages", params={"telegram_id": "ana_tg", "limit": 3},
                      headers=AUTH).json()
        rest = c.get(f"/api/v1/conversations/{cid}/messages",
                     params={"telegram_id": "ana_tg", "limit": 3, "cursor": first["next_cursor"]}, headers=AUTH).json()
        deleted = c.delete(f"/api/v1/conversations/{cid}", params={"employee_id": ids["ana"]}, headers=AUTH)
        gone = c.get(f"/api/v1/conversations/{cid}", params={"employee_id": ids["ana"]}, headers=AUTH)
    assert one["title"] == "login bug" and "messages" not in one
    assert [m["role"] for m in first["items"]] == ["user", "assistant", "user"] and first["total"] == 4
    assert [m["role"] for m in rest["items"]] == ["assistant"] and rest["next_cursor"] is None
    assert first["items"][2]["content"] == "and the comments?"
    assert deleted.status_code == 204 and gone.status_code == 404


def test_employees_by_telegram_id_and_unknown_query_parameters(sqlite_engine, sqlite_settings, ids):
    with client_for(sqlite_settings, sqlite_engine) as c:
        found = c.get("/api/v1/employees", params={"telegram_id": "ana_tg"}, headers=AUTH).json()
        nobody = c.get("/api/v1/employees", params={"telegram_id": "nobody"}, headers=AUTH).json()
        typo = c.get("/api/v1/employees", params={"telegramid": "ana_tg"}, headers=AUTH)
        other = c.get("/api/v1/projects", params={"priority": "HIGH"}, headers=AUTH)
        conv = c.get("/api/v1/conversations", params={"employee_id": ids["ana"], "scope": "all"}, headers=AUTH)
    assert [e["employee_id"] for e in found["items"]] == [ids["ana"]] and found["total"] == 1
    assert nobody == {"items": [], "total": 0, "next_cursor": None}
    for response, name in ((typo, "telegramid"), (other, "priority"), (conv, "scope")):
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["query", name]


def test_a_bot_token_uses_conversations_but_not_the_employee_lookup(sqlite_engine, api_settings, ids):
    from pydantic import SecretStr

    scopes = SecretStr('[{"token": "bot-token", "scope": "bot"}]')
    bot = {"Authorization": "Bearer bot-token"}
    with client_for(api_settings, sqlite_engine, api_token_scopes=scopes) as c:
        cid = c.post("/api/v1/chat", json={"telegram_id": "ana_tg", "message": "login bug"}, headers=bot).json()
        listed = c.get("/api/v1/conversations", params={"telegram_id": "ana_tg"}, headers=bot)
        lookup = c.get("/api/v1/employees", params={"telegram_id": "ana_tg"}, headers=bot)
    assert [x["conversation_id"] for x in listed.json()["items"]] == [cid["conversation_id"]]
    assert lookup.status_code == 403  # mapping users is an admin lookup
