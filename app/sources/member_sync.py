"""The membership step of a sync pass (issue 32): after a source's issues are written, the members of its projects
as the tracker grants them (app/sources/jira_members.py, github_members.py). Settings: RAG_JIRA_MEMBERS
(roles / off), RAG_GITHUB_MEMBERS (collaborators / everyone / off); docs/CONFIGURATION.md."""

from __future__ import annotations

import logging

from app.config import Settings
from app.engines.base import Engine
from app.sources import github_members, jira_members
from app.sources.github import GitHubIssues
from app.sources.jira_rest import JiraREST
from app.sources.memberships import MemberCounts

log = logging.getLogger(__name__)


def sync_source_members(engine: Engine, source: object, settings: Settings) -> MemberCounts | None:
    """The members step for one source just synced (its client still open); None when it has none (switched
    off, or another kind of source). Logged; a project that could not be read is a warning in the counts."""
    counts = None
    if isinstance(source, JiraREST) and settings.jira_members != "off":
        counts = jira_members.sync_members(engine, source.source, source.client, source.api, source.projects)
    elif isinstance(source, GitHubIssues) and settings.github_members != "off":
        counts = github_members.sync_members(engine, source.source, source.client, source.repo,
                                             settings.github_members)
    if counts is not None:
        log.info("sync %s: %s", source.source, counts.summary())
    return counts
