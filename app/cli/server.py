"""``ragctl serve`` and ``ragctl worker``: the long-running processes."""

from __future__ import annotations

import threading

import click

from app import logs
from app.cli.root import CliEnv, cli, drain_with_progress, pass_env
from app.engines.base import EngineError, UnavailableError


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535), help="TCP port.")
@pass_env
def serve(env: CliEnv, host: str, port: int) -> None:
    """Run the HTTP API (and, with RAG_RUN_WORKER=true, the drain job) under uvicorn.

    Example:

        RAG_API_TOKENS=dev-secret ragctl serve --host 0.0.0.0 --port 8000
    """
    import uvicorn

    from app.api.http_protocol import CredentialH11Protocol
    from app.api.main import create_app

    settings = env.get_settings()
    if not settings.token_grants():
        click.echo("warning: no API tokens (RAG_API_TOKENS, RAG_API_TOKEN_SCOPES), every data endpoint will answer 401",
                   err=True)
    _refuse_unwritable(env)
    logs.configure(settings.log_format)
    # log_config=None: uvicorn's loggers go through our handler; our middleware logs each request
    # with its request id, so uvicorn's own access line would only repeat it without one. The h11 protocol answers
    # a credential holding a NUL byte 401 like any other bad token (app/api/http_protocol.py).
    uvicorn.run(create_app(settings, env.engine), host=host, port=port, log_config=None, access_log=False,
                http=CredentialH11Protocol)


def _refuse_unwritable(env: CliEnv) -> None:
    """Exit with one line, not a startup traceback, when the database cannot take writes (read-only, full).

    Any other problem (schema not migrated yet) is left to /readyz, so an orchestrator can start the
    server before its migration job has run.
    """
    with env.open(migrated=False) as engine:
        try:
            engine.ping()
        except UnavailableError:
            raise
        except EngineError:
            pass


@cli.command()
@click.option("--once", is_flag=True, help="Drain the queue until it is empty, then exit.")
@pass_env
def worker(env: CliEnv, once: bool) -> None:
    """Run the indexing worker on its own (set RAG_RUN_WORKER=false on the API then).

    Example:

        ragctl worker --once
    """
    from app.summaries_job import start_summary_job
    from app.worker import Worker

    settings = env.get_settings()
    with env.open() as engine:
        w = Worker(engine, settings)
        if settings.backfill_on_startup:
            w.startup_backfill()
        if once:
            drain_with_progress(engine, settings, w)
            return
        logs.configure(settings.log_format)
        w.start()
        summaries = start_summary_job(engine, settings)
        click.echo(f"worker running (every {settings.worker_delay_ms} ms after the previous drain); Ctrl-C stops it", err=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            click.echo("stopping: the batch in progress finishes first", err=True)
        finally:
            w.stop()
            if summaries is not None:
                summaries.stop()
