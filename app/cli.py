"""``ragctl``: serve the API, run the worker, migrate, seed demo data, search and operate the index.

Library errors become ``click.ClickException`` with a hint, so the exit code is non-zero and the
operator sees one line saying what to do, never a traceback.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import click
from pydantic import ValidationError
from tqdm import tqdm

from app.config import Settings
from app.domain import MAX_ID
from app.engines.base import Engine, EngineError, ModelMissingError
from app.rag.scope import ScopeError, build_scope, parse_source_types

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


@dataclasses.dataclass
class CliEnv:
    """What the commands share. Tests inject ``settings`` and ``engine`` (an injected engine is not closed)."""

    settings: Settings | None = None
    engine: Engine | None = None

    def get_settings(self) -> Settings:
        if self.settings is None:
            try:
                self.settings = Settings()
            except ValidationError as exc:
                problems = "; ".join(e["msg"] for e in exc.errors())
                raise click.ClickException(f"bad configuration: {problems}\nHint: check the RAG_* variables and .env") from None
        return self.settings

    @contextmanager
    def open(self) -> Iterator[Engine]:
        settings = self.get_settings()
        try:
            engine = self.engine
            if engine is None:
                from app.engines import open_engine

                engine = open_engine(settings)
            try:
                yield engine
            finally:
                if self.engine is None:
                    engine.close()
        except ModelMissingError as exc:
            raise click.ClickException(f"{exc}\nHint: load the model with `ragctl oracle bootstrap`") from None
        except EngineError as exc:
            raise click.ClickException(f"{exc}\nHint: is RAG_DATABASE_URL right, and has `ragctl migrate` run?") from None


pass_env = click.make_pass_decorator(CliEnv, ensure=True)


@click.group(context_settings=CONTEXT_SETTINGS)
@click.option("-v", "--verbose", is_flag=True, help="Log at INFO level.")
def cli(verbose: bool) -> None:
    """Operate the RAG backend: API server, indexing worker, demo data, search.

    Configuration comes from RAG_* environment variables (or .env); RAG_DATABASE_URL picks the engine.

    Example:

        ragctl migrate && ragctl demo && ragctl search "login bug" --as 1
    """
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # APScheduler logs two INFO lines per run of the drain job (every RAG_WORKER_DELAY_MS); the
    # worker logs what a drain did itself, so keep only the scheduler's warnings and errors.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)


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

    from app.api.main import create_app

    settings = env.get_settings()
    if not settings.token_grants():
        click.echo("warning: no API tokens (RAG_API_TOKENS, RAG_API_TOKEN_SCOPES), every data endpoint will answer 401", err=True)
    logging.getLogger().setLevel(logging.INFO)
    uvicorn.run(create_app(settings, env.engine), host=host, port=port)


@cli.command()
@click.option("--once", is_flag=True, help="Drain the queue until it is empty, then exit.")
@pass_env
def worker(env: CliEnv, once: bool) -> None:
    """Run the indexing worker on its own (set RAG_RUN_WORKER=false on the API then).

    Example:

        ragctl worker --once
    """
    from app.worker import Worker

    settings = env.get_settings()
    with env.open() as engine:
        w = Worker(engine, settings)
        if settings.backfill_on_startup:
            w.startup_backfill()
        if once:
            _drain_with_progress(engine, settings, w)
            return
        logging.getLogger().setLevel(logging.INFO)
        w.start()
        click.echo(f"worker running (every {settings.worker_delay_ms} ms after the previous drain); Ctrl-C stops it", err=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            click.echo("stopping: the batch in progress finishes first", err=True)
        finally:
            w.stop()


@cli.command()
@pass_env
def migrate(env: CliEnv) -> None:
    """Apply pending database migrations (safe to run again).

    Example:

        RAG_DATABASE_URL=sqlite:///./data/rag.db ragctl migrate
    """
    with env.open() as engine:
        applied = engine.migrate()
    click.echo(f"applied {', '.join(applied)}" if applied else "schema is up to date")


@cli.command()
@click.option("--reset", is_flag=True, help="Delete every row (source, queue, chunks) first.")
@click.option("--tasks", default=None, type=click.IntRange(1, 5000), help="Number of tasks to generate [default: 150].")
@pass_env
def demo(env: CliEnv, reset: bool, tasks: int | None) -> None:
    """Seed deterministic demo data (projects, sprints, tasks, comments, documents), then index it.

    Running it again adds nothing. Employee 1 is a manager; employees 2-7 are mostly developers.

    Example:

        ragctl demo --reset
    """
    from app import demo_data
    from app.services.demo import seed, total_rows
    from app.worker import Worker

    settings = env.get_settings()
    data = demo_data.build(tasks=tasks or demo_data.DEFAULT_TASKS)
    with env.open() as engine:
        engine.migrate()
        if reset:
            engine.wipe()
        with tqdm(total=total_rows(data), desc="seeding", unit="row") as bar:
            created = seed(engine, data, progress=bar.update)
        summary = ", ".join(f"{n} {name}" for name, n in created.items() if n) or "nothing (already seeded)"
        click.echo(f"created {summary}")
        _drain_with_progress(engine, settings, Worker(engine, settings))


@cli.command()
@click.argument("text")
@click.option("--as", "as_employee", required=True, type=click.IntRange(1, MAX_ID), help="Employee id whose access applies.")
@click.option("--top-k", type=click.IntRange(1, 100), default=None, help="Results to return [default: RAG_TOP_K].")
@click.option("--project", default=None, help="A project id, 'none' (no project) or 'all'.")
@click.option("--sprint", "sprint_id", type=click.IntRange(1, MAX_ID), default=None, help="Only this sprint.")
@click.option("--source-types", default=None, help="Comma-separated: task,sprint,project,doc.")
@click.option("--doc-types", default=None,
              help="Comma-separated document types, e.g. WIKI,MEETING_NOTES (narrows documents only).")
@click.option("--mode", type=click.Choice(["hybrid", "vector"]), default=None, help="[default: RAG_SEARCH_MODE]")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with a `results` list.")
@pass_env
def search(env: CliEnv, text: str, as_employee: int, top_k: int | None, project: str | None, sprint_id: int | None,
           source_types: str | None, doc_types: str | None, mode: str | None, as_json: bool) -> None:
    """Search as an employee: only chunks that employee may see, best first.

    Example:

        ragctl search "invoice rounding" --as 2 --top-k 5 --project all --json
    """
    from app.services import search as searching

    settings = env.get_settings()
    try:
        scope = build_scope(project, sprint_id, source_types, doc_types)
    except ScopeError as exc:
        raise click.BadParameter(str(exc)) from None
    with env.open() as engine:
        try:
            caller = searching.resolve_caller(engine, employee_id=as_employee)
            found = searching.search(engine, text, caller, top_k or settings.top_k, scope, mode or settings.search_mode)
        except searching.UnknownCallerError as exc:
            raise click.ClickException(f"{exc}\nHint: `ragctl demo` seeds employees 1-8; GET /api/v1/employees lists them") from None
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    hits = found.result.hits
    if as_json:
        click.echo(json.dumps({
            "question": text,
            "caller": {"employee_id": caller.employee_id, "role": str(caller.role)},
            "mode": found.result.mode,
            "answered_by": found.result.answered_by,
            "timings_ms": {"embed": round(found.embed_ms, 3), "search": round(found.search_ms, 3)},
            "results": [{"source_type": h.source_type, "source_id": h.source_id, "chunk_ix": h.chunk_ix,
                         "content": h.content, "distance": h.distance} for h in hits],
        }, ensure_ascii=False))
        return
    click.echo(f"{len(hits)} result(s) for employee {caller.employee_id} ({caller.role}), {found.result.mode} "
               f"via {found.result.answered_by}, embed {found.embed_ms:.1f} ms, search {found.search_ms:.1f} ms")
    for rank, hit in enumerate(hits, 1):
        lines = hit.content.splitlines() or [""]
        click.echo(f"{rank:>3}. {lines[0]}  (distance {hit.distance:.3f})")
        for line in lines[1:3]:
            click.echo(f"       {line}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as one JSON object.")
@pass_env
def status(env: CliEnv, as_json: bool) -> None:
    """Show the indexing queue and the chunk index.

    Example:

        ragctl status --json
    """
    settings = env.get_settings()
    with env.open() as engine:
        st = engine.status(settings.max_attempts)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(st), default=str))
        return
    age = "-" if st.oldest_pending_age_s is None else f"{st.oldest_pending_age_s:.1f} s"
    click.echo(f"engine:   {st.engine}   model: {st.model_name} ({st.dimensions} dimensions)")
    click.echo(f"queue:    {st.pending} pending (oldest {age}), {st.failing} failing, {st.stuck} stuck")
    chunks = ", ".join(f"{k} {v}" for k, v in sorted(st.chunks_by_source_type.items())) or "none"
    click.echo(f"chunks:   {chunks}")
    for row in st.failing_rows:
        click.echo(f"  failing {row.source_type} #{row.source_id} ({row.attempts} attempts): {row.last_error}")
    if st.stuck:
        click.echo("hint: `ragctl retry` lets the worker take the stuck rows again")


@cli.command()
@click.option("--dry-run", is_flag=True, help="Only count the rows that would be queued.")
@click.option("--source-types", default=None, help="Comma-separated: task,sprint,project,doc [default: all].")
@click.option("--project", "project_id", type=click.IntRange(1, MAX_ID), default=None, help="Only rows of this project.")
@click.option("--force", is_flag=True, help="Queue rows that already have chunks too (re-index).")
@click.option("--limit", type=click.IntRange(1, MAX_ID), default=None, help="Queue at most N rows.")
@pass_env
def backfill(env: CliEnv, dry_run: bool, source_types: str | None, project_id: int | None, force: bool,
             limit: int | None) -> None:
    """Queue source rows that have no chunks (all of them with --force) and index them now.

    Example:

        ragctl backfill --source-types task,doc --project 2 --force
    """
    from app.services.indexing import enqueue_reindex
    from app.worker import Worker

    settings = env.get_settings()
    try:
        types = parse_source_types(source_types)
    except ScopeError as exc:
        raise click.BadParameter(str(exc), param_hint="--source-types") from None
    with env.open() as engine:
        counts = enqueue_reindex(engine, types, project_id=project_id, force=force, limit=limit, dry_run=dry_run)
        if dry_run:
            click.echo(f"would queue {counts['enqueued']} row(s)")
            return
        click.echo(f"queued {counts['enqueued']} row(s)")
        _drain_with_progress(engine, settings, Worker(engine, settings))


@cli.command()
@pass_env
def retry(env: CliEnv) -> None:
    """Let the worker take rows that failed RAG_MAX_ATTEMPTS times again.

    Example:

        ragctl retry && ragctl worker --once
    """
    with env.open() as engine:
        released = engine.retry_stuck()
    click.echo(f"released {released} stuck row(s); the worker takes them on its next run")


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


def _drain_with_progress(engine: Engine, settings: Settings, w) -> None:
    """Drain the queue with a progress bar on stderr; a failed batch is an error with a hint."""
    pending = engine.status(settings.max_attempts).pending
    with tqdm(total=pending, desc="indexing", unit="row") as bar:
        result = w.run_once(on_batch=lambda r: bar.update(r.claimed - r.failed))
    click.echo(f"indexed: {result.chunks_written} chunk(s) written, {result.chunks_unchanged} unchanged, "
               f"{result.sources_deleted} source(s) deleted")
    if result.failed:
        raise click.ClickException(f"indexing failed: {result.errors[-1]}\n"
                                   "Hint: the rows stay queued; see `ragctl status`, fix the cause, run again")


def main() -> None:
    cli(prog_name="ragctl")
