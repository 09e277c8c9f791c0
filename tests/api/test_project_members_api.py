"""Project membership over REST (issue 32) and the project rule through the faces: PUT / DELETE / GET
/api/v1/projects/{id}/members, admin tokens only; under RAG_ACCESS_RULE=project a developer's chat (by employee
id and by Telegram id, as the bot asks), search, MCP tool and OpenAI-compatible answer reach a teammate's task of
a shared project, and a removed membership takes effect on the next question with the worker stopped; a key
outside the asker's projects answers exactly like a key no task has."""

from __future__ import annotations

import json
from hashlib import sha256

import pytest
from pydantic import SecretStr

from app.config import Settings
from app.domain import Scope
from app.engines.sqlite.engine import SQLiteEngine
from app.entities import TASKS
from app.worker import Worker
from tests.support import employee, project

from .chat_data import AUTH, client_for
from tests.conformance.faces import mcp_face, openai_face

JIRA = "jira:https://acme.atlassian.net"


@pytest.fixture
def world(tmp_path, embedder):
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/members.db", api_tokens="test-token",
                        run_worker=False, backfill_on_startup=False, access_rule="project",
                        api_token_scopes=SecretStr(json.dumps([
                            {"token": "sha256:" + sha256(b"ana-own").hexdigest(), "scope": "user", "employee_id": 1}])))
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    ids = {"ana": employee(engine, "Ana", "Garcia", telegram_id="ana_tg"), "diego": employee(engine, "Diego", "Ruiz"),
           "payments": project(engine, "Payments Platform"), "ops": project(engine, "Ops")}
    assert ids["ana"] == 1
    ids["pay56"] = engine.create(TASKS, {"TITLE": "Settlement ledger outage", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-56",
                                         "STATUS": "IN_PROGRESS", "ASSIGNEE_ID": ids["diego"],
                                         "PROJECT_ID": ids["payments"]})["task_id"]
    ids["ops77"] = engine.create(TASKS, {"TITLE": "Rotate the ledger HSM keys", "SOURCE": JIRA, "EXTERNAL_KEY": "OPS-77",
                                         "STATUS": "TODO", "ASSIGNEE_ID": ids["diego"],
                                         "PROJECT_ID": ids["ops"]})["task_id"]
    assert Worker(engine, settings).run_once().failed == 0
    try:
        with client_for(settings, engine) as c:
            yield c, engine, settings, ids
    finally:
        engine.close()


def chat(c, message, **who):
    response = c.post("/api/v1/chat", json={"message": message, **who}, headers=AUTH)
    assert response.status_code == 200, response.text
    return response.json()


def test_put_delete_and_list_members(world):
    c, _, _, ids = world
    url = f"/api/v1/projects/{ids['payments']}/members"
    first = c.put(f"{url}/{ids['ana']}", headers=AUTH)
    assert first.status_code == 200 and first.json()["source"] == "manual"
    again = c.put(f"{url}/{ids['ana']}", headers=AUTH)
    assert again.status_code == 200 and again.json() == first.json()  # idempotent, the same date
    c.put(f"{url}/{ids['diego']}", headers=AUTH)
    page = c.get(url, params={"limit": 1}, headers=AUTH).json()
    assert [m["employee_id"] for m in page["items"]] == [ids["ana"]] and page["total"] == 2 and page["next_cursor"]
    rest = c.get(url, params={"limit": 1, "cursor": page["next_cursor"]}, headers=AUTH).json()
    assert [m["employee_id"] for m in rest["items"]] == [ids["diego"]] and rest["next_cursor"] is None
    assert c.delete(f"{url}/{ids['diego']}", headers=AUTH).status_code == 204
    assert c.delete(f"{url}/{ids['diego']}", headers=AUTH).status_code == 204  # idempotent
    assert c.get(url, headers=AUTH).json()["total"] == 1


def test_unknown_ids_are_404_bad_ones_422_and_only_admin_tokens_write(world):
    c, _, _, ids = world
    assert c.put(f"/api/v1/projects/999/members/{ids['ana']}", headers=AUTH).status_code == 404
    assert c.put(f"/api/v1/projects/{ids['payments']}/members/999", headers=AUTH).status_code == 404
    assert c.delete(f"/api/v1/projects/999/members/{ids['ana']}", headers=AUTH).status_code == 404
    assert c.get("/api/v1/projects/999/members", headers=AUTH).status_code == 404
    assert c.put(f"/api/v1/projects/0/members/{ids['ana']}", headers=AUTH).status_code == 422
    assert c.get(f"/api/v1/projects/{ids['payments']}/members", params={"bogus": 1}, headers=AUTH).status_code == 422
    own = {"Authorization": "Bearer ana-own"}  # Ana's own user-bound token may not make herself a member
    assert c.put(f"/api/v1/projects/{ids['payments']}/members/{ids['ana']}", headers=own).status_code == 403
    assert c.get(f"/api/v1/projects/{ids['payments']}/members", headers=own).status_code == 403


