"""The truths of the tracker benchmark, computed from the RAW Jira JSON (app/evals/jira_shaped.py), never from
the database the answers come from nor by calling the code under test. Pure.

Each template of /work/briefs/templates.md (sections A and B) is restated here on the raw fields:

- "open" is a status category other than ``done``; "unresolved" is no resolution;
- the access rule, restated: a manager (or admin) sees every issue; a developer sees the issues assigned to
  them — every list, count and ranking counts only what the asker sees, and a question about an issue they
  cannot see (or one that does not exist) has a refusal as its truth;
- a person named by a first name that several people share (the first word of their display name) is
  ambiguous: the truth is a clarifying question ("which one?");
- windows: "last week" is the ISO week (Monday-Sunday) before this one, "last month" the calendar month
  before this one, "this year" 1 January to today; dates are the UTC day of Jira's timestamps;
- a sprint is every sprint an issue lists (the sprint custom field, ``sprint`` and ``closedSprints``), as
  JQL's ``sprint = X`` reads it; the sprint before another is the one of the same board that started last
  before it;
- "what X depends on or is blocked by": the issues X links to as "depends on" (Dependency, outward) or "is
  blocked by" (Blocks, inward), read on X's own side;
- "most important": the highest priority (Blocker > Critical > Major > Minor > Trivial), then the earliest
  due date (none last); ties are all right;
- "fixed in version V": V is among the fix versions and the issue is resolved.

The kinds (app/evals/tracker_score.py judges the new ones): list, count, compare (a winner and its figure),
field (one field of one record: the value must be in the answer), record (the first record cited is the one
asked, any of a tie), clarify (the answer asks which one), refusal.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from app.evals.conversation_truth import REFUSAL, Hidden, Truth, fold

Issue = Mapping[str, Any]
MANAGER_ROLES = ("MANAGER", "ADMIN")
PRIORITY_RANK = {"Blocker": 0, "Critical": 1, "Major": 2, "Minor": 3, "Trivial": 4}
MONTHS = {"en": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                 "October", "November", "December"),
          "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
                 "octubre", "noviembre", "diciembre")}
NO_DUE = ("no due date", "sin fecha", "no tiene fecha", "not set", "none", "ninguna")
CLARIFY = Truth("clarify")


# --- the raw fields ------------------------------------------------------------------------------------

def person_id(user: Any) -> str | None:
    if not isinstance(user, Mapping):
        return None
    ident = user.get("accountId") or user.get("key") or user.get("name")
    return str(ident) if ident else None


def project_of(issue: Issue) -> str:
    return str((issue["fields"].get("project") or {}).get("key") or issue["key"].rsplit("-", 1)[0])


def is_open(issue: Issue) -> bool:
    return ((issue["fields"].get("status") or {}).get("statusCategory") or {}).get("key") != "done"


def status_name(issue: Issue) -> str:
    return str((issue["fields"].get("status") or {}).get("name") or "")


def type_name(issue: Issue) -> str:
    return str((issue["fields"].get("issuetype") or {}).get("name") or "")


def priority(issue: Issue) -> str:
    return str((issue["fields"].get("priority") or {}).get("name") or "")


def resolution(issue: Issue) -> str | None:
    return (issue["fields"].get("resolution") or {}).get("name")


def names(issue: Issue, field: str) -> list[str]:
    """fixVersions, versions (affects) or components: their names."""
    return [str(v["name"]) for v in issue["fields"].get(field) or () if v.get("name")]


def labels(issue: Issue) -> list[str]:
    return [str(x) for x in issue["fields"].get("labels") or ()]


def day(value: Any) -> dt.date | None:
    return dt.date.fromisoformat(str(value)[:10]) if value else None


def created(issue: Issue) -> dt.date:
    return day(issue["fields"]["created"])  # type: ignore[return-value]


def due(issue: Issue) -> dt.date | None:
    return day(issue["fields"].get("duedate"))


def sprints(issue: Issue) -> list[Mapping[str, Any]]:
    """Every sprint object the issue lists (any custom field whose values are sprint objects, ``sprint``,
    ``closedSprints``), each once."""
    fields, found = issue["fields"], {}
    values = [*(fields.get("closedSprints") or []), *([fields["sprint"]] if fields.get("sprint") else [])]
    for name, raw in fields.items():
        if name.startswith("customfield_") and isinstance(raw, list) and raw and all(
                isinstance(v, Mapping) and "state" in v and "boardId" in v for v in raw):
            values.extend(raw)
    for sprint in values:
        found[sprint["id"]] = sprint
    return list(found.values())


def blockers(issue: Issue) -> list[str]:
    """The keys this issue depends on or is blocked by, read on its own side."""
    out = []
    for link in issue["fields"].get("issuelinks") or ():
        kind = (link.get("type") or {}).get("name")
        if kind == "Dependency" and link.get("outwardIssue"):
            out.append(str(link["outwardIssue"]["key"]))
        elif kind == "Blocks" and link.get("inwardIssue"):
            out.append(str(link["inwardIssue"]["key"]))
    return list(dict.fromkeys(out))


def window(today: dt.date, which: str) -> tuple[dt.date, dt.date]:
    """[start, end) of "last week", "last month" or "this year"."""
    if which == "last_week":
        monday = today - dt.timedelta(days=today.weekday())
        return monday - dt.timedelta(days=7), monday
    if which == "last_month":
        first = today.replace(day=1)
        return (first - dt.timedelta(days=1)).replace(day=1), first
    if which == "this_year":
        return today.replace(month=1, day=1), today + dt.timedelta(days=1)
    raise ValueError(f"no window {which!r}")


def date_spellings(value: dt.date) -> tuple[str, ...]:
    en, es = MONTHS["en"][value.month - 1], MONTHS["es"][value.month - 1]
    said = (value.isoformat(), f"{value.day} {en} {value.year}", f"{en} {value.day}, {value.year}",
            f"{value.day} de {es} de {value.year}", f"{value.day} {en[:3]} {value.year}")
    return tuple(fold(s) for s in said)


# --- the tracker as the truths see it ------------------------------------------------------------------

@dataclass(frozen=True)
class Tracker:
    """The raw issues and people, the import's task ids by key (only to write anchors) and the roles."""

    today: dt.date
    issues: tuple[Issue, ...]
    people: tuple[Mapping[str, Any], ...]
    ids: Mapping[str, int]
    roles: Mapping[str, str]  # person id -> role (the import makes everyone DEVELOPER; the operator promotes)

    @cached_property
    def _keys(self) -> dict[str, Issue]:
        return {str(i["key"]): i for i in self.issues}

    def by_key(self, key: str) -> Issue | None:
        return self._keys.get(key)

    def name(self, person: str) -> str:
        return next(str(p["displayName"]) for p in self.people if person_id(p) == person)

    def first(self, person: str) -> str:
        return self.name(person).split()[0]

    def sharing(self, first: str) -> list[str]:
        """The people whose display name starts with this first name (folded)."""
        return [str(person_id(p)) for p in self.people if fold(str(p["displayName"]).split()[0]) == fold(first)]

    def is_manager(self, asker: str) -> bool:
        return self.roles.get(asker, "DEVELOPER").upper() in MANAGER_ROLES

    def sees(self, asker: str, issue: Issue) -> bool:
        return self.is_manager(asker) or person_id(issue["fields"].get("assignee")) == asker

    def visible(self, asker: str) -> list[Issue]:
        return [i for i in self.issues if self.sees(asker, i)]

    def anchor(self, issue: Issue) -> str:
        return f"[TASK #{self.ids[issue['key']]}]"

    def hidden(self, asker: str, existing: frozenset[str] | None = None) -> Hidden:
        hidden = [i for i in self.issues if not self.sees(asker, i)]
        return Hidden(frozenset(self.anchor(i) for i in hidden if i["key"] in self.ids),
                      tuple(str(i["fields"]["summary"]) for i in hidden),
                      tuple(str(i["fields"]["summary"]) for i in self.visible(asker)), existing)

    def person_spellings(self, person: str, asker: str | None = None) -> tuple[str, ...]:
        name = self.name(person)
        out = [fold(name)]
        if len(self.sharing(name.split()[0])) == 1:
            out.append(fold(name.split()[0]))
        if person == asker:
            out += ["you have", "tienes", "you"]
        return tuple(out)

    def sprint_before(self, name: str) -> Mapping[str, Any] | None:
        every = {s["id"]: s for i in self.issues for s in sprints(i)}
        this = next((s for s in every.values() if s["name"] == name), None)
        if this is None:
            return None
        earlier = [s for s in every.values() if s["boardId"] == this["boardId"] and s["startDate"] < this["startDate"]]
        return max(earlier, key=lambda s: s["startDate"]) if earlier else None


