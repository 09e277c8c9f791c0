"""``ragctl status``, ``backfill`` and ``retry``: operate the indexing queue."""

from __future__ import annotations

import dataclasses
import json

import click

from app.cli.root import CliEnv, cli, drain_with_progress, pass_env
from app.domain import MAX_ID
from app.rag.scope import ScopeError, parse_source_types
from app.sources import report


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
        stopped = engine.unfinished_erasures()
        passes = report.last_passes(engine)  # each tracker's last import or sync, its failed issues named
    if as_json:
        click.echo(json.dumps({**dataclasses.asdict(st), "unfinished_erasures": [
            {"employee_id": j.employee_id, "step": j.step, "verdict": j.verdict} for j in stopped],
            "last_passes": passes}, default=str))
        return
    age = "-" if st.oldest_pending_age_s is None else f"{st.oldest_pending_age_s:.1f} s"
    click.echo(f"engine:   {st.engine}   model: {st.model_name} ({st.dimensions} dimensions)")
    entities = f"{st.pending} entit{'y' if st.pending == 1 else 'ies'}"
    click.echo(f"queue:    {entities} pending ({st.queue_rows} rows, oldest {age}); rows: {st.failing} failing, "
               f"{st.stuck} stuck")
    chunks = ", ".join(f"{k} {v}" for k, v in sorted(st.chunks_by_source_type.items())) or "none"
    click.echo(f"chunks:   {chunks}")
    if st.index.get("swap_target"):
        click.echo(f"vectors:  made by {st.index['vectors_model']}; re-embedding with {st.index['swap_target']} "
                   "(searches refused until it completes: `ragctl backfill --force`)")
    for row in st.failing_rows:
        click.echo(f"  failing {row.source_type} #{row.source_id} ({row.attempts} attempts): {row.last_error}")
    if st.stuck:
        click.echo("hint: `ragctl retry` lets the worker take the stuck rows again")
    for line in report.lines(passes):
        click.echo(line)
    for job in stopped:
        click.echo(f"erasure:  employee {job.employee_id} stopped after step {job.step}"
                   + (f" ({job.verdict})" if job.verdict else "")
                   + f": `ragctl erase-employee {job.employee_id} --resume`")


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
        drain_with_progress(engine, settings, Worker(engine, settings))
        _report_swap(engine.status(settings.max_attempts).index)


def _report_swap(index: dict) -> None:
    """After a forced backfill on SQLite: say which model the vectors are now, or why a swap is unfinished."""
    if index.get("swap_target"):
        raise click.ClickException(
            f"the re-embedding with {index['swap_target']} is not complete (chunks of {index['vectors_model']} "
            "remain): searches stay refused. `ragctl status` lists the rows still failing: fix or delete those "
            "sources (the swap ends with the next write) or `ragctl retry` them")
    if index.get("vectors_model"):
        click.echo(f"vectors: {index['vectors_model']}")


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
