"""Tokens carry scopes: admin tokens may do everything, bot tokens only search and chat, optionally
only for some employees (by id, or by the role EMPLOYEES holds at request time); a user token is bound to
one employee and always asks as them."""

from __future__ import annotations

import hashlib
import json
import logging

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr, ValidationError

from app.api.main import create_app
from app.config import Settings
from app.worker import Worker
from tests.support import document, employee, task

from .conftest import AUTH
from .test_auth_health import DATA_ENDPOINTS

BOT_ROUTES = {("POST", "/api/v1/search"), ("POST", "/api/v1/chat"), ("POST", "/api/v1/chat/stream"),
              ("GET", "/api/v1/conversations?employee_id=1"), ("GET", "/api/v1/conversations/1?employee_id=1"),
              ("GET", "/api/v1/conversations/1/messages?employee_id=1"),
              ("PATCH", "/api/v1/conversations/1?employee_id=1"), ("DELETE", "/api/v1/conversations/1?employee_id=1"),
              ("GET", "/api/v1/chat/caller?employee_id=1"), ("GET", "/api/v1/chat/projects?employee_id=1"),
              ("GET", "/api/v1/token")}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def sha256(token):
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()


@pytest.fixture
def team(sqlite_engine, api_settings):
    boss = employee(sqlite_engine, "Maria", "Lopez", role="MANAGER", telegram_id="9001")
    ana = employee(sqlite_engine, "Ana", "Garcia", telegram_id="9002")
    ben = employee(sqlite_engine, "Ben", "Okafor")
    task(sqlite_engine, "Fix login bug after password reset", "Users are logged out", assignee_id=ana)
    document(sqlite_engine, "Ana's salary review", "private notes about the login bug", owner_id=ana)
    Worker(sqlite_engine, api_settings).run_once()
    return {"boss": boss, "ana": ana, "ben": ben}


def scoped_client(api_settings, engine, scopes, api_tokens="test-token"):
    settings = api_settings.model_copy(update={"api_tokens": SecretStr(api_tokens),
                                               "api_token_scopes": SecretStr(json.dumps(scopes))})
    return TestClient(create_app(settings, engine=engine), raise_server_exceptions=False)


def ask(c, token, **who):
    return c.post("/api/v1/search", json={"question": "login bug", **who}, headers=bearer(token))


def test_a_bot_token_gets_403_on_every_admin_route(api_settings, sqlite_engine):
    admin_routes = [e for e in DATA_ENDPOINTS if e[:2] not in BOT_ROUTES]
    assert len(admin_routes) == len(DATA_ENDPOINTS) - len(BOT_ROUTES)
    with scoped_client(api_settings, sqlite_engine, [{"token": "bot-token", "scope": "bot"}]) as c:
        for method, path, body in admin_routes:
            response = c.request(method, path, json=body, headers=bearer("bot-token"))
            assert response.status_code == 403, (method, path, response.text)
            assert "needs admin" in response.json()["detail"]
            assert c.request(method, path, json=body, headers=AUTH).status_code != 403  # the admin token may


def test_a_bot_token_reads_no_document_but_searches_and_chats_as_anyone(api_settings, sqlite_engine, team):
    with scoped_client(api_settings, sqlite_engine, [{"token": "bot-token", "scope": "bot"}]) as c:
        assert c.get("/api/v1/documents", headers=bearer("bot-token")).status_code == 403
        assert c.get("/api/v1/documents/1", headers=bearer("bot-token")).status_code == 403
        for who in (team["boss"], team["ana"], team["ben"]):
            assert ask(c, "bot-token", employee_id=who).status_code == 200
        chat = c.post("/api/v1/chat", json={"message": "login bug", "telegram_id": "9002"}, headers=bearer("bot-token"))
        assert chat.status_code == 200 and chat.json()["caller"]["employee_id"] == team["ana"]