# --- truth builders ------------------------------------------------------------------------------------

def as_list(tr: Tracker, rows: Sequence[Issue]) -> Truth:
    if not rows:
        return REFUSAL
    return Truth("list", tasks=frozenset(tr.anchor(i) for i in rows), figure=len(rows),
                 raw_values=tuple(i["key"] for i in rows))


def as_count(tr: Tracker, rows: Sequence[Issue]) -> Truth:
    if not rows:
        return REFUSAL  # "none", "0" or "no issue you can see" are all right
    return Truth("count", tasks=frozenset(tr.anchor(i) for i in rows), figure=len(rows))


def as_winner(tally: Counter, spell) -> Truth:
    if not tally:
        return REFUSAL
    top = max(tally.values())
    winners = sorted(w for w, n in tally.items() if n == top)
    return Truth("compare", figure=top, values=(tuple(s for w in winners for s in spell(w)),),
                 raw_values=tuple(winners))


def as_record(tr: Tracker, rows: Sequence[Issue]) -> Truth:
    if not rows:
        return REFUSAL
    return Truth("record", tasks=frozenset(tr.anchor(i) for i in rows), raw_values=tuple(i["key"] for i in rows))


def most_urgent(rows: Iterable[Issue]) -> list[Issue]:
    """The open issues of highest priority, then earliest due date (none last): every one of a tie."""
    rows = [i for i in rows if is_open(i)]
    if not rows:
        return []
    rank = lambda i: (PRIORITY_RANK.get(priority(i), 9), due(i) or dt.date.max)  # noqa: E731
    best = min(rank(i) for i in rows)
    return [i for i in rows if rank(i) == best]


