"""The MCP server through the official SDK's own client, over both transports: streamable HTTP at /mcp on a
real loopback server, and stdio to a real `ragctl mcp` process. Tools are listed with their schemas, each is
called, a developer never receives a row she may not see, and a bad token is refused."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from pydantic import SecretStr

from app.api.main import create_app
from app.mcp.tools import TOOLS

from .chat_data import seed
from .servers import serve

ADMIN, BOT, ANA = "test-token", "bot-token", "ana-laptop"
TOOL_NAMES = {"search", "find_tasks", "query_tasks", "get_entity", "search_projects", "list_my_tasks"}


def sha256(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


@pytest.fixture
def mcp_url(api_settings, sqlite_engine, ids):
    scopes = [{"token": BOT, "scope": "bot", "employee_ids": [ids["ana"], ids["luis"]]},
              {"token": sha256(ANA), "scope": "user", "employee_id": ids["ana"]}]
    settings = api_settings.model_copy(update={"api_token_scopes": SecretStr(json.dumps(scopes))})
    with serve(create_app(settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as url:
        yield f"{url}/mcp"


@asynccontextmanager
async def http_session(url: str, token: str | None, mode: str = "auto"):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            yield client


def run(coroutine_fn, *args):
    return anyio.run(coroutine_fn, *args)


async def call(client, name: str, **arguments):
    result = await client.call_tool(name, arguments)
    return result.is_error, (result.structured_content if not result.is_error else result.content[0].text)


def anchors(payload) -> set[str]:
    """Every anchor a tool result names, wherever it is."""
    return set(__import__("re").findall(r"\[(?:TASK|SPRINT|PROJECT|DOC) #\d+\]", json.dumps(payload)))


# --- streamable HTTP ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["auto", "legacy"])  # the 2026 protocol's discovery, and the initialize handshake
def test_a_user_token_lists_tools_without_an_asker_and_calls_each(mcp_url, ids, mode):
    async def go():
        async with http_session(mcp_url, ANA, mode) as client:
            listed = (await client.list_tools()).tools
            results = {
                "search": await call(client, "search", question="login bug password reset"),
                "find_tasks": await call(client, "find_tasks", priority="critical"),
                "get_entity": await call(client, "get_entity", type="task", id=ids["login"]),
                "search_projects": await call(client, "search_projects", query="payments"),
                "list_my_tasks": await call(client, "list_my_tasks"),
            }
            return listed, results

    listed, results = run(go)
    assert {t.name for t in listed} == TOOL_NAMES
    for tool in listed:
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
        assert "employee_id" not in tool.input_schema["properties"]  # the token says who asks
        assert tool.annotations.read_only_hint is True
    for name, (failed, payload) in results.items():
        assert not failed, (name, payload)
        assert payload["asker"] == {"employee_id": ids["ana"], "role": "DEVELOPER"}
    found = results["search"][1]
    assert found["results"][0]["anchor"] == f"[TASK #{ids['login']}]"
    assert all(r["content"].startswith(r["anchor"]) for r in found["results"])
    # Ana is a developer: the critical tasks are Luis's and an unassigned one, so she gets none.
    assert results["find_tasks"][1]["tasks"] == []
    projects = results["search_projects"][1]["projects"]
    assert projects[0]["anchor"] == f"[PROJECT #{ids['payments']}]" and projects[0]["summary_snippet"]
    assert [t["anchor"] for t in results["list_my_tasks"][1]["tasks"]] == [f"[TASK #{ids['login']}]"]
    entity = results["get_entity"][1]
    assert entity["anchor"] == f"[TASK #{ids['login']}]" and entity["text"].startswith(entity["anchor"])
    assert "Blocked until the auth service deploy" in entity["text"]  # the task with its comments


def test_get_entity_answers_a_hidden_id_exactly_like_a_missing_one(mcp_url, ids):
    async def go():
        async with http_session(mcp_url, ANA) as client:
            return (await call(client, "get_entity", type="task", id=ids["refund"]),  # Luis's task
                    await call(client, "get_entity", type="task", id=987_654),
                    await call(client, "get_entity", type="project", id=ids["payments"]))

    hidden, missing, visible = run(go)
    assert hidden[0] and missing[0] and not visible[0]
    assert hidden[1].replace(str(ids["refund"]), "N") == missing[1].replace("987654", "N")
    assert "Refund flow" not in hidden[1]


def test_an_admin_token_names_the_asker_and_a_developer_never_gets_another_rows(mcp_url, ids):
    async def go():
        async with http_session(mcp_url, ADMIN) as client:
            listed = (await client.list_tools()).tools
            boss = await call(client, "search", question="refund timeout payment sdk login", top_k=20,
                              employee_id=ids["boss"])
            ana = await call(client, "search", question="refund timeout payment sdk login", top_k=20,
                             employee_id=ids["ana"])
            ana_tasks = await call(client, "find_tasks", telegram_id="ana_tg")
            boss_tasks = await call(client, "find_tasks", employee_id=ids["boss"], unassigned=True)
            nobody = await call(client, "search", question="login")
            unknown = await call(client, "search", question="login", employee_id=424242)
            return listed, boss, ana, ana_tasks, boss_tasks, nobody, unknown

    listed, boss, ana, ana_tasks, boss_tasks, nobody, unknown = run(go)
    assert all({"employee_id", "telegram_id"} <= set(t.input_schema["properties"]) for t in listed)
    not_hers = {f"[TASK #{ids['refund']}]", f"[TASK #{ids['sdk']}]"}
    assert not_hers <= anchors(boss[1])  # the manager sees them...
    assert not anchors(ana[1]) & not_hers  # ...the developer never does
    assert [t["task_id"] for t in ana_tasks[1]["tasks"]] == [ids["login"]]
    assert [t["task_id"] for t in boss_tasks[1]["tasks"]] == [ids["sdk"]]
    assert nobody[0] and "who is asking" in nobody[1]
    assert unknown[0] and "does not exist" in unknown[1]


def test_a_bot_token_acts_only_for_its_employees_and_a_user_token_only_as_itself(mcp_url, ids):
    async def go():
        async with http_session(mcp_url, BOT) as bot, http_session(mcp_url, ANA) as ana:
            return (await call(bot, "list_my_tasks", employee_id=ids["luis"]),
                    await call(bot, "search", question="refund", employee_id=ids["boss"]),
                    await call(bot, "search", question="refund", employee_id=424242),
                    await call(ana, "search", question="refund", employee_id=ids["boss"]))

    luis, boss, unknown, impersonation = run(go)
    assert not luis[0] and [t["task_id"] for t in luis[1]["tasks"]] == [ids["refund"]]
    assert boss[0] and "may not act on behalf of employee" in boss[1]
    assert unknown[0] and "may not act on behalf of employee" in unknown[1]  # nothing to probe
    assert impersonation[0] and "Additional properties are not allowed" in impersonation[1]


def test_bad_arguments_are_tool_errors_the_agent_can_read(mcp_url, ids):
    async def go():
        async with http_session(mcp_url, ANA) as client:
            return [await call(client, "search", question=""),
                    await call(client, "search", question="x", mode="semantic"),
                    await call(client, "search", question="x", scope=0),
                    await call(client, "find_tasks", limit=1000),
                    await call(client, "no_such_tool")]

    for failed, message in run(go):
        assert failed and message, message
    assert "unknown tool" in message


def test_ids_past_the_databases_range_are_tool_errors_not_server_errors(mcp_url, ids):
    """JSON has no integer limit and the schemas say only "integer": an id the database cannot bind (past
    2**63 - 1) is the agent's mistake, answered as a tool error, never an internal error of the call."""
    huge = 2**64

    async def go():
        async with http_session(mcp_url, ADMIN) as admin, http_session(mcp_url, ANA) as ana:
            return (await call(admin, "search", question="login", employee_id=huge),
                    await call(ana, "get_entity", type="task", id=huge),
                    await call(ana, "get_entity", type="sprint", id=huge))

    asker, task_id, sprint_id = run(go)
    assert asker[0] and "employee_id: " in asker[1] and "is greater than the maximum" in asker[1]
    assert task_id[0] and sprint_id[0] and "id: " in task_id[1] and "is greater than the maximum" in task_id[1]


