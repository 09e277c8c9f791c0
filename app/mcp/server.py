"""The MCP server (official ``mcp`` SDK, low-level ``Server``) over the tools of app/mcp/tools.py.

Two transports, one server definition:

* **streamable HTTP** at ``/mcp`` on the API (``McpHttp``): the bearer token is checked by the API's
  TokenGate before the SDK sees the request, as on ``/api/``; each call asks as the token of *that*
  request (stateless mode: no session outlives a request, so no session can carry another token's
  identity). A token bound to one employee gets the tools without asker arguments, any other token the
  tools with ``employee_id`` / ``telegram_id``.
* **stdio** (``ragctl mcp``): the process opens the database itself; the asker is fixed by
  RAG_MCP_EMPLOYEE_ID, or by RAG_MCP_TOKEN matched against the API's tokens.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import jsonschema
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Receive, Scope, Send

from app.auth import TokenGrant
from app.config import Settings
from app.engines.base import EngineError
from app.mcp.tools import TOOLS, Tool, ToolFailed
from app.services import schema_errors
from app.services.askers import ForbiddenAskerError, resolve_asker
from app.services.search import UnknownCallerError

log = logging.getLogger(__name__)

NAME = "oracle-rag"
INSTRUCTIONS = (
    "Answers questions about a team's tasks, sprints, projects, comments and documents. Every result is limited "
    "to what the asking employee may see (the rule is applied inside the database query). Results carry anchors "
    "such as [TASK #12]: cite them. Use search for open questions, query_tasks for structured questions about "
    "tasks (any field, names allowed; counts, sums, rankings), find_tasks and list_my_tasks for simple lists, "
    "get_entity to read one task, sprint, project or document by its id, and search_projects to find a project's "
    "id.")
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                  open_world_hint=False)

GrantOf = Callable[[ServerRequestContext[Any, Any]], TokenGrant | None]


def build_server(engine_of: Callable[[], Any], settings: Settings, grant_of: GrantOf, bound: bool) -> Server[Any]:
    """One MCP server: ``bound`` ones serve tokens bound to one employee (no asker arguments)."""
    listed = [types.Tool(name=t.name, title=t.title, description=t.description, input_schema=t.input_schema(bound),
                         annotations=READ_ONLY) for t in TOOLS.values()]
    validators = {t.name: jsonschema.Draft202012Validator(t.input_schema(bound)) for t in TOOLS.values()}

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = TOOLS.get(params.name)
        if tool is None:
            return _failure(f"unknown tool {params.name!r}: the tools are {', '.join(TOOLS)}")
        arguments = dict(params.arguments or {})
        problems = sorted(validators[tool.name].iter_errors(arguments), key=lambda e: list(e.path))
        if problems:
            return _failure("invalid arguments: " + "; ".join(_problem(p) for p in problems))
        grant = grant_of(ctx)
        if grant is None:
            return _failure("no token: this request carries no bearer token the server accepted")
        try:
            result = await anyio.to_thread.run_sync(_run, tool, engine_of(), settings, grant, arguments)
        # The asker or the input, by the service's own errors: a bug's KeyError (a LookupError) or an OS
        # PermissionError is not the agent's to read, and goes to the catch-all below.
        except (ToolFailed, UnknownCallerError, ForbiddenAskerError, ValueError) as exc:
            return _failure(str(exc))
        except EngineError as exc:
            return _failure(f"the database cannot answer now: {exc}")
        except Exception:  # noqa: BLE001 (the SDK would hand the agent the raw text: table names, paths)
            log.exception("MCP tool %s failed", tool.name)
            return _failure("the server failed on this call (it is logged; the request id is in the logs)")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False, default=str))],
            structured_content=json.loads(json.dumps(result, default=str)), is_error=False)

    return Server(NAME, version="0.1.0", instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


def _run(tool: Tool, engine: Any, settings: Settings, grant: TokenGrant, arguments: dict[str, Any]) -> dict[str, Any]:
    """Resolve who asks (from EMPLOYEES, under the grant), then call the tool's service."""
    asker = resolve_asker(engine, grant, arguments.pop("employee_id", None), arguments.pop("telegram_id", None))
    result = tool.run(engine, settings, asker, arguments)
    return {"asker": {"employee_id": asker.employee_id, "role": asker.role.value}, **result}


def _failure(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def _problem(error: jsonschema.ValidationError) -> str:
    if error.validator == "anyOf" or len(error.message) > schema_errors.MAX_CHARS:  # never the huge value back
        return schema_errors.brief(error)
    where = ".".join(str(p) for p in error.path)
    return f"{where}: {error.message}" if where else error.message


# --- streamable HTTP, mounted on the API ---------------------------------------------------------------

def _request_grant(ctx: ServerRequestContext[Any, Any]) -> TokenGrant | None:
    """The grant the API's TokenGate put on this HTTP request (app/api/middleware.py)."""
    request = ctx.request
    state = getattr(request, "scope", {}).get("state") or {}
    grant = state.get("grant")
    return grant if isinstance(grant, TokenGrant) else None


class McpHttp:
    """The ASGI endpoint of ``/mcp``: the server whose tool schemas fit the request's token."""

    def __init__(self, engine_of: Callable[[], Any], settings: Settings) -> None:
        self._servers = {bound: build_server(engine_of, settings, _request_grant, bound) for bound in (True, False)}
        self._managers: dict[bool, StreamableHTTPSessionManager] = {}

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run both session managers for the API's lifetime (a manager runs once: a new one each start)."""
        # The bearer token is required and checked first, so a page in a browser tricked by DNS rebinding has no
        # credential to send: the SDK's Host/Origin allow-list would only refuse real host names.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        async with AsyncExitStack() as stack:
            managers = {bound: StreamableHTTPSessionManager(app=server, stateless=True, json_response=True,
                                                            security_settings=security)
                        for bound, server in self._servers.items()}
            for manager in managers.values():
                await stack.enter_async_context(manager.run())
            self._managers = managers
            try:
                yield
            finally:
                self._managers = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        grant = (scope.get("state") or {}).get("grant")
        manager = self._managers.get(isinstance(grant, TokenGrant) and grant.employee_id is not None)
        if manager is None:
            raise RuntimeError("the MCP endpoint is not running (the API's lifespan starts it)")
        await manager.handle_request(scope, receive, send)


# --- stdio -------------------------------------------------------------------------------------------

async def serve_stdio(engine: Any, settings: Settings, grant: TokenGrant) -> None:
    """Serve MCP on stdin/stdout as ``grant`` (a user grant: its employee; else the tools name the asker)."""
    server = build_server(lambda: engine, settings, lambda ctx: grant, grant.employee_id is not None)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
