"""The access rule, in one place, as data both engines and the tests can use.

Managers and admins see every chunk. Developers see sprint, project and organisation-wide
document chunks (no owner), plus task chunks they are assigned and documents they own.
An unassigned task is visible to managers and admins only.
"""

from __future__ import annotations

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


def is_visible(caller: Caller, source_type: str, owner_employee_id: int | None) -> bool:
    allowed = visible_audiences(caller)
    return allowed is None or audience(source_type, owner_employee_id) in allowed
