"""``ragctl migrate`` and ``ragctl demo``: the schema and the demo data."""

from __future__ import annotations

import click
from tqdm import tqdm

from app.cli.root import CliEnv, cli, drain_with_progress, pass_env


@cli.command()
@pass_env
def migrate(env: CliEnv) -> None:
    """Apply pending database migrations (safe to run again).

    Example:

        RAG_DATABASE_URL=sqlite:///./data/rag.db ragctl migrate
    """
    with env.open(migrated=False) as engine:
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
    with env.open(migrated=False) as engine:
        engine.migrate()
        if reset:
            engine.wipe()
        with tqdm(total=total_rows(data), desc="seeding", unit="row") as bar:
            created = seed(engine, data, progress=bar.update)
        summary = ", ".join(f"{n} {name}" for name, n in created.items() if n) or "nothing (already seeded)"
        click.echo(f"created {summary}")
        drain_with_progress(engine, settings, Worker(engine, settings))
