"""Chunk text templates (DESIGN.md). The bracketed anchor is what the LLM cites back."""

from __future__ import annotations

import datetime as dt

from app.records_model import CommentSource, DocSource, ProjectSource, SourceRecord, SprintSource, TaskSource

# How a task's links read in its chunk, in this order (TASK_LINKS.LINK_TYPE, read from the task's side).
LINK_LABELS = (("BLOCKED_BY", "Blocked by"), ("BLOCKS", "Blocks"), ("DEPENDS_ON", "Depends on"),
               ("DEPENDED_ON_BY", "Depended on by"), ("DUPLICATES", "Duplicates"), ("DUPLICATED_BY", "Duplicated by"),
               ("CLONES", "Clones"), ("CLONED_BY", "Cloned by"), ("RELATES", "Relates to"))
MAX_ENVIRONMENT_CHARS = 300  # the environment is one line of the chunk: its whitespace collapsed, cut here


def header_line(record: SourceRecord) -> str:
    """The first line of every chunk of an entity: its anchor and title (an imported task: its tracker key and
    issue type first, "[TASK #501] PAY-1210 (Bug) Refund fails")."""
    match record:
        case TaskSource():
            key = " ".join(part for part in (_or(record.external_key, ""),
                                             f"({record.issue_type.strip()})" if _or(record.issue_type, "") else "")
                           if part)
            return f"[TASK #{record.task_id}] {key + ' ' if key else ''}{record.title}"
        case SprintSource():
            return f"[SPRINT #{record.sprint_id}] {record.name} ({_or(record.status, '-')})"
        case ProjectSource():
            return f"[PROJECT #{record.project_id}] {record.name} ({_or(record.status, '-')})"
        case DocSource():
            return f"[DOC #{record.document_id}] {record.title}"
    raise TypeError(f"unknown source record {type(record).__name__}")


def body_sections(record: SourceRecord) -> list[str]:
    """The text after the header, as units a chunk may be split between.

    The first unit is the entity's fixed fields; each comment and each document paragraph is a
    unit of its own so a split never cuts one in half unless it alone exceeds the window.
    """
    match record:
        case TaskSource():
            lines = task_field_lines(record)
            if not record.comments:
                return ["\n".join(lines)]
            lines.append("Comments:")
            return ["\n".join(lines)] + [comment_line(c) for c in record.comments]
        case SprintSource():
            return [
                "\n".join(
                    [
                        f"Project: {_or(record.project_name, 'none')}",
                        f"Dates: {_date(record.start_date)} -> {_date(record.end_date)}",
                        f"Goal: {_or(record.goal, '-')}",
                    ]
                )
            ]
        case ProjectSource():
            lines = [f"Dates: {_date(record.start_date)} -> {_date(record.end_date)}"]
            if record.description and record.description.strip():
                lines.append(f"Description: {record.description.strip()}")
            return ["\n".join(lines)]
        case DocSource():
            return paragraphs(record.body or "")
    raise TypeError(f"unknown source record {type(record).__name__}")


def task_field_lines(record: TaskSource) -> list[str]:
    """A task's fields, one line each (a line whose value is empty is left out, except the fixed first ones),
    ending with its description."""
    lines = [
        f"Status: {_status(record.status, record.status_name)}"
        f" | Priority: {_status(record.priority, record.priority_name)}"
        f" | Sprint: {_or(record.sprint_name, 'none')}",
        f"Project: {_or(record.project_name, 'none')}",
        f"Assignee: {_person(record.assignee_first, record.assignee_last)}",
    ]
    reporter = _person(record.reporter_first, record.reporter_last)
    if record.reporter_id is not None and reporter != "unassigned":
        lines.append(f"Reporter: {reporter}")
    if record.story_points is not None:
        lines.append(f"Story points: {_number(record.story_points)}")
    if record.estimated_hours is not None:
        lines.append(f"Estimated hours: {_number(record.estimated_hours)}")
    lines.append(f"Due: {_date(record.expected_end_date)}")
    if record.created_at is not None:
        lines.append(f"Created: {_date(record.created_at)}")
    if _or(record.resolution, "") or record.resolved_at is not None:
        when = f" ({_date(record.resolved_at)})" if record.resolved_at is not None else ""
        lines.append(f"Resolution: {_or(record.resolution, 'Resolved')}{when}")
    for label, value in (("Labels", record.labels), ("Fix versions", record.fix_versions),
                         ("Affects versions", record.affects_versions), ("Components", record.components)):
        if _or(value, ""):
            lines.append(f"{label}: {_or(value, '')}")
    environment = " ".join((record.environment or "").split())
    if environment:
        cut = len(environment) > MAX_ENVIRONMENT_CHARS
        lines.append(f"Environment: {environment[:MAX_ENVIRONMENT_CHARS].rstrip()}{'…' if cut else ''}")
    parent = _or(record.parent_key, "") or (f"#{record.parent_id}" if record.parent_id is not None else "")
    if parent:
        lines.append(f"Parent: {parent}")
    for link_type, label in LINK_LABELS:
        keys = [link.target_key for link in record.links if link.link_type == link_type]
        if keys:
            lines.append(f"{label}: {', '.join(keys)}")
    lines.append(f"Description: {_or(record.description, '-')}")
    return lines


def comment_line(comment: CommentSource) -> str:
    """"- Chen Wei (2026-11-20): <body>": who wrote it and when, each left out where unknown."""
    who = _or(comment.author_name, "")
    when = f"({comment.created_at.date().isoformat()})" if comment.created_at is not None else ""
    by = " ".join(part for part in (who, when) if part)
    return f"- {by + ': ' if by else ''}{comment.body.strip()}"


def _status(status: str | None, name: str | None) -> str:
    """Our status (or priority), then the tracker's own name for it where that says something else ("IN_REVIEW (In QE
    Test)", "HIGH (Major)"; "In Progress" beside IN_PROGRESS adds nothing)."""
    shown = _or(status, "-")
    if not _or(name, "") or _folded(name) == _folded(status or ""):
        return shown
    return f"{shown} ({name.strip()})"


def _folded(label: str) -> str:
    return "".join(c for c in label.upper() if c.isalnum())


def paragraphs(text: str) -> list[str]:
    """Split on blank lines; keep non-empty paragraphs with their inner line breaks."""
    parts = [p.strip() for p in text.replace("\r\n", "\n").split("\n\n")]
    return [p for p in parts if p]


def _or(value: str | None, default: str) -> str:
    return value.strip() if value and value.strip() else default


def _person(first: str | None, last: str | None) -> str:
    name = " ".join(p.strip() for p in (first, last) if p and p.strip())
    return name or "unassigned"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _date(value: dt.date | dt.datetime | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, dt.datetime):
        value = value.date()
    return value.isoformat()
