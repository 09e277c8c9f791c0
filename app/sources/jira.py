"""Jira issues as Jira's REST API returns them (v2 and v3 shapes alike) mapped to neutral records, and the
export files ``ragctl import jira`` reads. Pure functions apart from reading the files.

Export files are read by ``jira_files.py``.

A body is wiki markup when it is a string (Server/Data Center, REST v2) and ADF when it is an object
(Cloud, REST v3), so one mapper serves both APIs and files saved from either.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from app.sources import mapping
from app.sources.jira_files import JiraExport, JiraFormatError, issue_order, read_export  # noqa: F401 (API)
from app.sources.markup import adf_to_text, wiki_to_text
from app.records_model import check_external_key
from app.sources.model import FailedIssue, SourceComment, SourceIssue, SourceLink, SourcePerson, SourceProject

# The fields a search asks for (the story-points and sprint custom fields are added from the settings).
SEARCH_FIELDS = ("summary", "description", "issuetype", "status", "priority", "duedate", "assignee", "reporter",
                 "comment", "issuelinks", "labels", "fixVersions", "components", "updated", "project", "sprint",
                 "closedSprints", "created", "resolutiondate", "resolution", "versions", "environment", "parent",
                 "security")
MAX_NAME = 200  # a resolution or version name as stored (TASKS.RESOLUTION, TASK_VALUES.VALUE)
MAX_TITLE = 400  # the REST records API's title (app/api/schemas.py TaskCreate.title)



def body_text(value: Any) -> str:
    return adf_to_text(value) if isinstance(value, (dict, list)) else wiki_to_text(value)


def _obj(value: Any) -> Mapping[str, Any]:
    """A field that should be a JSON object, or {} when it is anything else (a string, a number, a list)."""
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    """A field that should be a JSON list, or [] when it is anything else (``labels: 5``)."""
    return list(value) if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    """A scalar field as text (a string or a number), None for anything else (an object, a list, a boolean)."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def person_of(user: Any) -> SourcePerson | None:
    """A Jira user object: Cloud names it by accountId, Server/Data Center by key (then name). The e-mail is
    kept as information only: a person is never matched nor given a role by it (app/sources/pipeline.py)."""
    if not isinstance(user, Mapping):
        return None
    ident = _text(user.get("accountId")) or _text(user.get("key")) or _text(user.get("name"))
    if not ident:
        return None
    return SourcePerson(ident, _text(user.get("displayName")), _text(user.get("emailAddress")))


def comment_of(raw: Mapping[str, Any], issue_time: dt.datetime | None = None) -> SourceComment:
    """A comment; one without ``created`` takes its ``updated``, else the issue's time (never fails its issue)."""
    created = mapping.parse_datetime(raw.get("created")) or mapping.parse_datetime(raw.get("updated")) or issue_time
    return SourceComment(str(raw.get("id") or ""), body_text(raw.get("body")), person_of(raw.get("author")), created)


def links_of(raw_links: Any) -> tuple[SourceLink, ...]:
    """The issue's links as ours, each once; an entry that is not a link object (``["x"]``) is skipped."""
    out = []
    for link in _list(raw_links):
        if not isinstance(link, Mapping):
            continue
        kind = _obj(link.get("type"))
        if isinstance(link.get("outwardIssue"), Mapping):
            outward, phrase, target = True, kind.get("outward"), _text(link["outwardIssue"].get("key"))
        elif isinstance(link.get("inwardIssue"), Mapping):
            outward, phrase, target = False, kind.get("inward"), _text(link["inwardIssue"].get("key"))
        else:
            continue
        if target:
            ours = mapping.link_type(_text(kind.get("name")), _text(phrase), outward)
            out.append(SourceLink(ours, target))  # type: ignore[arg-type]
    return tuple(dict.fromkeys(out))


def names_of(values: Any) -> tuple[str, ...]:
    """The names of Jira objects (versions, components), each whole, at most MAX_NAME characters kept; a bare
    string (``fixVersions: ["1.0"]``) is taken as the name."""
    names = (_text(v.get("name")) if isinstance(v, Mapping) else _text(v) for v in _list(values))
    return tuple(name[:MAX_NAME] for name in names if name)


def labels_of(values: Any) -> tuple[str, ...]:
    """Labels, each whole (Jira labels hold no space, but an export's may hold one or a comma: never split)."""
    return tuple(text[:MAX_NAME] for text in (_text(v) for v in _list(values)) if text)


