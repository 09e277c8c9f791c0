"""The mapping tables from a tracker's words to ours, as data (docs/IMPORT.md shows them; its test reads
these), and the small parsers every source shares: dates, people's names, Jira's sprint field forms."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Any

from app.sources.model import SourceSprint
from app.sources.people import PeopleMap, read_people_map  # noqa: F401 (where the CLI and the job read it)

# Jira statusCategory.key → our status. "indeterminate" becomes IN_REVIEW where the status name says so.
STATUS_BY_CATEGORY = {"new": "TODO", "undefined": "TODO", "indeterminate": "IN_PROGRESS", "done": "DONE"}
REVIEW_WORDS = re.compile(r"review|\bqa\b|\bqe\b|test|verif", re.I)

# Jira priority name (lower case) → our priority; anything else (None, "Medium", a custom name) is MEDIUM.
PRIORITY_BY_NAME = {
    "blocker": "CRITICAL", "highest": "CRITICAL", "critical": "CRITICAL",
    "high": "HIGH", "major": "HIGH",
    "medium": "MEDIUM", "none": "MEDIUM",
    "low": "LOW", "lowest": "LOW", "minor": "LOW", "trivial": "LOW",
}
DEFAULT_PRIORITY = "MEDIUM"
MAX_PRIORITY_NAME = 100  # TASKS.PRIORITY_NAME
MAX_PRIORITY_RANK = 1_000_000  # a rank past this is not an order (the API's bound too)

# Jira sprint state → our sprint status.
SPRINT_STATUS = {"future": "PLANNED", "active": "ACTIVE", "closed": "CLOSED"}

# Jira issue link type names (lower case) → our link type from the side: (outward, inward). An entry with
# "outwardIssue" reads outward ("PAY-1 blocks PAY-2"), one with "inwardIssue" inward ("is blocked by").
LINK_TYPES_BY_NAME = {
    "blocks": ("BLOCKS", "BLOCKED_BY"), "blocker": ("BLOCKS", "BLOCKED_BY"),
    "dependency": ("DEPENDS_ON", "DEPENDED_ON_BY"), "depends": ("DEPENDS_ON", "DEPENDED_ON_BY"),
    "duplicate": ("DUPLICATES", "DUPLICATED_BY"), "cloners": ("CLONES", "CLONED_BY"),
    "relates": ("RELATES", "RELATES"),
}
# A type of another name is read from its phrase, in this order (the passive phrase first); anything else RELATES.
LINK_PHRASES = (("blocked by", "BLOCKED_BY"), ("blocks", "BLOCKS"), ("depended on by", "DEPENDED_ON_BY"),
                ("depends on", "DEPENDS_ON"), ("duplicated by", "DUPLICATED_BY"), ("duplicates", "DUPLICATES"),
                ("cloned by", "CLONED_BY"), ("clones", "CLONES"))

# GitHub labels (lower case) → our priority / issue type when RAG_GITHUB_LABEL_MAP names none.
GITHUB_LABELS: dict[str, dict[str, str]] = {
    "priority": {"p0": "CRITICAL", "critical": "CRITICAL", "priority: critical": "CRITICAL",
                 "p1": "HIGH", "high": "HIGH", "priority: high": "HIGH",
                 "p2": "MEDIUM", "medium": "MEDIUM", "priority: medium": "MEDIUM",
                 "p3": "LOW", "low": "LOW", "priority: low": "LOW"},
    "type": {"bug": "Bug", "enhancement": "Story", "feature": "Story", "documentation": "Task", "question": "Task"},
}


def jira_status(category_key: str | None, name: str | None) -> tuple[str, str | None]:
    """(our status, the tracker's own name). The name is kept even where it spells ours: "In Progress" is one of
    the tracker's statuses beside "Patch Available", both IN_PROGRESS, and a question may name either."""
    ours = STATUS_BY_CATEGORY.get((category_key or "new").lower(), "TODO")
    if ours == "IN_PROGRESS" and name and REVIEW_WORDS.search(name):
        ours = "IN_REVIEW"
    return ours, (name or "").strip() or None


def jira_priority(name: str | None) -> str:
    return PRIORITY_BY_NAME.get((name or "none").strip().lower(), DEFAULT_PRIORITY)


def link_type(name: str | None, phrase: str | None, outward: bool) -> str:
    """A Jira link as one of ours, from the issue's side: by its type's name and direction ("Blocks" outward →
    BLOCKS, inward → BLOCKED_BY; "Dependency", "Duplicate", "Cloners", "Relates"), else by its phrase ("is
    depended on by" → DEPENDED_ON_BY), else RELATES ("causes", "relates to" and unknown types are related work)."""
    pair = LINK_TYPES_BY_NAME.get((name or "").strip().lower())
    if pair is not None:
        return pair[0 if outward else 1]
    text = " ".join((phrase or "").lower().split())
    for words, ours in LINK_PHRASES:
        if re.search(rf"\b{words}\b", text):
            return ours
    return "RELATES"


# GitHub's state_reason of a closed issue → the resolution kept (its own words; "reopened" is an open issue's).
GITHUB_RESOLUTIONS = {"completed": "Completed", "not_planned": "Not planned", "duplicate": "Duplicate"}


def split_name(display_name: str | None, fallback: str) -> tuple[str, str]:
    """A display name as (first, last): "Chen Wei" → ("Chen", "Wei"), "Ana María López" → ("Ana María",
    "López"), "octocat" → ("octocat", ""). A missing name uses the fallback (the user's id)."""
    parts = (display_name or "").split()
    if not parts:
        return fallback[:100], ""
    if len(parts) == 1:
        return parts[0][:100], ""
    return " ".join(parts[:-1])[:100], parts[-1][:100]


def parse_datetime(value: Any) -> dt.datetime | None:
    """A Jira ("2026-11-20T10:15:30.000+0000") or GitHub ("2026-11-20T10:15:30Z") timestamp as naive UTC."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().replace("Z", "+00:00")
    text = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", text)  # +0000 → +00:00 (older Pythons, and clarity)
    try:
        stamp = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return stamp


def parse_date(value: Any) -> dt.date | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


# The old Jira Software form of a sprint field value: "com.atlassian.greenhopper.service.sprint.Sprint@1a2b
# [id=12,rapidViewId=3,state=ACTIVE,name=PAY Sprint 7,startDate=2026-11-02T09:00:00.000Z,...]".
_SPRINT_STRING = re.compile(r"\[(.*)\]\s*$", re.S)
_SPRINT_FIELD = re.compile(r"(\w+)=(.*?)(?=,\w+=|$)", re.S)


def sprint_of(value: Any) -> SourceSprint | None:
    """One sprint from any of Jira's forms: an object ({"id", "name", "state", "startDate", "endDate",
    "goal"}), the old greenhopper string, or None."""
    if isinstance(value, str):
        match = _SPRINT_STRING.search(value)
        if not match:
            return None
        value = {k: (None if v == "<null>" else v) for k, v in _SPRINT_FIELD.findall(match.group(1))}
    if not isinstance(value, Mapping) or value.get("id") in (None, "") or not value.get("name"):
        return None
    return SourceSprint(
        external_id=str(value["id"]), name=str(value["name"])[:200],
        status=SPRINT_STATUS.get(str(value.get("state") or "").lower()),
        start_date=parse_date(value.get("startDate")),
        end_date=parse_date(value.get("endDate") or value.get("completeDate")),
        goal=(value.get("goal") or None))


def all_sprints(values: Iterable[Any]) -> tuple[SourceSprint, ...]:
    """Every sprint of an issue's sprint values, once each (by id, the first form listed wins), in the order listed."""
    found: dict[str, SourceSprint] = {}
    for sprint in (sprint_of(v) for v in values):
        if sprint is not None:
            found.setdefault(sprint.external_id, sprint)
    return tuple(found.values())