def project_spellings(tr: Tracker, key: str) -> tuple[str, ...]:
    name = next((str(i["fields"]["project"]["name"]) for i in tr.issues if project_of(i) == key), key)
    return (fold(key), fold(name), fold(name.split()[0]))


def field_truth(tr: Tracker, asker: str, key: str, field: str) -> Truth:
    """One field of one issue: reporter, created or due."""
    issue = tr.by_key(key)
    if issue is None or not tr.sees(asker, issue):
        return REFUSAL
    if field == "reporter":
        who = person_id(issue["fields"].get("reporter"))
        spellings, raw = (tr.person_spellings(who, asker), tr.name(who)) if who else (("nobody", "nadie"), "-")
    elif field == "created":
        spellings, raw = date_spellings(created(issue)), created(issue).isoformat()
    elif field == "due":
        when = due(issue)
        spellings, raw = (date_spellings(when), when.isoformat()) if when else (NO_DUE, "-")
    else:
        raise ValueError(f"no field {field!r}")
    return Truth("field", entity=tr.anchor(issue), values=(spellings,), raw_values=(raw,), asked_field=field)


# --- section A: single questions -----------------------------------------------------------------------

def single(tr: Tracker, asker: str, template: str, slots: Mapping[str, Any]) -> Truth:
    """The truth of one question of section A asked by ``asker``."""
    rows = tr.visible(asker)
    opened = [i for i in rows if is_open(i)]
    if template in ("t_reporter_of", "t_created_of"):
        return field_truth(tr, asker, slots["key"], template[2:].split("_")[0])
    if template == "t_depends":
        issue = tr.by_key(slots["key"])
        if issue is None or not tr.sees(asker, issue):
            return REFUSAL
        targets = [tr.by_key(k) for k in blockers(issue)]
        return as_list(tr, [t for t in targets if t is not None and tr.sees(asker, t)])
    if template == "t_person_open":
        people = tr.sharing(slots["first"])
        if len(people) > 1:
            return CLARIFY
        return as_count(tr, [i for i in opened if people and person_id(i["fields"].get("assignee")) == people[0]])
    if template in _WINNERS:
        return _WINNERS[template](tr, asker, rows, slots)
    if template == "t_my_most_urgent":
        return as_record(tr, most_urgent(i for i in rows if person_id(i["fields"].get("assignee")) == asker))
    pick, how = _FILTERS[template]
    chosen = [i for i in (opened if how.startswith("open") else rows) if pick(tr, asker, i, slots)]
    return as_count(tr, chosen) if how.endswith("count") else as_list(tr, chosen)


