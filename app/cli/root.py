"""The ``ragctl`` group and what its commands share: settings, the engine, the drained-queue report.

Library errors become ``click.ClickException`` with a hint, so the exit code is non-zero and the
operator sees one line saying what to do, never a traceback.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import click
from pydantic import ValidationError
from tqdm import tqdm

from app.config import Settings
from app.engines.base import (EmbeddingModelError, Engine, EngineError, ModelMissingError, SchemaNotMigratedError,
                              UnavailableError)

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
    def open(self, migrated: bool = True) -> Iterator[Engine]:
        """The engine; with ``migrated`` (every command but those that migrate) a schema that is not
        migrated ends the command with one line naming `ragctl migrate`, before any table is read."""
        settings = self.get_settings()
        try:
            engine = self.engine
            if engine is None:
                from app.engines import open_engine

                engine = open_engine(settings)
            try:
                if migrated:
                    engine.check_schema()
                yield engine
            finally:
                if self.engine is None:
                    engine.close()
        except (UnavailableError, SchemaNotMigratedError) as exc:  # the message already says what to do
            raise click.ClickException(str(exc)) from None
        except EmbeddingModelError as exc:  # the message names the fix (install, or `ragctl backfill --force`)
            raise click.ClickException(str(exc)) from None
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


def drain_with_progress(engine: Engine, settings: Settings, w) -> None:
    """Drain the queue with a progress bar on stderr; a failed batch is an error with a hint."""
    pending = engine.status(settings.max_attempts).queue_rows  # the bar counts claimed rows
    with tqdm(total=pending, desc="indexing", unit="row") as bar:
        result = w.run_once(on_batch=lambda r: bar.update(r.claimed - r.failed))
    click.echo(f"indexed: {result.chunks_written} chunk(s) written, {result.chunks_unchanged} unchanged, "
               f"{result.sources_deleted} source(s) deleted")
    if result.failed:
        raise click.ClickException(f"indexing failed: {result.errors[-1]}\n"
                                   "Hint: the rows stay queued; see `ragctl status`, fix the cause, run again")
