"""``ragctl import jira|github`` and ``ragctl sync jira|github``: bring a team's tracker in and keep it in sync.

Each prints one summary line per source (created / updated / unchanged / deleted / failed), the same for a
file import and a REST pass, then indexes what it queued (unless ``--no-index``). A tracker error (wrong
token, unknown project, a server that keeps failing) ends the command with one line saying what to check;
the pages already written stay, and the next pass resumes from their cursor.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import click
from tqdm import tqdm

from app.cli.root import CliEnv, cli, pass_env
from app.engines.base import Engine
from app.sources import configured, jira, memberships
from app.sources.github import check_repo
from app.sources.http import SourceError
from app.sources.mapping import read_people_map
from app.sources.member_sync import sync_source_members
from app.sources.model import SourceIssue, SyncCounts
from app.sources.passes import run_reported
from app.sources.pipeline import ReconcileRefusedError, import_issues, reconcile_deletions


@cli.group(name="import")
def import_group() -> None:
    """Import a tracker: Jira export files, or a GitHub repository's issues (docs/IMPORT.md).

    Example:

        ragctl import jira ./jira-export
    """


@cli.group()
def sync() -> None:
    """Keep a tracker in sync over REST (incremental, with deletions found by reconciliation).

    Example:

        ragctl sync jira --once
    """


no_index = click.option("--no-index", is_flag=True, help="Only write the rows; the worker indexes them later.")
once = click.option("--once", is_flag=True, help="Run one pass and exit (else a pass every RAG_SYNC_INTERVAL_S).")
full = click.option("--full", is_flag=True, help="Read every issue, not only those updated since the cursor.")


@import_group.command(name="jira")
@click.argument("path", type=click.Path(exists=True))
@click.option("--source", "source_url", default=None,
              help="The Jira site the files came from, as RAG_JIRA_URL names it for a sync [default: the issues' "
                   "self links, else RAG_JIRA_URL].")
@click.option("--prune", is_flag=True, help="Delete this site's imported tasks the export no longer holds.")
@click.option("--members", "members_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help='Project members from a JSON file {"PAY": ["<account id>", ...]} (source "file").')
@click.option("--members-from-activity", is_flag=True,
              help="Heuristic: a project's members are its assignees, reporters and commenters (source \"activity\").")
@no_index
@pass_env
def import_jira(env: CliEnv, path: str, source_url: str | None, prune: bool, members_file: str | None,
                members_from_activity: bool, no_index: bool) -> None:
    """Import Jira issues from JSON files (a folder is searched recursively): one issue, a search page
    ({"issues": [...]}) or a project.json per file. A second run over the same files writes nothing, and a later
    `sync jira` of the same site updates the same rows. Run `ragctl migrate` first.

    Example:

        ragctl import jira ./jira-export --source https://acme.atlassian.net --members members.json
    """
    settings = env.get_settings()
    try:
        export = jira.read_export(path)
        roles = read_people_map(settings.sources_people_file)
        source = f"jira:{_site(source_url, export.issues, settings.jira_url)}"
        members = memberships.read_members_file(members_file) if members_file else None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    for line in export.skipped:
        click.echo(f"warning: {line}", err=True)
    options = {"story_points_field": settings.jira_story_points_field or None,
               "sprint_field": settings.jira_sprint_field, "projects": export.projects}
    issues = [jira.mapped(raw, **options) for raw in sorted(export.issues, key=jira.issue_order)]
    with env.open() as engine, tqdm(total=len(issues), desc="importing", unit="issue") as bar:
        seen = [0]

        def progress(total: SyncCounts) -> None:
            done = total.created + total.updated + total.unchanged + total.failed
            bar.update(done - seen[0])
            seen[0] = done

        counts = import_issues(engine, source, issues, roles=roles, on_page=progress)
        bar.close()
        for line in memberships.report_lines(source, memberships.after_file_import(
                engine, source, [i for i in issues if isinstance(i, SourceIssue)], members, members_from_activity)):
            click.echo(line)
        if prune:
            try:
                counts.deleted += reconcile_deletions(engine, source, {str(raw["key"]) for raw in export.issues})
            except ReconcileRefusedError as exc:
                raise click.ClickException(f"--prune: {exc}") from None
        _report(source, counts, engine, env, no_index)


@import_group.command(name="github")
@click.argument("repo")
@no_index
@pass_env
def import_github(env: CliEnv, repo: str, no_index: bool) -> None:
    """Import every issue of a GitHub repository (pull requests skipped), with its comments and milestones.

    Example:

        RAG_GITHUB_TOKEN=... ragctl import github octo-org/octo-repo
    """
    settings = env.get_settings()
    try:
        check_repo(repo)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="REPO") from None
    try:
        source = configured.github_source(settings, repo)
    except ValueError as exc:  # RAG_GITHUB_LABEL_MAP
        raise click.ClickException(str(exc)) from None
    with env.open() as engine:
        _pass(engine, source, settings, reconcile=True, full=True, env=env, no_index=no_index)


@sync.command(name="jira")
@once
@full
@no_index
@pass_env
def sync_jira(env: CliEnv, **flags: bool) -> None:
    """Sync the Jira projects of RAG_JIRA_PROJECTS from RAG_JIRA_URL: issues updated since the last pass,
    and the deletions and moves found by a reconciliation of keys.

    Example:

        RAG_JIRA_URL=https://jira.example.com RAG_JIRA_PAT=... RAG_JIRA_PROJECTS=PAY,MOB ragctl sync jira --once
    """
    settings = env.get_settings()
    _loop(env, [lambda: configured.jira_source(settings)], **flags)


@sync.command(name="github")
@once
@full
@no_index
@pass_env
def sync_github(env: CliEnv, **flags: bool) -> None:
    """Sync the repositories of RAG_GITHUB_REPOS: issues updated since the last pass, and deletions.

    Example:

        RAG_GITHUB_TOKEN=... RAG_GITHUB_REPOS=octo-org/octo-repo ragctl sync github --once
    """
    settings = env.get_settings()
    repos = configured.github_repos(settings)
    if not repos:
        raise click.ClickException("RAG_GITHUB_REPOS is not set: name the repositories to sync (octo-org/octo-repo)")
    _loop(env, [lambda repo=repo: configured.github_source(settings, repo) for repo in repos], **flags)


def _loop(env: CliEnv, builders: list[Callable], *, once: bool, full: bool, no_index: bool) -> None:
    """One pass of each source (``--once``), or passes every RAG_SYNC_INTERVAL_S until Ctrl-C."""
    settings = env.get_settings()
    if not once and settings.sync_interval_s <= 0:
        raise click.ClickException("RAG_SYNC_INTERVAL_S is 0: use --once, or set an interval in seconds")
    passes = 0
    with env.open() as engine:
        while True:
            for build in builders:
                try:
                    source = build()
                except ValueError as exc:
                    raise click.ClickException(str(exc)) from None
                reconcile = once or passes % settings.sync_reconcile_every == 0
                _pass(engine, source, settings, reconcile=reconcile, full=full and passes == 0, env=env,
                      no_index=no_index, keep_going=not once)
            passes += 1
            if once:
                return
            try:
                threading.Event().wait(settings.sync_interval_s)
            except KeyboardInterrupt:
                return


def _pass(engine: Engine, source, settings, *, reconcile: bool, full: bool, env: CliEnv, no_index: bool,
          keep_going: bool = False) -> None:
    roles = read_people_map(settings.sources_people_file)
    with tqdm(desc=f"syncing {source.source}", unit="issue") as bar:
        def progress(counts: SyncCounts) -> None:
            bar.update(counts.created + counts.updated + counts.unchanged + counts.failed)

        try:
            if full:
                engine.set_sync_cursor(source.source, None)  # cleared: this pass reads everything
            members: list = []
            counts = run_reported(engine, source, overlap=configured.overlap(settings), reconcile=reconcile,
                                  roles=roles, on_page=progress,  # kept for `ragctl status`; closes the client
                                  then=lambda: members.append(sync_source_members(engine, source, settings)))
            member_lines = memberships.report_lines(source.source, members[0] if members else None)
        except (SourceError, ReconcileRefusedError, ValueError) as exc:
            bar.close()
            if keep_going:
                click.echo(f"{source.source}: {exc}", err=True)
                return
            raise click.ClickException(f"{source.source}: {exc}\nHint: the pages already written stay; the next "
                                       "pass resumes from their cursor") from None
    for line in member_lines:
        click.echo(line)
    _report(source.source, counts, engine, env, no_index)


def _report(source: str, counts: SyncCounts, engine: Engine, env: CliEnv, no_index: bool) -> None:
    click.echo(f"{source}: {counts.summary()}")
    for error in counts.errors[:10]:
        click.echo(f"  failed: {error}", err=True)
    if len(counts.errors) > 10:
        click.echo(f"  … and {len(counts.errors) - 10} more (the log names each)", err=True)
    if not no_index:
        _index(engine, env.get_settings())
    if counts.failed:
        raise click.ClickException(f"{counts.failed} issue(s) failed to import (listed above); the rest is written, "
                                   "and the next pass or import tries them again")


def _index(engine: Engine, settings, *, poll_s: float = 0.5, patience_s: float = 60.0) -> None:
    """Index what the import queued, with a progress bar in entities (an import queues one row per entity). When
    another worker (``ragctl serve``) holds the drain, its progress is followed until the queue is empty, and a
    queue that stops moving is said, never passed off as done."""
    from app.worker import Worker

    def waiting() -> int:  # rows the worker can still take, as the bar's updates (claimed rows) count them
        st = engine.status(settings.max_attempts)
        return max(0, st.queue_rows - st.stuck)

    left = waiting()
    if not left:
        return
    with tqdm(total=left, desc="indexing", unit="entity") as bar:
        result = Worker(engine, settings).run_once(on_batch=lambda r: bar.update(r.claimed - r.failed))
        if result.failed:
            bar.close()
            raise click.ClickException(f"indexing failed: {result.errors[-1]}\nHint: the rows stay queued; see "
                                       "`ragctl status`, fix the cause, run again")
        still, last_move = waiting(), time.monotonic()
        while still and time.monotonic() - last_move < patience_s:  # another worker holds the drain: follow it
            time.sleep(poll_s)
            now = waiting()
            if now < still:
                last_move = time.monotonic()
            bar.n = max(0, left - now)
            bar.refresh()
            still = now
    if still:
        click.echo(f"indexing: {still} entit{'y' if still == 1 else 'ies'} still queued and another worker is not "
                   "moving them; `ragctl status` shows them (searches find their rows once indexed)", err=True)
    else:
        click.echo(f"indexed: {left} entit{'y' if left == 1 else 'ies'}")


def _site(given: str | None, issues: list, configured_url: str | None) -> str:
    """The Jira site a file import belongs to, as a sync of that site names its source (``jira:<URL>``): ``--source``,
    else the issues' ``self`` links, else RAG_JIRA_URL; ValueError when none names it (rows stored under a made-up
    name would be imported a second time by the sync)."""
    linked = _site_of(issues)
    site = given or linked or configured_url
    if not site:
        raise ValueError("name the Jira site the files came from: --source https://acme.atlassian.net (or set "
                         "RAG_JIRA_URL), so a later `ragctl sync jira` of that site updates these rows instead of "
                         "importing them again")
    parts = urlsplit(site.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--source must be the site's URL (https://acme.atlassian.net), got {site!r}")
    site = site.strip().rstrip("/")
    if given is None and linked and configured_url and configured_url.rstrip("/") != linked:
        click.echo(f"warning: the files' self links name {linked}, RAG_JIRA_URL {configured_url}: imported as "
                   f"{linked} (--source chooses)", err=True)
    return site


def _site_of(issues: list) -> str | None:
    """The Jira site of an export, from its issues' ``self`` links (https://acme.atlassian.net/rest/api/2/…)."""
    for issue in issues:
        link = issue.get("self")
        if isinstance(link, str) and "/rest/api/" in link:
            parts = urlsplit(link)
            return f"{parts.scheme}://{parts.netloc}{parts.path.split('/rest/api/')[0]}".rstrip("/")
    return None