def test_issue_26_point_3_a_200000_character_project_query_is_refused_before_any_work(mcp_url, ids):
    """REST's project search takes at most 200 characters; MCP's search_projects took any length (200,000
    cost 4.4 s of CPU, 1.92 MB 199.8 s). Now every argument has its REST twin's bound, in the schema the agent
    lists and in the check made before the call reaches the service."""
    async def go():
        async with http_session(mcp_url, ANA) as client:
            listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            return listed, [await call(client, "search_projects", query="payments " * 25_000),
                            await call(client, "search_projects", query="p" * 201),
                            await call(client, "search_projects", query="   "),
                            await call(client, "find_tasks", assignee_name="x" * 201),
                            await call(client, "find_tasks", status="S" * 41),
                            await call(client, "get_entity", type="task", id=2**53),
                            await call(client, "search_projects", query="p" * 200)]

    listed, results = run(go)
    assert listed["search_projects"]["properties"]["query"]["maxLength"] == 200
    *refused, longest = results
    assert all(failed and message.startswith("invalid arguments: ") for failed, message in refused), refused
    # the bound is named, and the 225,000-character value is not sent back
    assert refused[0][1] == "invalid arguments: query: must be at most 200 characters"
    assert "does not match" in refused[2][1]
    assert longest[0] is False and longest[1]["projects"] is not None


