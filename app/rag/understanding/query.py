"""One typed tracker query (issue 31, DESIGN.md "One typed tracker query"). Pure: no I/O.

Every structured question — read offline from a question, edited by a follow-up, or asked by a model's tool — is
one ``TrackerQuery``: predicates over the stored fields of a task, and what to return (the list in an order with a
limit, a count, a sum of story points, a group-by of a field with its ranking, or one field of one record). Both
engines compile it to SQL under the access rule (``Engine.run_tracker_query``): counts, sums and groups cover every
matching row, never a capped list. Values are concrete (ids, the tracker's own names, dates): relative phrases
("the current sprint of Mobile", "this week") are resolved by the reader before the query is built, so a stored
query means the same when a follow-up edits it days later.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from app.domain import is_id

# Fields whose values are ids (None: the field is empty: unassigned, no sprint, no project, no parent).
# sprint: a task whose latest sprint (TASKS.SPRINT_ID) is one of them or that was in one of them (TASK_SPRINTS);
# a group-by of sprint groups by the latest.
ID_FIELDS = ("project", "sprint", "assignee", "reporter", "parent")
# Fields whose values are the tracker's own text, compared ignoring case (None: empty, e.g. unresolved).
# status: our STATUS (TODO, IN_PROGRESS, IN_REVIEW, BLOCKED, DONE, ...); status_name: the tracker's own name.
# priority: our level (CRITICAL, HIGH, MEDIUM, LOW); priority_name: the tracker's own ("Blocker", "Major", "Trivial").
TEXT_FIELDS = ("status", "status_name", "priority", "priority_name", "issue_type", "resolution")
# Fields that hold several values per task (TASK_VALUES): a predicate matches a task holding any of its values.
MULTI_FIELDS = ("label", "component", "fix_version", "affects_version")
DATE_FIELDS = ("created", "updated", "resolved", "due")
# Flags: open (values (True,): not finished, (False,): finished), overdue (values (date,): due before that day
# and not finished), blocked (values (True,): a BLOCKED status, an open blocks/depends-on link, or the text
# saying so), text (values: words that must all appear in the title or description, one predicate a word).
FLAG_FIELDS = ("open", "overdue", "blocked", "text")
FIELDS = (*ID_FIELDS, *TEXT_FIELDS, *MULTI_FIELDS, *DATE_FIELDS, *FLAG_FIELDS)
Field = Literal["project", "sprint", "assignee", "reporter", "parent", "status", "status_name", "priority",
                "priority_name", "issue_type", "resolution", "label", "component", "fix_version", "affects_version",
                "created", "updated", "resolved", "due", "open", "overdue", "blocked", "text"]
GROUP_FIELDS = (*ID_FIELDS[:4], *TEXT_FIELDS, *MULTI_FIELDS)  # what a group-by may name
ORDERS = ("priority", "due", "created", "updated", "resolved", "id")
Returns = Literal["list", "count", "points", "group", "field"]
RETURNS = ("list", "count", "points", "group", "field")
# One field of one record ("when was PAY-12 created?", "who reported it?").
RECORD_FIELDS = ("status", "assignee", "reporter", "priority", "due", "created", "updated", "resolved",
                 "resolution", "issue_type", "sprint", "project", "story_points", "labels", "components",
                 "fix_versions", "affects_versions", "parent", "environment")
MAX_LIMIT = 500
MAX_VALUES = 50  # values of one predicate
MAX_PREDICATES = 40
MAX_TEXT_CHARS = 200


@dataclass(frozen=True)
class Predicate:
    """One condition on a task. ``values``: any of them (ids, text, a date for ``overdue``, True/False for the
    flags; None stands for an empty field). ``window``: date fields, on or after ``window[0]`` and strictly
    before ``window[1]`` (either may be None: unbounded). ``negate``: the task must not match."""

    field: Field
    values: tuple[Any, ...] = ()
    window: tuple[dt.date | None, dt.date | None] | None = None
    negate: bool = False

    def __post_init__(self) -> None:
        if self.field not in FIELDS:
            raise ValueError(f"field must be one of {', '.join(FIELDS)}, got {self.field!r}")
        if len(self.values) > MAX_VALUES:
            raise ValueError(f"at most {MAX_VALUES} values in one predicate, got {len(self.values)}")
        if self.field in DATE_FIELDS:
            if self.values or self.window is None or self.window == (None, None):
                raise ValueError(f"{self.field} takes a window of dates, not values")
            for day in self.window:
                if day is not None and (not isinstance(day, dt.date) or isinstance(day, dt.datetime)):
                    raise ValueError(f"a window is made of dates, got {day!r}")
            return
        if self.window is not None:
            raise ValueError(f"only {', '.join(DATE_FIELDS)} take a window")
        if not self.values:
            raise ValueError(f"{self.field} needs at least one value")
        for value in self.values:
            _check_value(self.field, value)


def _check_value(name: str, value: Any) -> None:
    if name in ID_FIELDS:
        ok = value is None or is_id(value)
    elif name in (*TEXT_FIELDS, *MULTI_FIELDS):
        ok = value is None and name not in MULTI_FIELDS or (
            isinstance(value, str) and 0 < len(value) <= MAX_TEXT_CHARS and value == value.strip())
    elif name == "overdue":
        ok = isinstance(value, dt.date) and not isinstance(value, dt.datetime)
    elif name in ("open", "blocked"):
        ok = isinstance(value, bool)
    else:  # text
        ok = isinstance(value, str) and 0 < len(value) <= MAX_TEXT_CHARS and value == value.strip()
    if not ok:
        raise ValueError(f"{value!r} is not a value of {name}")


@dataclass(frozen=True)
class TrackerQuery:
    """Predicates (all must hold), and what to return.

    ``returns``: ``list`` (``order``, ``descending``, ``limit``; the total is always counted), ``count``, ``points``
    (the sum of story points and the count), ``group`` (``group_by`` a field of GROUP_FIELDS, ranked by ``measure``,
    most first unless ``ascending``), ``field`` (``record_field`` of the first record in ``order``: "when was it
    created?" after a top-1 answer, "which is due first?")."""

    where: tuple[Predicate, ...] = ()
    returns: Returns = "list"
    order: str = "id"
    descending: bool = False
    limit: int = 20
    group_by: str | None = None
    measure: Literal["count", "points"] = "count"
    ascending: bool = False
    record_field: str | None = None

    def __post_init__(self) -> None:
        if len(self.where) > MAX_PREDICATES:
            raise ValueError(f"at most {MAX_PREDICATES} predicates, got {len(self.where)}")
        if self.returns not in RETURNS:
            raise ValueError(f"returns must be one of {', '.join(RETURNS)}, got {self.returns!r}")
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or not 1 <= self.limit <= MAX_LIMIT:
            raise ValueError(f"limit must be 1..{MAX_LIMIT}, got {self.limit!r}")
        if (self.returns == "group") != (self.group_by is not None):
            raise ValueError("group_by is given exactly when returns is 'group'")
        if self.group_by is not None and self.group_by not in GROUP_FIELDS:
            raise ValueError(f"group_by must be one of {', '.join(GROUP_FIELDS)}, got {self.group_by!r}")
        if self.measure not in ("count", "points"):
            raise ValueError(f"measure must be count or points, got {self.measure!r}")
        if (self.returns == "field") != (self.record_field is not None):
            raise ValueError("record_field is given exactly when returns is 'field'")
        if self.record_field is not None and self.record_field not in RECORD_FIELDS:
            raise ValueError(f"record_field must be one of {', '.join(RECORD_FIELDS)}, got {self.record_field!r}")

    # --- reading and editing ----------------------------------------------------------------------------

    def predicates(self, name: str) -> tuple[Predicate, ...]:
        return tuple(p for p in self.where if p.field == name)

    def first(self, name: str) -> Predicate | None:
        found = self.predicates(name)
        return found[0] if found else None

    def with_predicate(self, predicate: Predicate) -> TrackerQuery:
        """This query with ``predicate`` in place of every predicate on its field (text words are added)."""
        if predicate.field == "text":
            kept = tuple(p for p in self.where if p != predicate)
        else:
            kept = tuple(p for p in self.where if p.field != predicate.field)
        return replace(self, where=(*kept, predicate))

    def without(self, name: str) -> TrackerQuery:
        return replace(self, where=tuple(p for p in self.where if p.field != name))

    # --- stored with the turn (MESSAGES.QUERY) -----------------------------------------------------------

    def to_json(self) -> str:
        return json.dumps(to_data(self), separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Group:
    """One group of a group-by: its key (an id, a text value, or None for "none"), its label as said to the asker
    ("Payments Platform", "unassigned"), how many matching tasks it holds and their story points."""

    key: Any
    label: str
    count: int
    points: float = 0.0


@dataclass(frozen=True)
class TrackerResult:
    """What an engine returns for a query. ``total`` and ``points`` cover every matching row; ``rows`` are the first
    ``limit`` in the query's order (TASK_FIELDS plus the query's extra fields); ``groups`` are ranked."""

    total: int
    points: float = 0.0
    rows: list[dict[str, Any]] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)


def to_data(query: TrackerQuery) -> dict[str, Any]:
    """A JSON-safe dict of the query (dates as ISO text); ``from_data`` reads it back."""
    data: dict[str, Any] = {"where": [_predicate_data(p) for p in query.where], "returns": query.returns}
    for name in ("order", "descending", "limit", "group_by", "measure", "ascending", "record_field"):
        value = getattr(query, name)
        if value != getattr(TrackerQuery, name, None) or name in ("order", "limit"):
            data[name] = value
    return data


def _predicate_data(p: Predicate) -> dict[str, Any]:
    out: dict[str, Any] = {"field": p.field}
    if p.values:
        out["values"] = [v.isoformat() if isinstance(v, dt.date) else v for v in p.values]
    if p.window is not None:
        out["window"] = [d.isoformat() if d else None for d in p.window]
    if p.negate:
        out["negate"] = True
    return out


def from_data(data: Any) -> TrackerQuery:
    """The query a dict describes (``to_data``'s shape, also what a model's tool sends); ValueError otherwise."""
    if not isinstance(data, dict):
        raise ValueError("a query is an object")
    where = data.get("where", [])
    if not isinstance(where, list):
        raise ValueError("where is a list of predicates")
    predicates = tuple(_predicate(p) for p in where)
    known = {"where", "returns", "order", "descending", "limit", "group_by", "measure", "ascending", "record_field"}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown query keys: {', '.join(sorted(unknown))}")
    rest = {k: v for k, v in data.items() if k != "where"}
    return TrackerQuery(where=predicates, **rest)


def _predicate(data: Any) -> Predicate:
    if not isinstance(data, dict) or set(data) - {"field", "values", "window", "negate"}:
        raise ValueError("a predicate is an object with field, values or window, and negate")
    name = data.get("field")
    values = data.get("values", [])
    if not isinstance(values, list):
        raise ValueError("values is a list")
    if name == "overdue":
        values = [_date(v) for v in values]
    window = data.get("window")
    if window is not None:
        if not isinstance(window, list) or len(window) != 2:
            raise ValueError("a window is [start, end]")
        window = tuple(_date(d) if d is not None else None for d in window)
    negate = data.get("negate", False)
    if not isinstance(negate, bool):
        raise ValueError("negate is true or false")
    return Predicate(field=name, values=tuple(values), window=window, negate=negate)  # type: ignore[arg-type]


def _date(value: Any) -> dt.date:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if not isinstance(value, str):
        raise ValueError(f"a date is YYYY-MM-DD, got {value!r}")
    return dt.date.fromisoformat(value)


def query_from_json(text: str | None) -> TrackerQuery | None:
    """MESSAGES.QUERY as a query (NULL or unreadable: none; a stored query is never trusted to be well formed)."""
    if not text:
        return None
    try:
        return from_data(json.loads(text))
    except (ValueError, TypeError):
        return None