def test_a_members_question_about_a_teammates_key_is_answered_and_ends_with_the_membership(world):
    c, engine, settings, ids = world
    shown = ("answer", "route", "citations")
    unknown = chat(c, "what is the status of OPS-78?", employee_id=ids["ana"])  # no task has it yet
    engine.create(TASKS, {"TITLE": "Patch the ledger hosts", "SOURCE": JIRA, "EXTERNAL_KEY": "OPS-78",
                          "ASSIGNEE_ID": ids["diego"], "PROJECT_ID": ids["ops"]})
    Worker(engine, settings).run_once()
    outside = chat(c, "what is the status of OPS-78?", employee_id=ids["ana"])  # Diego's, outside her projects
    assert {k: outside[k] for k in shown} == {k: unknown[k] for k in shown}
    before = chat(c, "what is the status of PAY-56?", employee_id=ids["ana"])
    assert before["route"] != "lookup" and f"[TASK #{ids['pay56']}]" not in before["citations"]
    assert c.put(f"/api/v1/projects/{ids['payments']}/members/{ids['ana']}", headers=AUTH).status_code == 200
    for who in ({"employee_id": ids["ana"]}, {"telegram_id": "ana_tg"}):  # the API, and the bot's way of asking
        answer = chat(c, "what is the status of PAY-56?", **who)
        assert answer["route"] == "lookup" and f"[TASK #{ids['pay56']}]" in answer["citations"], answer
    found = c.post("/api/v1/search", json={"question": "settlement ledger", "employee_id": ids["ana"], "top_k": 5},
                   headers=AUTH).json()
    assert ("task", ids["pay56"]) in {(r["source_type"], r["source_id"]) for r in found["results"]}
    assert ("task", ids["ops77"]) not in {(r["source_type"], r["source_id"]) for r in found["results"]}
    assert c.delete(f"/api/v1/projects/{ids['payments']}/members/{ids['ana']}", headers=AUTH).status_code == 204
    assert engine.status(5).pending == 0  # nothing waits for the worker: the rule is in the query
    after = chat(c, "what is the status of PAY-56?", employee_id=ids["ana"])
    assert after["route"] != "lookup" and f"[TASK #{ids['pay56']}]" not in after["citations"]


def test_mcp_and_the_openai_face_follow_the_membership(world):
    _, engine, settings, ids = world
    ana = engine.caller(ids["ana"])
    with mcp_face(engine, settings) as mcp, openai_face(engine, settings) as openai:
        def seen(face):
            return set(face.ask(engine.caller(ids["ana"]), "settlement ledger outage", 5, Scope(), "hybrid").sources)

        assert ("task", ids["pay56"]) not in seen(mcp) | seen(openai)
        engine.put_project_member(ids["payments"], ids["ana"], "manual")
        assert ("task", ids["pay56"]) in seen(mcp) and ("task", ids["pay56"]) in seen(openai)
        assert ("task", ids["ops77"]) not in seen(mcp) | seen(openai)
        engine.delete_project_member(ids["payments"], ids["ana"])
        assert ("task", ids["pay56"]) not in seen(mcp) | seen(openai)
    assert ana.member_projects == frozenset()


def test_the_mcp_tools_read_a_teammates_task_through_a_membership_only(world):
    """The model's tools as MCP serves them to a developer's own token: get_entity by id and find_tasks of the
    project answer Diego's task to Ana while she is a member, and as a missing id once she is not."""
    _, engine, settings, ids = world
    with mcp_face(engine, settings) as mcp:
        def tool(name, **arguments):
            mcp.ask(engine.caller(ids["ana"]), "x", 1, Scope(), "vector")  # binds the grant to Ana
            result = mcp._portal.call(mcp._client.call_tool, name, arguments)
            return result.is_error, json.dumps(result.structured_content or [c.model_dump() for c in result.content])

        before = tool("get_entity", type="task", id=ids["pay56"])
        missing = tool("get_entity", type="task", id=987_654)
        engine.put_project_member(ids["payments"], ids["ana"], "manual")
        found = tool("get_entity", type="task", id=ids["pay56"])
        listed = tool("find_tasks", project=ids["payments"])
        engine.delete_project_member(ids["payments"], ids["ana"])
        after = tool("get_entity", type="task", id=ids["pay56"])
    assert before[0] and after[0] and missing[0] and not found[0]
    assert before[1].replace(str(ids["pay56"]), "N") == missing[1].replace("987654", "N") == \
        after[1].replace(str(ids["pay56"]), "N")
    assert "Settlement ledger outage" in found[1] and f"[TASK #{ids['pay56']}]" in listed[1]