def _in_window(when: dt.date | None, tr: Tracker, which: str) -> bool:
    start, end = window(tr.today, which)
    return when is not None and start <= when < end


_FILTERS = {  # template -> (does the issue match, "open"/"any" + " list"/" count")
    "t_open_version": (lambda tr, a, i, s: s["version"] in names(i, "fixVersions"), "open list"),
    "t_count_open_version": (lambda tr, a, i, s: s["version"] in names(i, "fixVersions"), "open count"),
    "t_open_component": (lambda tr, a, i, s: s["component"] in names(i, "components"), "open list"),
    "t_label": (lambda tr, a, i, s: s["label"] in labels(i), "open list"),
    "t_count_label": (lambda tr, a, i, s: s["label"] in labels(i), "any count"),
    "t_unresolved_type": (lambda tr, a, i, s: type_name(i) == s["type"] and project_of(i) == s["project"]
                          and resolution(i) is None, "any count"),
    "t_resolution": (lambda tr, a, i, s: project_of(i) == s["project"] and resolution(i) == s["resolution"],
                     "any count"),
    "t_created_window": (lambda tr, a, i, s: project_of(i) == s["project"] and _in_window(created(i), tr, s["window"]),
                         "any count"),
    "t_resolved_window": (lambda tr, a, i, s: _in_window(day(i["fields"].get("resolutiondate")), tr, s["window"]),
                          "any count"),
    "t_affects": (lambda tr, a, i, s: type_name(i) == "Bug" and s["version"] in names(i, "versions"), "any list"),
    "t_unassigned_open": (lambda tr, a, i, s: project_of(i) == s["project"] and not i["fields"].get("assignee"),
                          "open count"),
    "t_status_project": (lambda tr, a, i, s: project_of(i) == s["project"] and status_name(i) == s["status"],
                         "any count"),
    "t_priority_type": (lambda tr, a, i, s: priority(i) == s["priority"] and type_name(i) == s["type"], "open count"),
    "t_sprint_open": (lambda tr, a, i, s: s["sprint"] in [x["name"] for x in sprints(i)], "open list"),
    "t_my_open": (lambda tr, a, i, s: person_id(i["fields"].get("assignee")) == a, "open list"),
}


def _most_open_type(tr: Tracker, asker: str, rows: list[Issue], slots: Mapping[str, Any]) -> Truth:
    tally = Counter(project_of(i) for i in rows if is_open(i) and type_name(i) == slots["type"])
    return as_winner(tally, lambda key: project_spellings(tr, key))


def _top_reporter(tr: Tracker, asker: str, rows: list[Issue], slots: Mapping[str, Any]) -> Truth:
    tally = Counter(person_id(i["fields"].get("reporter")) for i in rows
                    if project_of(i) == slots["project"] and person_id(i["fields"].get("reporter")))
    return as_winner(tally, lambda who: tr.person_spellings(who, asker))


def _per_component(tr: Tracker, asker: str, rows: list[Issue], slots: Mapping[str, Any]) -> Truth:
    tally = Counter(c for i in rows if is_open(i) and project_of(i) == slots["project"]
                    for c in names(i, "components"))
    return as_winner(tally, lambda c: (fold(c),))


_WINNERS = {"t_most_open_type": _most_open_type, "t_top_reporter": _top_reporter, "t_per_component": _per_component}


# --- section B: chains ---------------------------------------------------------------------------------