def test_every_string_integer_and_array_argument_of_every_tool_is_bounded():
    """So a tool added later (or an argument added to a chat tool) cannot take an unbounded input."""
    def unbounded(schema, where):
        kind = schema.get("type")
        found = []
        if kind == "string" and not {"enum", "const", "maxLength"} & schema.keys():
            found.append(where)
        if (kind == "integer" and "maximum" not in schema) or (kind == "array" and "maxItems" not in schema):
            found.append(where)
        for key, sub in schema.get("properties", {}).items():
            found += unbounded(sub, f"{where}.{key}")
        if isinstance(schema.get("items"), dict):
            found += unbounded(schema["items"], f"{where}[]")
        for n, alternative in enumerate(schema.get("anyOf", [])):
            found += unbounded(alternative, f"{where}|{n}")
        return found

    assert [w for tool in TOOLS.values() for bound in (True, False)
            for w in unbounded(tool.input_schema(bound), tool.name)] == []


@pytest.mark.parametrize("token", [None, "wrong-token", f"{ANA}-and-more"])
def test_a_bad_token_is_refused_before_mcp(mcp_url, token):
    async def go():
        async with http_session(mcp_url, token) as client:
            await client.list_tools()

    with pytest.raises(Exception) as raised:  # the SDK gets no tools: the 401 surfaces as a JSON-RPC error
        run(go)
    assert "MCPError" in _flatten(raised.value)
    response = httpx2.post(mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                           headers={"Authorization": f"Bearer {token}"} if token else {})
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"


def _flatten(exc: BaseException) -> str:
    """Every message in an exception (group), with their causes."""
    parts = [repr(exc), repr(exc.__cause__)]
    for inner in getattr(exc, "exceptions", ()):
        parts.append(_flatten(inner))
    return " ".join(parts)


def test_every_tool_schema_is_valid_json_schema_for_both_kinds_of_token():
    import jsonschema

    for tool in TOOLS.values():
        for bound in (True, False):
            jsonschema.Draft202012Validator.check_schema(tool.input_schema(bound))


# --- stdio -------------------------------------------------------------------------------------------

def stdio_params(settings, **env) -> StdioServerParameters:
    base = {k: v for k, v in os.environ.items() if not k.startswith("RAG_")}
    ragctl = str(Path(sys.executable).with_name("ragctl"))  # the console script of this virtualenv
    return StdioServerParameters(command=ragctl, args=["mcp"], cwd=os.getcwd(), env={
        **base, "RAG_DATABASE_URL": settings.database_url, "RAG_API_TOKENS": ADMIN, "RAG_LOG_FORMAT": "text",
        **env})


