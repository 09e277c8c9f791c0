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


@oracle.command(name="migration-rerun")
@pass_env
def migration_rerun(env: CliEnv) -> None:
    """Forget the newest applied migration and apply it again (a test database only): every statement must be kept
    or rerun harmlessly, and the catalogue must not change (REVIEW-4 U2; `make test-oracle` runs it).

    Example:

        RAG_DATABASE_URL=oracle://app@localhost:1521/FREEPDB1 ragctl oracle migration-rerun
    """
    _oracle_admin("migration_rerun", env.get_settings())


@oracle.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON document instead of one line per check.")
@click.option("--strict", is_flag=True,
              help="Also exit 1 when a needed check was skipped (unproven), as `make test-oracle` runs it.")
@pass_env
def doctor(env: CliEnv, as_json: bool, strict: bool) -> None:
    """Prove on this database each statement shape the engine relies on (PASS/WARN/FAIL/SKIP per line).

    Checks run in scratch rows and rolled-back transactions; the upsert form that works is stored
    (RAG_SETTINGS) for the worker. Exit status: 0 everything the service needs passed (warnings,
    such as a selected fallback, do not fail), 1 a needed check failed (with --strict: or was
    skipped), 2 cannot connect.

    \b
    Example:
        RAG_DATABASE_URL=oracle://app@dbhost:1521/FREEPDB1 ragctl oracle doctor
        ragctl oracle doctor --json
        ragctl oracle doctor --strict
    """
    settings = env.get_settings()
    if settings.engine != "oracle":
        raise click.ClickException("this command needs an oracle:// RAG_DATABASE_URL")
    from app.rag.doctor import render_json, render_text
    from app.services import oracle_doctor  # lazy: python-oracledb is only needed here

    results, code = oracle_doctor.run(settings, strict=strict)
    click.echo(render_json(results, code, strict) if as_json else render_text(results, strict))
    raise SystemExit(code)


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