def chain(tr: Tracker, asker: str, name: str, step: int, slots: Mapping[str, Any]) -> Truth:
    """The truth of turn ``step`` (0-based) of chain ``name``; ``slots``: every slot of the chain's turns."""
    rows, s = tr.visible(asker), slots
    of = lambda who: [i for i in rows if person_id(i["fields"].get("assignee")) == who]  # noqa: E731
    opened = [i for i in rows if is_open(i)]
    if name == "e_person_status":
        sets = [[i for i in of(s["person"]) if status_name(i) == s["status"]],
                [i for i in of(s["person2"]) if status_name(i) == s["status"]]]
        sets.append([i for i in sets[1] if priority(i) == s["priority"]])
        return (as_list, as_list, as_count)[step](tr, sets[step])
    if name == "e_person_work":
        work = [i for i in of(s["person"]) if is_open(i)]
        in_status = [i for i in work if status_name(i) == s["status"]]
        if step < 2:
            return as_list(tr, (work, in_status)[step])
        dated = [i for i in in_status if due(i) is not None]
        first = min((due(i) for i in dated), default=None)
        return as_record(tr, [i for i in dated if due(i) == first])
    if name == "e_sprint":
        before = tr.sprint_before(s["sprint"])
        sprint = s["sprint"] if step == 0 else (before or {}).get("name")
        chosen = [i for i in opened if sprint in [x["name"] for x in sprints(i)]]
        return as_list(tr, chosen) if step < 2 else _top_assignee(tr, asker, chosen)
    if name == "e_project_overdue":
        late = [i for i in opened if due(i) is not None and due(i) < tr.today
                and project_of(i) == (s["project"] if step == 0 else s["project2"])]
        return as_list(tr, late) if step < 2 else _top_assignee(tr, asker, late)
    if name == "e_urgent":
        top = most_urgent(of(asker))
        if step == 0 or not top:
            return as_record(tr, top)
        truths = [field_truth(tr, asker, i["key"], s.get("field", "due")) for i in top]
        return Truth("field", entity=truths[0].entity, values=(tuple(v for t in truths for v in t.values[0]),),
                     raw_values=tuple(v for t in truths for v in t.raw_values), asked_field=s.get("field", "due"))
    return _chain_sets(tr, asker, name, step, s, rows, opened)


def _chain_sets(tr: Tracker, asker: str, name: str, step: int, s: Mapping[str, Any], rows: list[Issue],
                opened: list[Issue]) -> Truth:
    if name == "e_component":
        first = [i for i in opened if type_name(i) == s["type"] and s["component"] in names(i, "components")]
        second = [i for i in first if priority(i) == s["priority"]]
        return (as_list(tr, first), as_list(tr, second), as_count(tr, second))[step]
    if name == "e_version":
        fixed = lambda v: [i for i in rows if v in names(i, "fixVersions") and not is_open(i)]  # noqa: E731
        if step < 2:
            return as_list(tr, fixed(s["version"] if step == 0 else s["version2"]))
        return as_list(tr, [i for i in fixed(s["version2"]) if person_id(i["fields"].get("reporter")) == s["person"]])
    if name == "e_label_count":
        first = [i for i in opened if s["label"] in labels(i)]
        second = [i for i in opened if s["label2"] in labels(i)]
        return (as_count(tr, first), as_count(tr, second), as_list(tr, second))[step]
    if name == "e_status_count":
        count = lambda p: [i for i in rows if project_of(i) == p and status_name(i) == s["status"]]  # noqa: E731
        if step < 2:
            return as_count(tr, count(s["project"] if step == 0 else s["project2"]))
        return as_list(tr, [i for i in count(s["project2"]) if not i["fields"].get("assignee")])
    if name == "e_type_switch":
        mine = [i for i in opened if person_id(i["fields"].get("assignee")) == asker]
        first = [i for i in mine if type_name(i) == s["type"]]
        second = [i for i in mine if type_name(i) == s["type2"]]
        if step < 2:
            return as_list(tr, (first, second)[step])
        newest = max((i["fields"]["created"] for i in second), default=None)
        return as_record(tr, [i for i in second if i["fields"]["created"] == newest])
    raise ValueError(f"no chain {name!r}")


def _top_assignee(tr: Tracker, asker: str, rows: Sequence[Issue]) -> Truth:
    tally = Counter(person_id(i["fields"].get("assignee")) for i in rows if i["fields"].get("assignee"))
    return as_winner(tally, lambda who: tr.person_spellings(who, asker))