def priority_rank(priority: Any, ranks: Mapping[str, int] | None) -> int | None:
    """A Jira priority's place in the tracker's order (1 = the most important): from ``ranks`` (the site's
    priorities by id, as GET /rest/api/{2|3}/priority lists them in order) when the source read them, else its
    numeric id (Jira's default priorities, Blocker 1 … Trivial 5 and Highest 1 … Lowest 5, have ids in their order:
    the file import's assumption, docs/IMPORT.md). None: no priority, or an id that says nothing."""
    if not isinstance(priority, Mapping):
        return None
    ident = str(priority.get("id") or "").strip()
    if ranks:
        return ranks.get(ident)
    return int(ident) if ident.isdigit() and 0 < int(ident) <= MAX_PRIORITY_RANK else None


def priority_ranks(listed: Any) -> dict[str, int]:
    """The site's priorities (GET /rest/api/{2|3}/priority: a list in the tracker's order) as id → rank from 1."""
    ids = [str(p.get("id")).strip() for p in listed or () if isinstance(p, Mapping) and str(p.get("id") or "").strip()]
    return {ident: rank for rank, ident in enumerate(dict.fromkeys(ids), 1)}


def current_sprint(values: Iterable[Any]) -> SourceSprint | None:
    """The sprint an issue is in now: an active one, else a future one, else the latest closed one — by its dates
    (end, else start), then by id (Jira numbers sprints as they are created), never by the order listed: Jira lists
    ``closedSprints`` newest first and the sprint field oldest first."""
    sprints = [s for s in (sprint_of(v) for v in values) if s is not None]
    for wanted in ("ACTIVE", "PLANNED"):
        for sprint in sprints:
            if sprint.status == wanted:
                return sprint
    return max(sprints, key=_sprint_age, default=None)


def _sprint_age(sprint: SourceSprint) -> tuple[dt.date, int]:
    ident = sprint.external_id
    return (sprint.end_date or sprint.start_date or dt.date.min, int(ident) if ident.isdigit() else -1)