def test_a_bot_limited_to_employee_ids(api_settings, sqlite_engine, team):
    scopes = [{"token": sha256("bot-token"), "scope": "bot", "employee_ids": [team["ana"]]}]
    with scoped_client(api_settings, sqlite_engine, scopes) as c:
        assert ask(c, "bot-token", employee_id=team["ana"]).status_code == 200
        assert ask(c, "bot-token", telegram_id="9002").status_code == 200
        refused = ask(c, "bot-token", employee_id=team["boss"])
        assert refused.status_code == 403 and "on behalf of employee" in refused.json()["detail"]
        assert ask(c, "bot-token", telegram_id="9001").status_code == 403  # the boss, by Telegram id
        assert ask(c, "bot-token", employee_id=424242).status_code == 403  # no probing which ids exist
        assert c.post("/api/v1/chat", json={"message": "hi", "employee_id": team["boss"]},
                      headers=bearer("bot-token")).status_code == 403


@pytest.mark.parametrize("limit", [{"roles": ["DEVELOPER"]}, {"employee_ids": "ana"}], ids=["role", "ids"])
def test_a_limited_bot_gets_one_403_for_anyone_out_of_reach_whether_they_exist_or_not(api_settings, sqlite_engine,
                                                                                     team, limit):
    """Issue 20, point 9: a role-limited token used to get 200 / 403 / 404 for a developer, a manager and an
    unknown id, and so learn which ids exist and who is a manager."""
    limit = {k: [team[v]] if v == "ana" else v for k, v in limit.items()}
    with scoped_client(api_settings, sqlite_engine, [{"token": "lim-bot", "scope": "bot", **limit}]) as c:
        def refusal(**who):
            response = ask(c, "lim-bot", **who)
            assert response.status_code == 403, response.text
            return response.json()["detail"]

        assert ask(c, "lim-bot", employee_id=team["ana"]).status_code == 200
        # A manager and an id nobody has: the same answer, each naming only what was asked.
        assert refusal(employee_id=team["boss"]) == f"this token may not act on behalf of employee {team['boss']}"
        assert refusal(employee_id=424242) == "this token may not act on behalf of employee 424242"
        # By Telegram id: the boss's, and one nobody has; neither reveals an employee id.
        assert refusal(telegram_id="9001") == "this token may not act on behalf of Telegram user 9001"
        assert refusal(telegram_id="777") == "this token may not act on behalf of Telegram user 777"
        for path in ("/api/v1/conversations", "/api/v1/conversations/1"):
            for who in ({"employee_id": 424242}, {"employee_id": team["boss"]}):
                assert c.get(path, params=who, headers=bearer("lim-bot")).status_code == 403
    with scoped_client(api_settings, sqlite_engine, [{"token": "any-bot", "scope": "bot"}]) as c:
        assert ask(c, "any-bot", employee_id=424242).status_code == 404  # an unlimited bot may act for anyone


def test_a_bot_token_is_403_on_an_admin_route_whatever_body_it_sends(api_settings, sqlite_engine):
    """Issue 20, point 9: the scope is checked before the body is read (a malformed body used to be a 422)."""
    with scoped_client(api_settings, sqlite_engine, [{"token": "bot-token", "scope": "bot"}]) as c:
        for body in (b'{"title": ', b"\xff\xfe", b"[" * 5000, b'{"title": "ok"}'):
            for method, path in (("POST", "/api/v1/tasks"), ("PATCH", "/api/v1/tasks/1"), ("POST", "/api/v1/rag/reindex"),
                                 ("DELETE", "/api/v1/employees/1?erase=true&delete_documents=maybe")):
                response = c.request(method, path, content=body, headers={**bearer("bot-token"),
                                                                         "Content-Type": "application/json"})
                assert response.status_code == 403 and "needs admin" in response.json()["detail"], (method, path)
        assert c.get("/api/v1/nope", headers=bearer("bot-token")).status_code == 404  # no route: nothing to scope


