"""``ragctl search``: search as an employee, from the terminal."""

from __future__ import annotations

import json

import click

from app.cli.root import CliEnv, cli, pass_env
from app.domain import MAX_ID
from app.rag.scope import ScopeError, build_scope


@cli.command()
@click.argument("text")
@click.option("--as", "as_employee", required=True, type=click.IntRange(1, MAX_ID), help="Employee id whose access applies.")
@click.option("--top-k", type=click.IntRange(1, 100), default=None, help="Results to return [default: RAG_TOP_K].")
@click.option("--project", default=None, help="A project id, 'none' (no project) or 'all'.")
@click.option("--sprint", "sprint_id", type=click.IntRange(1, MAX_ID), default=None, help="Only this sprint.")
@click.option("--source-types", default=None, help="Comma-separated: task,sprint,project,doc.")
@click.option("--doc-types", default=None,
              help="Comma-separated document types, e.g. WIKI,MEETING_NOTES (narrows documents only).")
@click.option("--mode", type=click.Choice(["hybrid", "vector", "lexical"]), default=None,
              help="hybrid (vector + lexical, fused), vector, or lexical (keywords only) [default: RAG_SEARCH_MODE]")
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
