"""Jira issues as Jira's REST API returns them (v2 and v3 shapes alike) mapped to neutral records, and the
export files ``ragctl import jira`` reads. Pure functions apart from reading the files.

A body is wiki markup when it is a string (Server/Data Center, REST v2) and ADF when it is an object
(Cloud, REST v3), so one mapper serves both APIs and files saved from either.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.sources import mapping
from app.sources.markup import adf_to_text, wiki_to_text
from app.sources.model import SourceComment, SourceIssue, SourceLink, SourcePerson, SourceProject

# The fields a search asks for (the story-points and sprint custom fields are added from the settings).
SEARCH_FIELDS = ("summary", "description", "issuetype", "status", "priority", "duedate", "assignee", "reporter",
                 "comment", "issuelinks", "labels", "fixVersions", "components", "updated", "project", "sprint",
                 "closedSprints", "created", "resolutiondate", "resolution", "versions", "environment", "parent")
MAX_NAME = 200  # a resolution or version name as stored (TASKS.RESOLUTION, TASK_VALUES.VALUE)
MAX_TITLE = 500


class JiraFormatError(ValueError):
    """A file or page that is not a Jira issue, search page or project."""


def body_text(value: Any) -> str:
    return adf_to_text(value) if isinstance(value, (dict, list)) else wiki_to_text(value)


def person_of(user: Any) -> SourcePerson | None:
    """A Jira user object: Cloud names it by accountId, Server/Data Center by key (then name)."""
    if not isinstance(user, Mapping):
        return None
    ident = user.get("accountId") or user.get("key") or user.get("name")
    if not ident:
        return None
    return SourcePerson(str(ident), user.get("displayName") or None, (user.get("emailAddress") or None))


def comment_of(raw: Mapping[str, Any]) -> SourceComment:
    return SourceComment(str(raw.get("id") or ""), body_text(raw.get("body")), person_of(raw.get("author")),
                         mapping.parse_datetime(raw.get("created")))


def links_of(raw_links: Any) -> tuple[SourceLink, ...]:
    out = []
    for link in raw_links or ():
        kind = link.get("type") or {}
        if isinstance(link.get("outwardIssue"), Mapping):
            outward, phrase, target = True, kind.get("outward"), link["outwardIssue"].get("key")
        elif isinstance(link.get("inwardIssue"), Mapping):
            outward, phrase, target = False, kind.get("inward"), link["inwardIssue"].get("key")
        else:
            continue
        if target:
            ours = mapping.link_type(kind.get("name"), phrase, outward)
            out.append(SourceLink(ours, str(target)))  # type: ignore[arg-type]
    return tuple(dict.fromkeys(out))


def names_of(values: Any) -> tuple[str, ...]:
    """The names of Jira objects (versions, components), each whole, at most MAX_NAME characters kept."""
    return tuple(str(v.get("name")).strip()[:MAX_NAME] for v in values or ()
                 if isinstance(v, Mapping) and str(v.get("name") or "").strip())


def tracker_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of issue 31 as SourceIssue keywords: created, resolved and how, affects versions, environment,
    parent (a sub-task's parent, or a team-managed issue's)."""
    resolution = (fields.get("resolution") or {}).get("name") if isinstance(fields.get("resolution"), Mapping) else None
    parent = fields.get("parent")
    return {
        "created": mapping.parse_datetime(fields.get("created")),
        "resolved": mapping.parse_datetime(fields.get("resolutiondate")),
        "resolution": str(resolution).strip()[:MAX_NAME] or None if resolution else None,
        "affects_versions": names_of(fields.get("versions")),
        "environment": body_text(fields.get("environment")) or None,
        "parent_key": str(parent["key"]) if isinstance(parent, Mapping) and parent.get("key") else None,
    }


def priority_fields(fields: Mapping[str, Any], ranks: Mapping[str, int] | None) -> dict[str, Any]:
    """Our level, the tracker's own name and its rank (mapping.priority_rank) as SourceIssue keywords."""
    raw = fields.get("priority") if isinstance(fields.get("priority"), Mapping) else None
    name = str((raw or {}).get("name") or "").strip()[:mapping.MAX_PRIORITY_NAME] or None
    return {"priority": mapping.jira_priority(name), "priority_name": name,
            "priority_rank": mapping.priority_rank(raw, ranks)}


def sprint_values(fields: Mapping[str, Any], sprint_field: str | None) -> list[Any]:
    """Every sprint value an issue carries: ``sprint``, ``closedSprints``, and the sprint custom field —
    the configured one, or any custom field whose values look like sprints (objects with a board id and a
    state, or the old greenhopper strings)."""
    values: list[Any] = list(fields.get("closedSprints") or [])
    if fields.get("sprint"):
        values.append(fields["sprint"])
    names = [sprint_field] if sprint_field else [k for k in fields if k.startswith("customfield_")]
    for name in names:
        raw = fields.get(name)
        if isinstance(raw, list) and raw and all(_looks_like_sprint(v) for v in raw):
            values.extend(raw)
    return values


