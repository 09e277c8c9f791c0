"""What every imported issue is held to before it is written, whatever its source (Jira REST, Jira files, GitHub):
the REST records API's bounds on text and lists, and the shapes no engine would store. Pure: no I/O.

Text past the API's caps is cut (and says so), links past MAX_LINKS are dropped (the first ones kept); an issue
whose key, people, comments, sprints or values no engine would store is refused whole *before* its page is
written, so it fails alone (counted and named in the pass's report) and never leaves half of itself behind.
"""

from __future__ import annotations

from dataclasses import replace

from app.engines import task_values
from app.records_model import check_external_key
from app.sources.model import SourceIssue, SourcePerson

# The REST records API's bounds (app/api/types.py, app/api/schemas.py; tests/sources/test_import_bounds.py checks
# they are the same numbers): a task's title and text, a comment's body.
MAX_TITLE_CHARS = 400
MAX_TEXT_CHARS = 100_000
MAX_COMMENT_CHARS = 20_000
MAX_LINKS = 200  # links of one task (as many as a multi-valued field may hold: task_values.MAX_VALUES)
CUT = " […]"  # what a cut text ends with


def cut(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[:limit - len(CUT)] + CUT


def bounded(issue: SourceIssue) -> SourceIssue:
    """The issue within the API's bounds: texts cut to their caps, at most MAX_LINKS links."""
    comments = tuple(replace(c, body=cut(c.body, MAX_COMMENT_CHARS) or "") if len(c.body or "") > MAX_COMMENT_CHARS
                     else c for c in issue.comments)
    return replace(issue, title=cut(issue.title, MAX_TITLE_CHARS) or issue.key,
                   description=cut(issue.description, MAX_TEXT_CHARS) or "",
                   environment=cut(issue.environment, MAX_TEXT_CHARS), comments=comments,
                   links=issue.links[:MAX_LINKS])


def problem(issue: SourceIssue) -> str | None:
    """Why no engine would store this issue (ValueError's words), or None: checked before its page is written."""
    try:
        check_external_key(issue.key, "issue key")
        for person in _people(issue):
            check_external_key(person.external_id, "person id")
        for comment in issue.comments:
            check_external_key(comment.external_id, "comment id")
        for sprint in (*issue.sprints, *((issue.sprint,) if issue.sprint else ())):
            check_external_key(sprint.external_id, "sprint id")
        for key in (issue.parent_key, *(link.target_key for link in issue.links)):
            if key is not None:
                check_external_key(key, "linked issue key")
        for column, given in (("LABELS", issue.labels), ("FIX_VERSIONS", issue.fix_versions),
                              ("COMPONENTS", issue.components), ("AFFECTS_VERSIONS", issue.affects_versions)):
            task_values.normalise(list(given), column)
    except ValueError as exc:
        return str(exc)
    return None


def _people(issue: SourceIssue) -> list[SourcePerson]:
    return [p for p in (issue.assignee, issue.reporter, issue.resolved_by, *(c.author for c in issue.comments))
            if p is not None]
