"""The access rule, in one place, as data both engines and the tests can use.

Managers and admins see every chunk. Developers see sprint, project and organisation-wide
document chunks (no owner), plus task chunks they are assigned and documents they own.
An unassigned task is visible to managers and admins only. Under RAG_ACCESS_RULE=project a developer
also sees every task chunk (assigned or not) of each project they are a member of: the caller carries
those projects (``Caller.member_projects``, read from PROJECT_MEMBERS when the caller is resolved), and
an engine tests them inside its query, beside the audience (``member_projects``). A task the tracker restricts
(TASKS.RESTRICTED: a Jira issue-security level) is never granted by a membership: only its assignee, managers and
admins see it — stricter than Jira, which also shows it to its reporter and the level's members, never wider.

``explain`` says which of these branches decides a verdict; it computes the verdict itself with
``is_visible``, so an explanation can never disagree with what a search returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.domain import Caller

PUBLIC = 0  # audience of chunks every employee may see
NOBODY = -1  # audience of chunks only managers/admins see (unassigned tasks)


def audience(source_type: str, owner_employee_id: int | None) -> int:
    """Collapse the rule into one integer so an engine can filter with ``AUDIENCE IN (0, :me)``.

    sqlite-vec applies ``IN`` on a metadata column inside the KNN but an ``OR`` after it, so a
    single-column membership test is what keeps a developer's top-k complete.
    """
    if source_type in ("sprint", "project"):
        return PUBLIC
    if owner_employee_id is None:
        return PUBLIC if source_type == "doc" else NOBODY
    return owner_employee_id


def visible_audiences(caller: Caller) -> tuple[int, ...] | None:
    """Audiences the caller may read; ``None`` means every chunk."""
    return None if caller.sees_everything else (PUBLIC, caller.employee_id)


def member_projects(caller: Caller) -> tuple[int, ...]:
    """Projects whose every task the caller sees besides their audiences (the project rule), sorted;
    empty under the assignee rule and for callers who see everything."""
    if caller.sees_everything or not caller.member_projects:
        return ()
    return tuple(sorted(caller.member_projects))


def by_membership(caller: Caller, source_type: str, project_id: int | None, restricted: bool = False) -> bool:
    """Whether a chunk is the caller's through a project membership (a task of a project they belong to that the
    tracker does not restrict)."""
    return (source_type == "task" and project_id is not None and not restricted and not caller.sees_everything
            and bool(caller.member_projects) and project_id in caller.member_projects)  # type: ignore[operator]


def is_visible(caller: Caller, source_type: str, owner_employee_id: int | None,
               project_id: int | None = None, restricted: bool = False) -> bool:
    allowed = visible_audiences(caller)
    return (allowed is None or audience(source_type, owner_employee_id) in allowed
            or by_membership(caller, source_type, project_id, restricted))


@dataclass(frozen=True)
class Verdict:
    """Whether a caller sees a chunk, and why, in the rule's words (the operator console shows it)."""

    visible: bool
    reason: str


def explain(caller: Caller, source_type: str, owner_employee_id: int | None,
            name_of: Callable[[int], str] = lambda employee_id: f"employee #{employee_id}",
            project_id: int | None = None, membership: Callable[[int], str] | None = None,
            restricted: bool = False) -> Verdict:
    """The verdict ``is_visible`` gives, with the branch of the rule that decides it.

    ``visible`` is computed exactly as the engines filter (the chunk's audience in the caller's
    visible audiences, or a task of a project they are a member of); the reason only names which
    branch that was. ``name_of`` turns an employee id into a name (the caller's or the owner's);
    ``membership`` a project id into the membership's words ("member of Payments Platform since …").
    """
    visible = is_visible(caller, source_type, owner_employee_id, project_id, restricted)
    aud = audience(source_type, owner_employee_id)
    allowed = visible_audiences(caller)
    if visible and allowed is not None and aud not in allowed and project_id is not None:
        reason = membership(project_id) if membership is not None else f"member of project #{project_id}"
    elif caller.sees_everything:
        reason = f"{caller.role.value.lower()} sees all"
    elif not visible and restricted and source_type == "task" and project_id in (caller.member_projects or ()):
        reason = "restricted in the tracker: its assignee, managers and admins only"
    elif aud == PUBLIC:
        reason = "organisation-wide document" if source_type == "doc" else f"every employee sees {source_type}s"
    elif aud == NOBODY:
        reason = "unassigned task: managers and admins only"
    else:
        reason = f"{'assigned to' if source_type == 'task' else 'owned by'} {name_of(aud)}"
    return Verdict(visible, reason)
