"""What a tracker's issue becomes before it is written: neutral records, the same for every source."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from app.records_model import LinkType


@dataclass(frozen=True)
class SourcePerson:
    """A user of the tracker: ``external_id`` is Jira's user key / accountId or GitHub's login."""

    external_id: str
    display_name: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class SourceProject:
    key: str  # Jira project key, GitHub OWNER/REPO
    name: str
    description: str | None = None


@dataclass(frozen=True)
class SourceSprint:
    external_id: str  # Jira sprint id, GitHub milestone number
    name: str
    status: str | None = None  # PLANNED / ACTIVE / CLOSED
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    goal: str | None = None


@dataclass(frozen=True)
class SourceComment:
    external_id: str  # Jira / GitHub comment id: an edited comment finds its row
    body: str
    author: SourcePerson | None
    created_at: dt.datetime | None  # UTC, naive


@dataclass(frozen=True)
class SourceLink:
    link_type: LinkType
    target_key: str


@dataclass(frozen=True)
class SourceIssue:
    key: str  # PAY-1210, octo/repo#123
    project: SourceProject
    title: str
    description: str
    issue_type: str | None
    status: str  # TODO / IN_PROGRESS / IN_REVIEW / DONE
    status_name: str | None  # the tracker's own name ("In Progress", "Patch Available"), beside ``status``
    priority: str  # CRITICAL / HIGH / MEDIUM / LOW
    due: dt.date | None
    story_points: float | None
    assignee: SourcePerson | None
    reporter: SourcePerson | None
    sprint: SourceSprint | None  # the current (last) sprint of the issue
    updated: dt.datetime  # UTC, naive: what the incremental cursor follows
    comments: tuple[SourceComment, ...] = ()
    links: tuple[SourceLink, ...] = ()
    labels: tuple[str, ...] = ()
    fix_versions: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    # The tracker fields of issue 31 (UTC, naive times; None / () where the tracker has none).
    created: dt.datetime | None = None
    resolved: dt.datetime | None = None  # Jira resolutiondate, GitHub closed_at
    resolution: str | None = None  # Jira resolution.name, GitHub state_reason (mapping.GITHUB_RESOLUTIONS)
    resolved_by: SourcePerson | None = None  # GitHub closed_by (Jira has no such field)
    affects_versions: tuple[str, ...] = ()
    environment: str | None = None
    parent_key: str | None = None  # Jira parent (a sub-task's, or a team-managed child's)
    # The tracker's own priority beside ours (V16 / Oracle V22): its name ("Major") and its place in the tracker's
    # order (1 = the most important; None = unknown).
    priority_name: str | None = None
    priority_rank: int | None = None
    # Every sprint the issue was in (Jira lists each sprint an unfinished issue was carried over through), ``sprint``
    # among them; () where the tracker has one sprint at most (GitHub's milestone): then ``sprint`` alone.
    sprints: tuple[SourceSprint, ...] = ()
    # The tracker restricts the issue (a Jira issue-security level, fields.security): no project membership grants
    # it (TASKS.RESTRICTED). GitHub never sets it.
    restricted: bool = False


@dataclass(frozen=True)
class FailedIssue:
    """An issue of a page that could not be read (a malformed shape): it fails alone, is counted and named in the
    pass's report, and holds the cursor at its time (``updated``, when it has one) so the next pass reads it again."""

    key: str
    updated: dt.datetime | None
    error: str


@dataclass
class SyncCounts:
    """The one-line summary every import and sync prints."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, other: SyncCounts) -> None:
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.deleted += other.deleted
        self.failed += other.failed
        self.errors.extend(other.errors)

    def summary(self) -> str:
        return (f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged, "
                f"{self.deleted} deleted, {self.failed} failed")


def by_comments(issues: Iterable[SourceIssue | FailedIssue], flush: int) -> Iterator[list[SourceIssue | FailedIssue]]:
    """Issues handed on in order, in pages that end once their comments reach ``flush``: a tracker page's comments
    are never all held at once."""
    page: list[SourceIssue | FailedIssue] = []
    held = 0
    for issue in issues:
        page.append(issue)
        held += len(issue.comments) if isinstance(issue, SourceIssue) else 0
        if held >= flush:
            yield page
            page, held = [], 0
    if page:
        yield page
