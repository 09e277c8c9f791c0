"""``ragctl mcp``: the MCP server over stdio, for a desktop client (Claude Desktop, an IDE agent)."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from app.auth import TokenGrant, match
from app.cli.root import CliEnv, cli, pass_env
from app.config import Settings


@cli.command()
@pass_env
def mcp(env: CliEnv) -> None:
    """Serve the MCP tools (search, find_tasks, query_tasks, get_entity, search_projects, list_my_tasks) on stdio.

    The asker is fixed when the process starts: RAG_MCP_EMPLOYEE_ID, or the employee of a user token in
    RAG_MCP_TOKEN (an admin or bot token there makes each call name the asker, limited as on the API).
    Nothing but the protocol is written to stdout; logs go to stderr. The index is kept by the API's
    worker or `ragctl worker`: this process only reads.

    Example:

        RAG_MCP_EMPLOYEE_ID=2 ragctl mcp
    """
    import anyio

    from app import logs
    from app.mcp.server import serve_stdio

    settings = env.get_settings()
    grant = asker_grant(settings)
    if env.engine is None:
        require_database_file(settings)
    logs.configure(settings.log_format)
    logging.getLogger("mcp").setLevel(logging.WARNING)  # the SDK logs every request at INFO
    with env.open() as engine:
        anyio.run(serve_stdio, engine, settings, grant)


def require_database_file(settings: Settings) -> None:
    """This process only reads: a SQLite path that names no file is a mistyped one, refused before SQLite
    would create an empty database there (and the directories to it)."""
    if settings.engine != "sqlite" or settings.sqlite_path == ":memory:":
        return
    path = Path(settings.sqlite_path).expanduser()
    if not path.is_file():
        raise click.ClickException(f"no database at {path} (RAG_DATABASE_URL={settings.database_url}): `ragctl mcp` "
                                   "only reads an existing one; check the path, or create it with `ragctl migrate`")


def asker_grant(settings: Settings) -> TokenGrant:
    """Who the stdio server asks as: a grant bound to RAG_MCP_EMPLOYEE_ID, or RAG_MCP_TOKEN's own grant."""
    if settings.mcp_employee_id is not None and settings.mcp_token is not None:
        raise click.ClickException("set RAG_MCP_EMPLOYEE_ID or RAG_MCP_TOKEN, not both")
    if settings.mcp_employee_id is not None:
        return TokenGrant("RAG_MCP_EMPLOYEE_ID", "user", b"", employee_id=settings.mcp_employee_id)
    if settings.mcp_token is None:
        raise click.ClickException("say who asks: set RAG_MCP_EMPLOYEE_ID or RAG_MCP_TOKEN\n"
                                   "Hint: RAG_MCP_EMPLOYEE_ID=2 ragctl mcp")
    grant = match(settings.token_grants(), settings.mcp_token.get_secret_value())
    if grant is None:
        raise click.ClickException("RAG_MCP_TOKEN matches no configured token (RAG_API_TOKENS, RAG_API_TOKEN_SCOPES)")
    return grant
