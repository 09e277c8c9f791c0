"""The service's faces as the randomized access test asks them (scripts/bench_access.py, ``Face``): each one
a real protocol client speaking to the real face, asked as one employee through a token bound to them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client
from pydantic import SecretStr

from app.auth import TokenGrant
from app.config import Settings
from app.domain import Caller, Scope
from app.mcp.server import build_server
from scripts.bench_access import Seen

ANCHOR = re.compile(r"\[(?:TASK|SPRINT|PROJECT|DOC) #\d+\]")


class McpFace:
    """The MCP ``search`` tool through the SDK's client, JSON-RPC framed (the in-memory transport), as a
    user-bound grant of the asking employee: a developer's own token."""

    name = "mcp"

    def __init__(self, portal: Any, client: Client, asking: dict[str, TokenGrant]) -> None:
        self._portal, self._client, self._asking = portal, client, asking

    def ask(self, caller: Caller, question: str, k: int, scope: Scope, mode: str) -> Seen:
        self._asking["grant"] = TokenGrant(f"user-{caller.employee_id}", "user", b"", employee_id=caller.employee_id)
        project = scope.project if scope.project in ("all", "none") else int(scope.project)
        arguments = {"question": question, "top_k": k, "scope": project, "mode": mode}
        if scope.doc_types is not None:
            arguments["doc_types"] = list(scope.doc_types)
        result = self._portal.call(self._client.call_tool, "search", arguments)
        assert not result.is_error, result.content
        hits = result.structured_content["results"]
        assert result.structured_content["asker"]["employee_id"] == caller.employee_id
        return Seen([(h["source_type"], h["source_id"]) for h in hits], complete=True)


@contextmanager
def mcp_face(engine: Any, settings: Settings) -> Iterator[McpFace]:
    asking: dict[str, TokenGrant] = {}
    server = build_server(lambda: engine, settings, lambda ctx: asking["grant"], bound=True)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(server, mode="legacy")) as client:
        yield McpFace(portal, client, asking)


class OpenAIFace:
    """POST /v1/chat/completions through the official `openai` SDK on a real loopback server, the asker named
    in OpenAI's `user` field by a bot token; every record the answer names — its results, its citations and
    the anchors in its text — counts."""

    name = "openai"

    def __init__(self, client: Any) -> None:
        self._client = client

    def ask(self, caller: Caller, question: str, k: int, scope: Scope, mode: str) -> Seen:
        done = self._client.chat.completions.create(
            model=f"rag-{mode}", user=str(caller.employee_id), messages=[{"role": "user", "content": question}])
        assert done.rag["asker"]["employee_id"] == caller.employee_id
        named = [(r["source_type"], r["source_id"]) for r in done.rag["results"]]
        for anchor in [*done.citations, *ANCHOR.findall(done.choices[0].message.content or "")]:
            kind, number = re.match(r"\[(TASK|SPRINT|PROJECT|DOC) #(\d+)\]", anchor).groups()
            named.append(({"TASK": "task", "SPRINT": "sprint", "PROJECT": "project", "DOC": "doc"}[kind], int(number)))
        return Seen(named, complete=False)


@contextmanager
def openai_face(engine: Any, settings: Settings) -> Iterator[OpenAIFace]:
    import openai

    from app.api.main import create_app
    from tests.api.servers import serve

    scopes = SecretStr(json.dumps([{"token": "faces-bot", "scope": "bot"}]))
    app = create_app(settings.model_copy(update={"api_token_scopes": scopes, "run_worker": False,
                                                 "backfill_on_startup": False}), engine=engine)
    with serve(app, timeout_graceful_shutdown=2) as url:
        yield OpenAIFace(openai.OpenAI(base_url=f"{url}/v1", api_key="faces-bot", max_retries=0, timeout=60))
