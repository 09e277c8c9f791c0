"""``ragctl summaries``: remake project auto-summaries now (the job does it in the background)."""

from __future__ import annotations

import dataclasses
import json

import click

from app.cli.root import CliEnv, cli, pass_env
from app.domain import MAX_ID


@cli.command()
@click.option("--project", "project_id", type=click.IntRange(1, MAX_ID), default=None,
              help="Only this project, remade even if it is up to date.")
@click.option("--force", is_flag=True, help="Remake every selected summary, even those up to date.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per project, as a list.")
@pass_env
def summaries(env: CliEnv, project_id: int | None, force: bool, as_json: bool) -> None:
    """Remake missing and out-of-date project summaries now, without waiting for the task interval.

    Needs RAG_LLM_URL and RAG_LLM_MODEL. A project the LLM could not summarise keeps its previous
    summary, and the command exits non-zero.

    Example:

        ragctl summaries --project 2 --json
    """
    from app.services.summaries import NoLLMError, ProjectSummarizer

    settings = env.get_settings()
    # "Now": task edits do not wait for RAG_SUMMARY_TASK_INTERVAL_S here.
    now_settings = settings.model_copy(update={"summary_task_interval_s": 0.0})
    with env.open() as engine:
        try:
            outcomes = ProjectSummarizer(engine, now_settings).refresh(
                None if project_id is None else [project_id], force=force or project_id is not None)
        except NoLLMError as exc:
            raise click.ClickException(f"{exc}\nHint: point RAG_LLM_URL at an OpenAI-compatible server") from None
    if project_id is not None and not outcomes:
        raise click.ClickException(f"there is no project {project_id}")
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(o) for o in outcomes]))
    else:
        for o in outcomes:
            detail = f" ({o.reason})" if o.reason else ""
            click.echo(f"project {o.project_id} {o.name}: {o.status.replace('_', ' ')}{detail}")
    failed = [o for o in outcomes if o.status == "failed"]
    if failed:
        raise click.ClickException(f"{len(failed)} summary(ies) not remade: the LLM answered "
                                   f"{failed[0].reason}; their previous summaries stay")