def test_a_bot_limited_to_a_role_reads_the_role_from_the_database(api_settings, sqlite_engine, team):
    scopes = [{"token": "dev-bot", "scope": "bot", "roles": ["DEVELOPER"]}]
    with scoped_client(api_settings, sqlite_engine, scopes) as c:
        assert ask(c, "dev-bot", employee_id=team["ana"]).status_code == 200
        assert ask(c, "dev-bot", employee_id=team["boss"]).status_code == 403
        # Promote Ana (admin token): the very next request sees her new role and refuses.
        assert c.patch(f"/api/v1/employees/{team['ana']}", json={"role": "MANAGER"}, headers=AUTH).status_code == 200
        assert ask(c, "dev-bot", employee_id=team["ana"]).status_code == 403
        # A role in the request body is not a field at all: it cannot be claimed.
        assert c.post("/api/v1/search", json={"question": "x", "employee_id": team["ben"], "role": "DEVELOPER"},
                      headers=bearer("dev-bot")).status_code == 422


def test_hashed_tokens_work_and_the_hash_itself_is_no_token(api_settings, sqlite_engine, team):
    scopes = [{"token": sha256("scoped-admin"), "scope": "admin", "name": "ops"}]
    with scoped_client(api_settings, sqlite_engine, scopes, api_tokens=sha256("legacy-admin")) as c:
        for token in ("scoped-admin", "legacy-admin"):
            assert c.get("/api/v1/documents", headers=bearer(token)).status_code == 200
        for token in (sha256("scoped-admin"), sha256("legacy-admin"), "test-token"):
            assert c.get("/api/v1/documents", headers=bearer(token)).status_code == 401


def test_a_plain_legacy_token_keeps_admin_access_with_one_warning(api_settings, sqlite_engine, team, caplog):
    with caplog.at_level(logging.WARNING, logger="app.api.main"):
        with scoped_client(api_settings, sqlite_engine, [], api_tokens="old-one, old-two") as c:
            for token in ("old-one", "old-two"):
                assert c.get("/api/v1/documents", headers=bearer(token)).status_code == 200
                assert ask(c, token, employee_id=team["ben"]).status_code == 200
    warnings = [r.getMessage() for r in caplog.records if "RAG_API_TOKENS" in r.getMessage()]
    assert len(warnings) == 1 and "2 token(s) with full admin access" in warnings[0]
    assert "old-one" not in caplog.text


@pytest.mark.parametrize("scopes, reason", [
    ("not json", "valid JSON"),
    ('[{"token": "secret-bot", "scope": "root"}]', "scope"),
    ('[{"token": "secret-bot", "scope": "admin", "roles": ["DEVELOPER"]}]', "admin token is unrestricted"),
    ('[{"token": "secret-bot", "scope": "bot", "employee_ids": [0]}]', "employee_ids"),
    ('[{"token": "sha256:abc", "scope": "bot"}]', "64 hex digits"),
    ('[{"token": "secret-bot", "scope": "user"}]', "a user token needs employee_id"),
    ('[{"token": "secret-bot", "scope": "bot", "employee_id": 3}]', "only a user token has one"),
    ('[{"token": "secret-bot", "scope": "user", "employee_id": 3, "roles": ["DEVELOPER"]}]', "bound to its employee_id"),
    ('[{"token": "secret-bot", "scope": "bot"}, {"token": "secret-bot", "scope": "admin"}]', "configured twice"),
])
def test_malformed_scopes_fail_at_startup_without_echoing_tokens(scopes, reason):
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None, api_token_scopes=scopes)
    assert reason in str(raised.value) and "secret-bot" not in str(raised.value)


def test_settings_keep_tokens_secret():
    settings = Settings(_env_file=None, api_tokens="plain-admin",
                        api_token_scopes='[{"token": "plain-bot", "scope": "bot"}]')
    shown = repr(settings) + str(settings) + repr(settings.token_grants())
    assert "plain-admin" not in shown and "plain-bot" not in shown


# --- a token bound to one employee (scope user) ---------------------------------------------------

