"""``ragctl erase-employee``: erase an employee's data, re-index what showed it, and prove it."""

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
@click.option("--json", "as_json", is_flag=True, help="Print the result and the proof as one JSON object.")
@pass_env
def erase_employee(env: CliEnv, employee_id: int, reassign_to: int | None, delete_documents: bool,
                   as_json: bool) -> None:
    """Erase an employee: their comments, their documents (deleted or reassigned), their task
    assignments and their row; re-index the chunks that showed them; then prove that none of the
    erased strings is left in any table, the lexical index, the queue or (SQLite) the raw files.

    Exits non-zero when anything erased is still found. Backups, copies of the file and (Oracle)
    undo/redo/flashback data are outside what the proof can see: see README, "Erasure".

    Example:

        ragctl erase-employee 7 --reassign-documents-to 2
    """
    from app.services.erasure import erase_employee as erase, proof_report
    from app.worker import Worker

    settings = env.get_settings()
    with env.open() as engine:
        try:
            result = erase(engine, employee_id, Worker(engine, settings).run_once, delete_documents, reassign_to)
        except (RecordNotFoundError, InvalidRecordError, ValueError, ConflictError) as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), default=str))
    else:
        for line in proof_report(result):
            click.echo(line)
    if not result.ok:
        raise click.ClickException("erasure NOT proven: " + "; ".join(result.failures))