def tracker_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of issue 31 as SourceIssue keywords: created, resolved and how, affects versions, environment,
    parent (a sub-task's parent, or a team-managed issue's)."""
    resolution = _text(_obj(fields.get("resolution")).get("name"))
    parent = fields.get("parent")
    return {
        "created": mapping.parse_datetime(fields.get("created")),
        "resolved": mapping.parse_datetime(fields.get("resolutiondate")),
        "resolution": resolution[:MAX_NAME] if resolution else None,
        "affects_versions": names_of(fields.get("versions")),
        "environment": body_text(fields.get("environment")) or None,
        "parent_key": _text(_obj(parent).get("key")),
    }


def priority_fields(fields: Mapping[str, Any], ranks: Mapping[str, int] | None) -> dict[str, Any]:
    """Our level, the tracker's own name and its rank (mapping.priority_rank) as SourceIssue keywords."""
    raw = fields.get("priority") if isinstance(fields.get("priority"), Mapping) else None
    name = (_text((raw or {}).get("name")) or "")[:mapping.MAX_PRIORITY_NAME] or None
    return {"priority": mapping.jira_priority(name), "priority_name": name,
            "priority_rank": mapping.priority_rank(raw, ranks)}


def sprint_values(fields: Mapping[str, Any], sprint_field: str | None) -> list[Any]:
    """Every sprint value an issue carries: ``sprint``, ``closedSprints``, and the sprint custom field —
    the configured one, or any custom field whose values look like sprints (objects with a board id and a
    state, or the old greenhopper strings)."""
    values: list[Any] = _list(fields.get("closedSprints"))
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
    ``priority_ranks``: the site's priority order by id (REST), else a priority's rank is its numeric id.
    A field of the wrong shape (a status as a string, ``labels: 5``) reads as absent; JiraFormatError only for
    what no issue can be written without: a key (1..200 characters) and an update or creation date."""
    key, fields = raw.get("key"), raw.get("fields")
    if not isinstance(key, str) or not isinstance(fields, Mapping):
        raise JiraFormatError(f"not a Jira issue (needs a key and fields): {str(raw)[:80]!r}")
    try:
        check_external_key(key, "issue key")
    except ValueError as exc:
        raise JiraFormatError(f"issue {key[:40]!r}…: {exc}") from None
    updated = mapping.parse_datetime(fields.get("updated")) or mapping.parse_datetime(fields.get("created"))
    if updated is None:
        raise JiraFormatError(f"issue {key} has no updated or created date")
    status = _obj(fields.get("status"))
    ours, original = mapping.jira_status(_text(_obj(status.get("statusCategory")).get("key")), _text(status.get("name")))
    if comments is None:
        comments = _list(_obj(fields.get("comment")).get("comments"))
    points = fields.get(story_points_field) if story_points_field else None
    sprints = sprint_values(fields, sprint_field)
    return SourceIssue(
        key=key, project=project_of(key, fields, projects),
        title=(_text(fields.get("summary")) or key)[:MAX_TITLE], description=body_text(fields.get("description")),
        issue_type=_text(_obj(fields.get("issuetype")).get("name")),
        status=ours, status_name=original, **priority_fields(fields, priority_ranks),
        due=mapping.parse_date(fields.get("duedate")),
        story_points=float(points) if isinstance(points, (int, float)) and not isinstance(points, bool) else None,
        assignee=person_of(fields.get("assignee")), reporter=person_of(fields.get("reporter")),
        sprint=mapping.current_sprint(sprints), sprints=mapping.all_sprints(sprints), updated=updated,
        comments=tuple(comment_of(c, updated) for c in comments if isinstance(c, Mapping) and _text(c.get("id"))),
        links=links_of(fields.get("issuelinks")), labels=labels_of(fields.get("labels")),
        fix_versions=names_of(fields.get("fixVersions")), components=names_of(fields.get("components")),
        **tracker_fields(fields), restricted=bool(_obj(fields.get("security"))),
    )


def project_of(key: str, fields: Mapping[str, Any], projects: Mapping[str, Mapping[str, Any]] | None) -> SourceProject:
    """The issue's project: ``fields.project``, named from ``projects`` (project.json) when given; else its key's."""
    from_key = key.rsplit("-", 1)[0]
    project_key = _text(_obj(fields.get("project")).get("key")) or from_key
    full = _obj((projects or {}).get(project_key)) or _obj(fields.get("project"))
    return SourceProject(project_key[:MAX_NAME], (_text(full.get("name")) or project_key)[:MAX_NAME],
                         body_text(full.get("description")) or None)


def mapped(raw: Any, **options: Any) -> SourceIssue | FailedIssue:
    """``issue_of``, or the issue's failure: whatever one malformed issue holds (a shape no mapper expects, markup
    nested past what can be read), it fails alone, named by its key, and its page goes on."""
    key = raw.get("key") if isinstance(raw, Mapping) else None
    fields = _obj(raw.get("fields")) if isinstance(raw, Mapping) else {}
    when = mapping.parse_datetime(fields.get("updated")) or mapping.parse_datetime(fields.get("created"))
    name = str(key)[:80] if key else "(an issue without a key)"
    try:
        return issue_of(raw, **options)
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError) as exc:
        return FailedIssue(name, when, f"not a readable Jira issue ({type(exc).__name__}: {str(exc)[:200]})")