def user_scopes(employee_id, token="ana-laptop"):
    return [{"token": sha256(token), "scope": "user", "employee_id": employee_id, "name": token}]


def test_a_user_token_asks_as_its_employee_and_sees_what_she_sees(api_settings, sqlite_engine, team):
    with scoped_client(api_settings, sqlite_engine, user_scopes(team["ana"])) as c:
        mine = ask(c, "ana-laptop")  # no employee_id, no telegram_id: the token says who asks
        as_admin = ask(c, "test-token", employee_id=team["ana"])
        chat = c.post("/api/v1/chat", json={"question": "login bug"}, headers=bearer("ana-laptop"))
        listed = c.get("/api/v1/conversations", headers=bearer("ana-laptop"))
        by_own_id = ask(c, "ana-laptop", employee_id=team["ana"])
        by_own_telegram = ask(c, "ana-laptop", telegram_id="9002")
    assert mine.status_code == 200 and mine.json()["caller"] == {"employee_id": team["ana"], "role": "DEVELOPER"}
    assert mine.json()["results"] == as_admin.json()["results"]  # exactly what Ana may see, her document included
    assert chat.status_code == 200 and chat.json()["caller"]["employee_id"] == team["ana"]
    assert [x["conversation_id"] for x in listed.json()["items"]] == [chat.json()["conversation_id"]]
    assert by_own_id.status_code == 200 and by_own_telegram.status_code == 200


def test_a_user_token_naming_anyone_else_is_refused(api_settings, sqlite_engine, team):
    with scoped_client(api_settings, sqlite_engine, user_scopes(team["ana"])) as c:
        boss_chat = c.post("/api/v1/chat", json={"message": "login bug", "employee_id": team["boss"]},
                           headers=AUTH).json()["conversation_id"]
        refused = [
            ask(c, "ana-laptop", employee_id=team["boss"]),
            ask(c, "ana-laptop", employee_id=424242),  # unknown: the same answer, nothing to probe
            ask(c, "ana-laptop", telegram_id="9001"),
            ask(c, "ana-laptop", telegram_id="nobody"),
            c.post("/api/v1/chat", json={"message": "hi", "employee_id": team["boss"]}, headers=bearer("ana-laptop")),
            c.get("/api/v1/conversations", params={"employee_id": team["boss"]}, headers=bearer("ana-laptop")),
        ]
        boss_conversation = c.get(f"/api/v1/conversations/{boss_chat}", headers=bearer("ana-laptop"))
        admin_only = [c.get(path, headers=bearer("ana-laptop")) for path in ("/api/v1/documents", "/api/v1/rag/status")]
    for response in refused:
        assert response.status_code == 403, response.text
        assert "may not act on behalf of" in response.json()["detail"]
    assert boss_conversation.status_code == 404  # someone else's conversation: as if it did not exist
    assert [r.status_code for r in admin_only] == [403, 403]
    assert "needs admin" in admin_only[0].json()["detail"]


def test_a_user_token_whose_employee_is_gone_finds_nobody(api_settings, sqlite_engine, team):
    with scoped_client(api_settings, sqlite_engine, user_scopes(team["ben"], "ben-laptop")) as c:
        assert c.delete(f"/api/v1/employees/{team['ben']}", headers=AUTH).status_code == 204
        response = ask(c, "ben-laptop")
    assert response.status_code == 404 and "does not exist" in response.json()["detail"]


def test_an_admin_or_bot_token_must_say_who_asks(api_settings, sqlite_engine, team):
    with scoped_client(api_settings, sqlite_engine, [{"token": "bot-token", "scope": "bot"}]) as c:
        for token in ("test-token", "bot-token"):
            response = ask(c, token)
            assert response.status_code == 422 and "who is asking" in response.text
            assert c.get("/api/v1/conversations", headers=bearer(token)).status_code == 422
        both = ask(c, "bot-token", employee_id=team["ana"], telegram_id="9002")
    assert both.status_code == 422 and "not both" in both.text
