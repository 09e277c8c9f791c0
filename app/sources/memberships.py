"""Project membership taken from a tracker (issue 32): who a source says belongs to a project, written with
``Engine.replace_project_members`` so that source's rows of the project become exactly those people.

People are matched by the id the importers store in EMPLOYEES.EXTERNAL_ID under the source's name (a Jira
accountId on Cloud, a user key or name on Server/Data Center, ``github:<id>`` for GitHub), never by e-mail. A
person the tracker names who has no employee of that source yet (they never assigned, reported or commented
on an imported issue) is skipped and counted; they become a member at the first pass after they appear.

A project whose members could not be read (a 403 on the roles, a group that may not be listed) keeps its rows
as they were: a failed read is a warning in the pass's report, never an empty list that removes everyone.
The members a file import names come from a mapping file (source "file") or, when asked, from who was
assignee, reporter or commenter in the project (source "activity": a heuristic, see docs/IMPORT.md).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.engines.base import Engine
from app.entities import EMPLOYEES, PROJECTS
from app.sources.model import SourceIssue

log = logging.getLogger(__name__)

READ_AHEAD = 500  # external ids per find_by_external call (as the pipeline's read-ahead)

# One person as a tracker names them: the ids they may be stored under, the first found wins (a Server user
# is stored by key, or by name for an account whose key is its name).
Person = tuple[str, ...]


@dataclass
class MemberCounts:
    """The members line of a pass's report."""

    projects: int = 0  # projects whose members were written
    added: int = 0
    removed: int = 0
    skipped: int = 0  # people the tracker names with no employee of this source yet
    warnings: list[str] = field(default_factory=list)  # projects left as they were, and why

    def add(self, other: MemberCounts) -> None:
        self.projects += other.projects
        self.added += other.added
        self.removed += other.removed
        self.skipped += other.skipped
        self.warnings.extend(other.warnings)

    def summary(self) -> str:
        line = (f"members of {self.projects} project(s): {self.added} added, {self.removed} removed, "
                f"{self.skipped} skipped (not imported yet)")
        return line + (f", {len(self.warnings)} project(s) left as they were" if self.warnings else "")


def report_lines(source: str, counts: MemberCounts | None) -> list[str]:
    """The lines a command prints for a members step (none when there was none)."""
    if counts is None:
        return []
    return [f"{source}: {counts.summary()}", *(f"  warning: {w}" for w in counts.warnings)]


def apply(engine: Engine, source: str, member_source: str, project_key: str, people: Iterable[Person]) -> MemberCounts:
    """Make ``member_source``'s members of the project ``project_key`` (imported from ``source``) exactly the
    employees of ``source`` among ``people``."""
    counts = MemberCounts()
    project_id = engine.find_by_external(PROJECTS, source, [project_key]).get(project_key)
    if project_id is None:
        counts.warnings.append(f"{project_key}: not imported yet (no issue of it read); members not written")
        return counts
    people = list(dict.fromkeys(people))
    found = employees_of(engine, source, [ident for person in people for ident in person])
    ids = []
    for person in people:
        employee_id = next((found[i] for i in person if i in found), None)
        if employee_id is None:
            counts.skipped += 1
        else:
            ids.append(employee_id)
    counts.added, counts.removed = engine.replace_project_members(project_id, member_source, sorted(set(ids)))
    counts.projects = 1
    return counts


def employees_of(engine: Engine, source: str, external_ids: Sequence[str]) -> dict[str, int]:
    """External id -> employee id of the employees ``source`` imported, for those of ``external_ids`` it has."""
    wanted = list(dict.fromkeys(external_ids))
    found: dict[str, int] = {}
    for start in range(0, len(wanted), READ_AHEAD):
        found.update(engine.find_by_external(EMPLOYEES, source, wanted[start:start + READ_AHEAD]))
    return found


def everyone(engine: Engine, source: str, project_key: str) -> MemberCounts:
    """Every employee ``source`` imported is a member of its project (RAG_GITHUB_MEMBERS=everyone)."""
    people = [(ident,) for ident in engine.find_by_external(EMPLOYEES, source, None)]
    return apply(engine, source, "github", project_key, people)


def apply_all(engine: Engine, source: str, member_source: str,
              by_project: Mapping[str, Iterable[Person]]) -> MemberCounts:
    total = MemberCounts()
    for project_key, people in sorted(by_project.items()):
        total.add(apply(engine, source, member_source, project_key, people))
    return total


# --- file imports ---------------------------------------------------------------------------------

def read_members_file(path: str | Path) -> dict[str, list[Person]]:
    """``{"PAY": ["<account id>", …], …}``: project key -> the external ids of its members (as EXTERNAL_ID
    stores them). ValueError with what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"the members file {path} is not readable JSON: {exc}") from None
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(i, str) and i for i in v)
            for k, v in data.items()):
        raise ValueError(f'the members file {path} must map project keys to lists of account ids: '
                         '{"PAY": ["5b10a2844c20165700ede21g"]}')
    return {key: [(ident,) for ident in ids] for key, ids in data.items()}


def members_from_activity(issues: Iterable[SourceIssue]) -> dict[str, list[Person]]:
    """A heuristic: the members of each project are the people who were assignee, reporter (or closed an issue)
    or wrote a comment in it."""
    by_project: dict[str, dict[str, None]] = {}
    for issue in issues:
        seen = by_project.setdefault(issue.project.key, {})
        for person in (issue.assignee, issue.reporter, issue.resolved_by, *(c.author for c in issue.comments)):
            if person is not None:
                seen[person.external_id] = None
    return {key: [(ident,) for ident in people] for key, people in by_project.items()}


def after_file_import(engine: Engine, source: str, issues: Sequence[SourceIssue],
                      members: Mapping[str, Iterable[Person]] | None, from_activity: bool) -> MemberCounts | None:
    """The memberships a file import was asked for (None: neither option given): the mapping file's (``members``,
    read_members_file; source "file"), then the activity heuristic's (source "activity")."""
    if members is None and not from_activity:
        return None
    total = MemberCounts()
    if members is not None:
        total.add(apply_all(engine, source, "file", members))
    if from_activity:
        total.add(apply_all(engine, source, "activity", members_from_activity(issues)))
    for warning in total.warnings:
        log.warning("%s: %s", source, warning)
    return total