def _looks_like_sprint(value: Any) -> bool:
    if isinstance(value, str):
        return "greenhopper" in value and "[id=" in value
    return isinstance(value, Mapping) and "state" in value and ("boardId" in value or "originBoardId" in value
                                                                 or "rapidViewId" in value)


def issue_of(raw: Mapping[str, Any], comments: Sequence[Mapping[str, Any]] | None = None, *,
             story_points_field: str | None = None, sprint_field: str | None = None,
             projects: Mapping[str, Mapping[str, Any]] | None = None,
             priority_ranks: Mapping[str, int] | None = None) -> SourceIssue:
    """One Jira issue object as a neutral record. ``comments``: all of its comments when the caller fetched
    more than the search embedded; ``projects``: project objects by key (project.json) for their names;
    ``priority_ranks``: the site's priority order by id (REST), else a priority's rank is its numeric id."""
    key, fields = raw.get("key"), raw.get("fields")
    if not isinstance(key, str) or not isinstance(fields, Mapping):
        raise JiraFormatError(f"not a Jira issue (needs a key and fields): {str(raw)[:80]!r}")
    project_raw = fields.get("project") or (projects or {}).get(key.rsplit("-", 1)[0]) or {"key": key.rsplit("-", 1)[0]}
    project_key = str(project_raw.get("key") or key.rsplit("-", 1)[0])
    full = (projects or {}).get(project_key) or project_raw
    project = SourceProject(project_key, str(full.get("name") or project_key)[:200],
                            body_text(full.get("description")) or None)
    status = fields.get("status") or {}
    ours, original = mapping.jira_status((status.get("statusCategory") or {}).get("key"), status.get("name"))
    if comments is None:
        comments = (fields.get("comment") or {}).get("comments") or []
    points = fields.get(story_points_field) if story_points_field else None
    updated = mapping.parse_datetime(fields.get("updated")) or mapping.parse_datetime(fields.get("created"))
    sprints = sprint_values(fields, sprint_field)
    if updated is None:
        raise JiraFormatError(f"issue {key} has no updated date")
    return SourceIssue(
        key=key, project=project, title=(str(fields.get("summary") or key).strip() or key)[:MAX_TITLE],
        description=body_text(fields.get("description")),
        issue_type=((fields.get("issuetype") or {}).get("name") or None),
        status=ours, status_name=original, **priority_fields(fields, priority_ranks),
        due=mapping.parse_date(fields.get("duedate")),
        story_points=float(points) if isinstance(points, (int, float)) and not isinstance(points, bool) else None,
        assignee=person_of(fields.get("assignee")), reporter=person_of(fields.get("reporter")),
        sprint=mapping.current_sprint(sprints), sprints=mapping.all_sprints(sprints), updated=updated,
        comments=tuple(comment_of(c) for c in comments if isinstance(c, Mapping) and c.get("id")),
        links=links_of(fields.get("issuelinks")),
        labels=tuple(str(x).strip()[:MAX_NAME] for x in fields.get("labels") or () if str(x).strip()),
        fix_versions=names_of(fields.get("fixVersions")), components=names_of(fields.get("components")),
        **tracker_fields(fields),
    )


# --- export files -------------------------------------------------------------------------------

@dataclass(frozen=True)
class JiraExport:
    issues: list[Mapping[str, Any]]
    projects: dict[str, Mapping[str, Any]]
    files: int


def read_export(root: str | Path) -> JiraExport:
    """Every issue and project under ``root`` (searched recursively, files in name order): a file holds one
    issue (``{"id", "key", "fields"}``), a search page (``{"issues": [...]}``), a project (``project.json``,
    the /rest/api/2/project/{key} shape) or a list of projects (/rest/api/2/project)."""
    path = Path(root)
    if not path.exists():
        raise JiraFormatError(f"{root}: no such file or folder")
    files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
    issues: dict[str, Mapping[str, Any]] = {}
    projects: dict[str, Mapping[str, Any]] = {}
    for file in files:
        for kind, item in _items(file):
            if kind == "project":
                projects[str(item["key"])] = item
            else:
                issues[str(item["key"])] = item  # the same issue in two files: the later file wins
    return JiraExport(list(issues.values()), projects, len(files))


def _items(file: Path) -> Iterator[tuple[str, Mapping[str, Any]]]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise JiraFormatError(f"{file}: not readable JSON ({exc})") from None
    for item in data if isinstance(data, list) else [data]:
        if not isinstance(item, Mapping):
            raise JiraFormatError(f"{file}: expected Jira JSON objects")
        if isinstance(item.get("issues"), list):
            for issue in item["issues"]:
                if isinstance(issue, Mapping) and "key" in issue and "fields" in issue:
                    yield "issue", issue
        elif "fields" in item and "key" in item:
            yield "issue", item
        elif "key" in item and "name" in item:
            yield "project", item
        else:
            raise JiraFormatError(f"{file}: neither a Jira issue, a search page nor a project")


def issue_order(issue: Mapping[str, Any]) -> tuple:
    """Files are written in the order Jira would page them (by update time, then key)."""
    fields = issue.get("fields") or {}
    return (mapping.parse_datetime(fields.get("updated")) or mapping.parse_datetime(fields.get("created"))
            or dt.datetime.min,
            str(issue.get("key")))
