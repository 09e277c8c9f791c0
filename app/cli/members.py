"""``ragctl members``: who belongs to a project (PROJECT_MEMBERS), the rows RAG_ACCESS_RULE=project reads."""

from __future__ import annotations

import json

import click

from app.cli.root import CliEnv, cli, pass_env
from app.domain import MAX_ID, MEMBER_SOURCES
from app.paging import CursorError
from app.services import members as service
from app.services.records import RecordNotFoundError

Id = click.IntRange(1, MAX_ID)


@cli.group("members")
def members() -> None:
    """Project membership: under RAG_ACCESS_RULE=project a developer also sees every task (with its comments and
    links) of each project they are a member of, from their next question (the worker need not run).

    Example:

        ragctl members add 3 7
        ragctl members list 3
        ragctl members remove 3 7
    """


@members.command("add")
@click.argument("project_id", type=Id)
@click.argument("employee_id", type=Id)
@click.option("--source", type=click.Choice(MEMBER_SOURCES), default="manual", show_default=True,
              help="Who sets it (a tracker sync replaces only its own source's rows).")
@pass_env
def add(env: CliEnv, project_id: int, employee_id: int, source: str) -> None:
    """Make EMPLOYEE_ID a member of PROJECT_ID (idempotent: a member stays one, with their first date).

    Example:

        ragctl members add 3 7
    """
    with env.open() as engine:
        try:
            member = service.add_member(engine, project_id, employee_id, source)
        except RecordNotFoundError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"employee {member.employee_id} is a member of project {member.project_id} since "
               f"{member.added_at.isoformat(timespec='seconds')} ({member.source})")


@members.command("remove")
@click.argument("project_id", type=Id)
@click.argument("employee_id", type=Id)
@pass_env
def remove(env: CliEnv, project_id: int, employee_id: int) -> None:
    """End EMPLOYEE_ID's membership of PROJECT_ID (nothing to do if they were none).

    Example:

        ragctl members remove 3 7
    """
    with env.open() as engine:
        try:
            removed = service.remove_member(engine, project_id, employee_id)
        except RecordNotFoundError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"employee {employee_id} {'is no longer' if removed else 'was not'} a member of project {project_id}")


@members.command("list")
@click.argument("project_id", type=Id)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@pass_env
def list_(env: CliEnv, project_id: int, as_json: bool) -> None:
    """Every member of PROJECT_ID, by employee id: employee id, source, since.

    Example:

        ragctl members list 3 --json
    """
    cursor = None
    with env.open() as engine:
        while True:
            try:
                page = service.list_members(engine, project_id, service.MAX_PAGE, cursor)
            except (RecordNotFoundError, CursorError) as exc:
                raise click.ClickException(str(exc)) from None
            for member in page.items:
                if as_json:
                    click.echo(json.dumps(service.as_dict(member), default=str))
                else:
                    click.echo(f"{member.employee_id}\t{member.source}\t{member.added_at.isoformat(timespec='seconds')}")
            if page.next_cursor is None:
                return
            cursor = page.next_cursor
