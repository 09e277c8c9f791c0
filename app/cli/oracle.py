"""``ragctl oracle …``: Oracle-only administration."""

from __future__ import annotations

import click

from app.cli.root import CliEnv, cli, pass_env
from app.config import Settings
from app.engines.base import EngineError


@cli.group()
def oracle() -> None:
    """Oracle-only administration (RAG_DATABASE_URL=oracle://...).

    Example:

        ragctl oracle bootstrap
    """


@oracle.command()
@pass_env
def bootstrap(env: CliEnv) -> None:
    """Migrate the Oracle schema and load the ONNX embedding model once.

    Example:

        RAG_ONNX_MODEL_URL=https://... ragctl oracle bootstrap
    """
    _oracle_admin("bootstrap", env.get_settings())


@oracle.command(name="rebuild-index")
@pass_env
def rebuild_index(env: CliEnv) -> None:
    """Rebuild the IVF vector index (after large loads, when its accuracy drops).

    Example:

        ragctl oracle rebuild-index
    """
    _oracle_admin("rebuild_index", env.get_settings())


def _oracle_admin(action: str, settings: Settings) -> None:
    if settings.engine != "oracle":
        raise click.ClickException("this command needs an oracle:// RAG_DATABASE_URL")
    try:
        from app.services import oracle_admin  # lazy: python-oracledb is only needed here
    except ImportError as exc:
        raise click.ClickException(f"the Oracle admin module is not available: {exc}") from None
    try:
        outcome = getattr(oracle_admin, action)(settings)
    except EngineError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(outcome if isinstance(outcome, str) else f"{action.replace('_', '-')}: done")
