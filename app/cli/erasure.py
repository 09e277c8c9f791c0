"""``ragctl erase-employee``: erase an employee's data, redact its quoted copies, re-index what showed it,
and prove it; or, with ``--resume``, finish or re-prove an erasure that stopped."""

from __future__ import annotations

import json

import click

from app.cli.root import CliEnv, cli, pass_env
from app.domain import MAX_ID
from app.engines.base import ConflictError
from app.services.records import InvalidRecordError, RecordNotFoundError


@cli.command("erase-employee")
@click.argument("employee_id", type=click.IntRange(1, MAX_ID))
@click.option("--reassign-documents-to", "reassign_to", type=click.IntRange(1, MAX_ID), default=None,
              metavar="OTHER_ID", help="Give the documents they own to this employee.")
@click.option("--delete-documents", is_flag=True, help="Delete the documents they own (and prove their text is gone).")
@click.option("--resume", is_flag=True, help="Finish an erasure that stopped, or re-prove one whose proof failed.")
@click.option("--json", "as_json", is_flag=True, help="Print the job and its proof as one JSON object.")
@pass_env
def erase_employee(env: CliEnv, employee_id: int, reassign_to: int | None, delete_documents: bool, resume: bool,
                   as_json: bool) -> None:
    """Erase an employee: their conversations, comments, documents (deleted or reassigned), task assignments
    and row; redact their name, email, Telegram id and texts where other people's conversations and the
    project summaries quote them; re-index the chunks that showed them; then prove that none of those
    strings is left in any table, the lexical index, the queue or (SQLite) the raw files.

    Each step is recorded in a job row that outlives the employee: after a crash or a failed proof,
    run again with --resume. Exits non-zero until the erasure is proven. Backups, copies of the file
    and (Oracle) undo/redo/flashback data are outside what the proof can see: see docs/OPERATIONS.md, "Erasure".

    Example:

        ragctl erase-employee 7 --reassign-documents-to 2
        ragctl erase-employee 7 --resume
    """
    from app.services.erasure import erase_employee as erase, proof_report, resume_erasure
    from app.worker import Worker

    if resume and (delete_documents or reassign_to is not None):
        raise click.UsageError("--delete-documents and --reassign-documents-to apply when an erasure starts, "
                               "not with --resume")
    settings = env.get_settings()

    def progress(step: str, outcome: dict) -> None:
        click.echo(f"step {step}: done", err=True)

    with env.open() as engine:
        drain = Worker(engine, settings).run_once
        try:
            if resume:
                result = resume_erasure(engine, employee_id, drain, on_step=progress)
            else:
                result = erase(engine, employee_id, drain, delete_documents, reassign_to, on_step=progress)
        except (RecordNotFoundError, InvalidRecordError, ValueError, ConflictError) as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), default=str))
    else:
        for line in proof_report(result):
            click.echo(line)
    if not result.ok:
        raise click.ClickException("erasure NOT proven: " + ("; ".join(result.failures) or "it did not finish")
                                   + f"; fix the cause, then `ragctl erase-employee {employee_id} --resume`")
