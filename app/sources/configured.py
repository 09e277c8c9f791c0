"""The sources the settings name, built for a pass: Jira (v2 or v3 by its credentials) and GitHub repositories."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

from app.config import Settings
from app.sources.bounds import PassBounds
from app.sources.github import GitHubIssues, github_client
from app.sources.jira_rest import JiraREST, jira_client


def pass_bounds(settings: Settings) -> PassBounds:
    return PassBounds(response_s=settings.sync_response_timeout_s, response_bytes=settings.sync_max_response_bytes,
                      pass_s=settings.sync_pass_budget_s, pass_bytes=settings.sync_max_pass_bytes,
                      pass_pages=settings.sync_max_pages, issue_comments=settings.sync_max_comments_per_issue)


def retry_options(settings: Settings, sleep: Callable[[float], None] | None = None) -> dict[str, Any]:
    """The client's retry policy and bounds (a client serves one pass: build the source anew for each)."""
    options: dict[str, Any] = {"max_retries": settings.sync_max_retries, "max_wait_s": settings.sync_max_wait_s,
                               "bounds": pass_bounds(settings), "allow_http": settings.sync_allow_http}
    if sleep is not None:
        options["sleep"] = sleep
    return options


def jira_configured(settings: Settings) -> bool:
    """A Jira site to sync: its URL and credentials (RAG_JIRA_URL alone only names the site of a file import)."""
    return bool(settings.jira_url and (settings.jira_pat or (settings.jira_email and settings.jira_api_token)))


def jira_source(settings: Settings, **retry: Any) -> JiraREST:
    if not settings.jira_url:
        raise ValueError("RAG_JIRA_URL is not set: name the Jira site to sync (https://acme.atlassian.net)")
    client, api = jira_client(
        settings.jira_url, pat=settings.jira_pat.get_secret_value() if settings.jira_pat else None,
        email=settings.jira_email,
        api_token=settings.jira_api_token.get_secret_value() if settings.jira_api_token else None,
        **(retry or retry_options(settings)))
    projects = [p.strip() for p in (settings.jira_projects or "").split(",") if p.strip()]
    return JiraREST(client, api, projects, story_points_field=settings.jira_story_points_field or None,
                    sprint_field=settings.jira_sprint_field)


def github_source(settings: Settings, repo: str, **retry: Any) -> GitHubIssues:
    client = github_client(settings.github_token.get_secret_value() if settings.github_token else None,
                           settings.github_api_url, **(retry or retry_options(settings)))
    return GitHubIssues(client, repo, labels_map=github_labels(settings))


def github_repos(settings: Settings) -> list[str]:
    return [r.strip() for r in (settings.github_repos or "").split(",") if r.strip()]


def github_labels(settings: Settings) -> dict[str, dict[str, str]] | None:
    if not settings.github_label_map:
        return None
    try:
        data = json.loads(settings.github_label_map)
    except ValueError as exc:
        raise ValueError(f"RAG_GITHUB_LABEL_MAP is not JSON: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError('RAG_GITHUB_LABEL_MAP must be {"priority": {"label": "HIGH"}, "type": {"label": "Bug"}}')
    return {kind: {str(k).lower(): str(v) for k, v in table.items()} for kind, table in data.items()}


def overlap(settings: Settings) -> dt.timedelta:
    return dt.timedelta(seconds=settings.sync_overlap_s)


def source_builders(settings: Settings) -> dict[str, Callable[[], Any]]:
    """Every configured source by its name ("jira:<url>", "github:<repo>"), each built anew when called (a client
    serves one pass)."""
    builders: dict[str, Callable[[], Any]] = {}
    if jira_configured(settings):
        builders[f"jira:{settings.jira_url.rstrip('/')}"] = lambda: jira_source(settings)
    for repo in github_repos(settings):
        builders[f"github:{repo}"] = lambda repo=repo: github_source(settings, repo)
    return builders
