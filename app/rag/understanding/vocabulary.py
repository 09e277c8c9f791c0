"""The words a question may use, read from the data (``Engine.tracker_values``). Pure: no I/O.

Project, sprint and people names are public (every employee sees every project and sprint, and the directory).
The values of a task's fields — statuses, priorities, types, resolutions, labels, components, versions — are read
under the access rule: a value held only by tasks the asker cannot see is not in their vocabulary, so a hidden
value and a missing one read the same.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

# The task fields whose distinct stored values are read (query.py's TEXT_FIELDS and MULTI_FIELDS).
VALUE_FIELDS = ("status", "status_name", "priority", "priority_name", "issue_type", "resolution", "label", "component",
                "fix_version", "affects_version")


@dataclass(frozen=True)
class SprintName:
    sprint_id: int
    name: str
    project_id: int | None = None
    status: str | None = None
    start_date: dt.date | None = None
    end_date: dt.date | None = None


@dataclass(frozen=True)
class ProjectName:
    project_id: int
    name: str
    external_key: str | None = None  # "PAY" for an imported project
    status: str | None = None
    start_date: dt.date | None = None
    end_date: dt.date | None = None


@dataclass(frozen=True)
class PersonName:
    employee_id: int
    first_name: str | None
    last_name: str | None
    external_id: str | None = None  # the tracker's account id or login

    @property
    def name(self) -> str:
        return " ".join(p for p in (self.first_name, self.last_name) if p) or f"employee {self.employee_id}"


@dataclass(frozen=True)
class TrackerValues:
    """``values``: for each of VALUE_FIELDS, the distinct stored values of the tasks the asker may see, as stored
    (ordered by value); ``counts``: how many of those tasks hold each value. ``sprints``, ``projects`` and ``people``
    are every row, by id."""

    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    sprints: tuple[SprintName, ...] = ()
    projects: tuple[ProjectName, ...] = ()
    people: tuple[PersonName, ...] = ()


def tracker_values(rows: list[tuple[str, str, int]], sprints: tuple[SprintName, ...] = (),
                   projects: tuple[ProjectName, ...] = (), people: tuple[PersonName, ...] = ()) -> TrackerValues:
    """TrackerValues from the engines' ``(field, value, count)`` rows: every field of VALUE_FIELDS present (empty
    when no visible task holds a value), values sorted, a value counted once per field."""
    counts: dict[str, dict[str, int]] = {name: {} for name in VALUE_FIELDS}
    for name, value, count in rows:
        if name not in counts:
            raise ValueError(f"{name!r} is not a value field")
        if value is not None and value != "":
            counts[name][value] = counts[name].get(value, 0) + int(count)
    ordered = {name: dict(sorted(found.items())) for name, found in counts.items()}
    return TrackerValues({name: tuple(found) for name, found in ordered.items()}, ordered, sprints, projects, people)