def test_stdio_with_a_fixed_employee(sqlite_engine, sqlite_settings, ids):
    async def go():
        async with Client(stdio_params(sqlite_settings, RAG_MCP_EMPLOYEE_ID=str(ids["ana"]))) as client:
            listed = (await client.list_tools()).tools
            return listed, [await call(client, name, **args) for name, args in (
                ("search", {"question": "refund timeout payment sdk login", "top_k": 20}),
                ("find_tasks", {}), ("get_entity", {"type": "task", "id": ids["login"]}),
                ("search_projects", {"query": "mobile"}), ("list_my_tasks", {"open": True}))]

    listed, results = run(go)
    assert {t.name for t in listed} == TOOL_NAMES
    assert all("employee_id" not in t.input_schema["properties"] for t in listed)
    for failed, payload in results:
        assert not failed and payload["asker"]["employee_id"] == ids["ana"], payload
    assert not anchors(results[0][1]) & {f"[TASK #{ids['refund']}]", f"[TASK #{ids['sdk']}]"}
    assert [t["task_id"] for t in results[1][1]["tasks"]] == [ids["login"]]


def test_stdio_with_a_token(sqlite_engine, sqlite_settings, ids):
    async def go():
        async with Client(stdio_params(sqlite_settings, RAG_MCP_TOKEN=ADMIN)) as client:
            listed = (await client.list_tools()).tools
            return listed, await call(client, "find_tasks", employee_id=ids["boss"], priority="critical")

    listed, (failed, payload) = run(go)
    assert all("employee_id" in t.input_schema["properties"] for t in listed)  # an admin token names the asker
    assert not failed and {t["task_id"] for t in payload["tasks"]} == {ids["refund"], ids["sdk"]}


@pytest.mark.parametrize("env, message", [
    ({"RAG_MCP_TOKEN": "wrong-token"}, "matches no configured token"),
    ({}, "RAG_MCP_EMPLOYEE_ID or RAG_MCP_TOKEN"),
    ({"RAG_MCP_TOKEN": ADMIN, "RAG_MCP_EMPLOYEE_ID": "1"}, "not both"),
])
def test_stdio_refuses_to_start_without_a_known_asker(sqlite_settings, env, message):
    import subprocess

    params = stdio_params(sqlite_settings, **env)
    done = subprocess.run([params.command, *params.args], env=params.env, input="", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0 and message in done.stderr and done.stdout == ""


def test_an_unexpected_failure_is_a_plain_tool_error_without_the_servers_internals(mcp_url, ids, sqlite_engine):
    """A fault nobody planned for (here a table renamed under the running server) reaches the agent as one
    sentence; the exception, with its table names, goes to the log only."""
    sqlite_engine.conn.execute("ALTER TABLE TASKS RENAME TO TASKS_ELSEWHERE")

    async def go():
        async with http_session(mcp_url, ANA) as client:
            return await call(client, "find_tasks", priority="critical")

    failed, message = run(go)
    assert failed and message == "the server failed on this call (it is logged; the request id is in the logs)"


def test_several_people_matching_a_name_are_listed_by_name_and_id_only(mcp_url, ids, sqlite_engine):
    """Issue 26, point 13(b), decided (docs/CONFIGURATION.md): every asker may learn the directory (full
    name and id), as the tracker shows its members to each other, and nothing else about the people listed:
    not their role, email or Telegram id, and none of their tasks the asker may not see."""
    from tests.support import employee

    other = employee(sqlite_engine, "Ana", "Torres", role="MANAGER", telegram_id="secret_tg_9")

    async def go():
        async with http_session(mcp_url, ANA) as client:
            return await call(client, "find_tasks", assignee_name="Ana")

    failed, message = run(go)
    assert failed and message == (f"several employees match: Ana Garcia (id {ids['ana']}), Ana Torres (id {other}); "
                                  "ask which one, or pass assignee")
    assert not any(secret in message for secret in ("MANAGER", "example.com", "secret_tg_9", "ana_tg"))


def test_stdio_on_a_mistyped_database_path_refuses_to_start_and_creates_nothing(sqlite_settings, tmp_path):
    """Issue 26, point 13(c): it left an empty database file (and its directory) behind."""
    import subprocess

    mistyped = tmp_path / "dta" / "rag.db"
    settings = sqlite_settings.model_copy(update={"database_url": f"sqlite:///{mistyped}"})
    params = stdio_params(settings, RAG_MCP_EMPLOYEE_ID="2")
    done = subprocess.run([params.command, *params.args], env=params.env, input="", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert f"no database at {mistyped}" in done.stderr and "Traceback" not in done.stderr
    assert not mistyped.exists() and not mistyped.parent.exists()
