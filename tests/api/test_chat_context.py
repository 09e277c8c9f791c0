"""What a chat client looks up besides the chat: who it answers as (GET /chat/caller), the projects it can
scope to (GET /chat/projects, by name or matched as the model's search_projects tool matches) and its own
token (GET /token); under the chat's rules (a bot token, acting only for whom it may)."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from app.services import tools
from app.services.search import resolve_caller
from tests.support import project

from .chat_data import client_for, seed

SCOPES = SecretStr('[{"token": "bot-token", "scope": "bot", "name": "telegram", "roles": ["DEVELOPER"]},'
                   ' {"token": "ops-token", "scope": "admin", "name": "ops"}]')
BOT = {"Authorization": "Bearer bot-token"}


@pytest.fixture
def ids(sqlite_engine, api_settings):
    return seed(sqlite_engine, api_settings)


@pytest.fixture
def client(sqlite_engine, api_settings, ids):
    with client_for(api_settings, sqlite_engine, api_token_scopes=SCOPES) as c:
        yield c


def test_the_caller_is_read_from_employees(client, ids):
    ana = client.get("/api/v1/chat/caller", params={"telegram_id": "ana_tg"}, headers=BOT)
    assert ana.status_code == 200
    assert ana.json() == {"employee_id": ids["ana"], "role": "DEVELOPER", "first_name": "Ana"}
    ops = {"Authorization": "Bearer ops-token"}
    assert client.get("/api/v1/chat/caller", params={"telegram_id": "nobody"}, headers=ops).status_code == 404
    # The bot may act only for developers: the manager is refused, and so is nobody (the same 403, so a
    # limited token cannot tell who exists).
    boss = client.get("/api/v1/chat/caller", params={"employee_id": ids["boss"]}, headers=BOT)
    nobody = client.get("/api/v1/chat/caller", params={"telegram_id": "nobody"}, headers=BOT)
    assert boss.status_code == nobody.status_code == 403 and "may not act on behalf" in boss.json()["detail"]
    assert client.get("/api/v1/chat/caller", params={"employee_id": ids["ana"]}).status_code == 401
    both = client.get("/api/v1/chat/caller", params={"employee_id": ids["ana"], "telegram_id": "ana_tg"}, headers=BOT)
    typo = client.get("/api/v1/chat/caller", params={"telegramid": "ana_tg"}, headers=BOT)
    assert both.status_code == 422 and typo.status_code == 422


def test_projects_are_listed_by_name_in_pages(client, ids, sqlite_engine):
    project(sqlite_engine, "access reviews")  # lower case sorts among the others, not after them
    listed = client.get("/api/v1/chat/projects", params={"telegram_id": "ana_tg"}, headers=BOT)
    assert listed.status_code == 200
    assert [(p["name"], p["score"]) for p in listed.json()["items"]] == [
        ("access reviews", None), ("Mobile App", None), ("Payments Platform", None)]
    assert listed.json()["items"][2]["project_id"] == ids["payments"]
    assert listed.json()["total"] == 3 and listed.json()["next_cursor"] is None
    first = client.get("/api/v1/chat/projects", params={"telegram_id": "ana_tg", "limit": 2}, headers=BOT).json()
    rest = client.get("/api/v1/chat/projects", params={"telegram_id": "ana_tg", "limit": 2,
                                                       "cursor": first["next_cursor"]}, headers=BOT).json()
    assert [p["name"] for p in first["items"]] == ["access reviews", "Mobile App"] and first["total"] == 3
    assert [p["name"] for p in rest["items"]] == ["Payments Platform"] and rest["next_cursor"] is None
    elsewhere = client.get("/api/v1/conversations", params={"telegram_id": "ana_tg", "cursor": first["next_cursor"]},
                           headers=BOT)
    assert elsewhere.status_code == 422  # a cursor of this list is no cursor of another
    ops = {"Authorization": "Bearer ops-token"}
    assert client.get("/api/v1/chat/projects", params={"telegram_id": "nobody"}, headers=ops).status_code == 404
    typo = client.get("/api/v1/chat/projects", params={"telegram_id": "ana_tg", "qeury": "x"}, headers=BOT)
    assert typo.status_code == 422


def test_a_query_ranks_projects_as_the_models_search_projects_tool(client, ids, sqlite_engine):
    project(sqlite_engine, "Payments Reconciliation", "Month-end reports for finance")
    matched = client.get("/api/v1/chat/projects", params={"telegram_id": "ana_tg", "query": "payments"}, headers=BOT)
    assert matched.status_code == 200
    state = tools.ToolState(sqlite_engine, resolve_caller(sqlite_engine, telegram_id="ana_tg"), "all", None, None)
    expected = [(p["id"], p["score"]) for p in tools.search_projects(state, "payments")["projects"]]
    found = matched.json()["items"]
    assert [(p["project_id"], p["score"]) for p in found] == expected and matched.json()["next_cursor"] is None
    assert {p["name"] for p in found[:2]} == {"Payments Platform", "Payments Reconciliation"}
    assert found[2]["name"] == "Mobile App" and found[2]["score"] < 0.5  # no word in common
    exact = client.get("/api/v1/chat/projects", params={"telegram_id": "ana_tg", "query": "mobile app"}, headers=BOT)
    assert exact.json()["items"][0] == {"project_id": ids["mobile"], "name": "Mobile App", "score": 1.0}
    blank = client.get("/api/v1/chat/projects", params={"telegram_id": "ana_tg", "query": "  "}, headers=BOT)
    assert blank.status_code == 422


def test_a_token_reads_its_own_name_scope_and_limits_never_the_secret(client):
    bot = client.get("/api/v1/token", headers=BOT)
    assert bot.json() == {"name": "telegram", "scope": "bot", "employee_ids": None, "roles": ["DEVELOPER"],
                          "employee_id": None}
    ops = client.get("/api/v1/token", headers={"Authorization": "Bearer ops-token"}).json()
    assert ops == {"name": "ops", "scope": "admin", "employee_ids": None, "roles": None, "employee_id": None}
    assert client.get("/api/v1/token", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert "bot-token" not in bot.text
