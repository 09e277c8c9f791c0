"""The truths of the "edits" batch (issue 31): chains that edit the last question, and single questions on
every field of a task. Pure; computed from the Snapshot's records under the access rule restated in
app/evals/conversation_truth.Snapshot (never by the code it judges).

A chain turn's template is "<chain>/<turn>" and carries every slot of the chain so far: its truth is the
previous turn's question with this turn's edit applied, recomputed from the records (not read from the
previous answer). What each asks ("open": not DONE; "overdue": due before today and not DONE; a developer
sees only the tasks assigned to them, so a question about someone else's work is a refusal for them):

- e_person_status: 1 {person}'s tasks in {status} (list); 2 the same for {person2} (list); 3 how many of those
  are {priority} (count);
- e_person_work: 1 {person}'s open tasks (list); 2 only those in {status} (list); 3 which of those is due first
  (one record, its due date);
- e_sprint: 1 the open tasks of {sprint} (list); 2 the same in the sprint before it in its project (list);
  3 who holds most of those (the assignee with most, and the figure);
- e_project_overdue: 1 overdue tasks of {project} (list); 2 the same in {project2}; 3 who has most of those;
- e_urgent: 1 the asker's most important open task — highest priority, then earliest due (one record); 2 when
  is it due (its due date) — or, in a variant that asks so, who reported it (its reporter);
- e_status_count: 1 how many of {project}'s tasks are in {status} (count); 2 the same in {project2}; 3 which of
  those are unassigned (list);
- e_component: 1 open {type} tasks in component {component} (list); 2 only the {priority} ones; 3 how many;
- e_version: 1 the tasks fixed in version {version}: its fix version, finished (list), as the catalogue says it and
  as the tracker benchmark judges it; 2 the same for {version2}; 3 which of those {person} reported (list);
- e_version_tasks: the same chain over every task with fix version {version}, whatever its state, for phrasings
  that ask for a release's tasks ("which tasks are in fix version 1.2?") rather than what was fixed in it;
- e_label_count: 1 how many open tasks carry label {label} (count); 2 the same for {label2}; 3 list them;
- e_type_switch: 1 open {type} tasks assigned to the asker (list); 2 the same for {type2}; 3 the one created
  most recently (one record).

Single questions (templates.md section A, on the demo): t_person_open, t_my_open, t_sprint_open,
t_unassigned_open, t_status_project, t_my_most_urgent need only the original demo fields; t_open_version,
t_count_open_version, t_open_component, t_label, t_count_label, t_unresolved_type ("unresolved": no resolution),
t_top_reporter, t_reporter_of, t_created_of, t_resolution, t_created_window, t_resolved_window,
t_priority_type, t_per_component read the fields of branch `fields` (FIELD_TEMPLATES).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from app.evals.conversation_truth import (REFUSAL, YOU_LEAD, YOURS, Row, Snapshot, Truth, _due,
                                          _list, _name_spellings, fold, spell_date)

# Slots whose values a question names as written in the data; none of them is a figure of the answer.
NAMED_VALUES = ("version", "version2", "label", "label2", "component", "type", "type2", "resolution")
RANK = {"CRITICAL": 0, "HIGH": 1, "MEDIUM": 2, "LOW": 3}  # most important first
MULTI = {"label": "labels", "component": "components", "version": "fix_versions", "affects": "affects_versions"}
# The templates that read the fields of branch `fields` (reporter, created, resolution, labels, components,
# fix versions, issue types): asked only when the seeded demo has them (edit_cases.has_fields).
FIELD_TEMPLATES = frozenset({
    "e_component", "e_version", "e_version_tasks", "e_label_count", "e_type_switch", "e_urgent_reporter",
    "t_open_version", "t_count_open_version", "t_open_component", "t_label", "t_count_label", "t_unresolved_type",
    "t_top_reporter", "t_reporter_of", "t_created_of", "t_resolution", "t_created_window", "t_resolved_window",
    "t_priority_type", "t_per_component", "t_most_open_type",
})


def values_of(task: Row, name: str) -> tuple[str, ...]:
    """A multi-valued field's values, whole (stored ", "-joined as text, or as a list)."""
    raw = task.get(MULTI[name])
    if raw is None:
        return ()
    items = raw if isinstance(raw, (list, tuple)) else str(raw).split(", ")
    return tuple(v.strip() for v in items if str(v).strip())


def is_open(task: Row) -> bool:
    return task["status"] != "DONE"


def overdue(snap: Snapshot, task: Row) -> bool:
    return is_open(task) and _due(task) is not None and _due(task) < snap.today


def day_of(value: Any) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def window(today: dt.date, name: str) -> tuple[dt.date, dt.date]:
    """[start, end) of "last_week" (the ISO week before this one), "last_month" (the calendar month before this
    one) or "this_year" (1 January to today included)."""
    if name == "last_week":
        monday = today - dt.timedelta(days=today.weekday())
        return monday - dt.timedelta(weeks=1), monday
    if name == "last_month":
        first = today.replace(day=1)
        return (first - dt.timedelta(days=1)).replace(day=1), first
    if name == "this_year":
        return today.replace(month=1, day=1), today + dt.timedelta(days=1)
    raise ValueError(f"no window {name!r}")


def truth(snap: Snapshot, asker: int, template: str, slots: Mapping[str, Any]) -> Truth:
    """The truth of one turn of the edits batch asked by ``asker``."""
    chain, _, turn = template.partition("/")
    out = _CHAINS[chain](snap, asker, int(turn), slots) if turn else _single(snap, asker, template, slots)
    named = tuple(str(v) for k, v in sorted(slots.items()) if k in NAMED_VALUES)
    return dataclasses.replace(out, named=named) if named else out


def _visible(snap: Snapshot, asker: int, keep: Callable[[Row], bool]) -> list[Row]:
    return [t for t in snap.visible_tasks(asker) if keep(t)]


def _count(rows: list[Row]) -> Truth:
    if not rows:
        return REFUSAL
    return Truth("count", tasks=frozenset(_anchor(t) for t in rows), figure=len(rows))


def _anchor(task: Row) -> str:
    return f"[TASK #{task['task_id']}]"


def _pick(rows: list[Row], key: Callable[[Row], Any], values: Callable[[Row], tuple[str, ...]] | None = None) -> Truth:
    """The record ``key`` puts first (those tied with it are as good), with the asked value when ``values``."""
    if not rows:
        return REFUSAL
    best = min(key(t) for t in rows)
    tied = [t for t in rows if key(t) == best]
    groups = (values(tied[0]),) if values is not None else ()
    return Truth("one", tasks=frozenset(_anchor(t) for t in tied), values=groups,
                 raw_values=tuple(_anchor(t) for t in tied))


def _due_key(task: Row) -> tuple:
    due = _due(task)
    return (due is None, due or dt.date.max)


def _urgency(task: Row) -> tuple:
    return (RANK[task["priority"]], *_due_key(task))


def _due_spellings(task: Row) -> tuple[str, ...]:
    due = _due(task)
    return spell_date(due) if due is not None else ("-",)


def _who_most(snap: Snapshot, asker: int, rows: list[Row], field: str = "assignee_id") -> Truth:
    """The person (``field``: assignee or reporter) with the most of ``rows``, and that figure."""
    tally = Counter(t[field] for t in rows if t.get(field) is not None)
    if not tally:
        return REFUSAL
    top = max(tally.values())
    winners = [i for i, n in tally.items() if n == top]
    spell = tuple(s for w in winners for s in (fold(snap.name(w)), fold(str(snap.employees[w]["first_name"])),
                                                 *(YOU_LEAD if w == asker else ())))
    return Truth("compare", figure=top, values=(spell,), raw_values=tuple(snap.name(w) for w in winners))


def _most(rows: list[Row], key: Callable[[Row], tuple[str, ...]], spell: Callable[[str], tuple[str, ...]]) -> Truth:
    """The value of ``key`` (a project, a component) most of ``rows`` have, and that figure."""
    tally = Counter(v for t in rows for v in key(t))
    if not tally:
        return REFUSAL
    top = max(tally.values())
    winners = sorted(v for v, n in tally.items() if n == top)
    return Truth("compare", figure=top, values=(tuple(s for w in winners for s in spell(w)),),
                 raw_values=tuple(winners))


def _person_status(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    person = s["person"] if turn == 1 else s["person2"]
    rows = _visible(snap, asker, lambda t: t["assignee_id"] == person and t["status"] == s["status"])
    if turn < 3:
        return _list(rows)
    return _count([t for t in rows if t["priority"] == s["priority"]])


def _person_work(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    rows = _visible(snap, asker, lambda t: t["assignee_id"] == s["person"] and is_open(t))
    if turn == 1:
        return _list(rows)
    rows = [t for t in rows if t["status"] == s["status"]]
    return _list(rows) if turn == 2 else _pick(rows, _due_key, _due_spellings)


def _sprint(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    sprint = s["sprint"] if turn == 1 else s["sprint_before"]
    rows = _visible(snap, asker, lambda t: t["sprint_id"] == sprint and is_open(t))
    return _list(rows) if turn < 3 else _who_most(snap, asker, rows)


def _project_overdue(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    project = s["project"] if turn == 1 else s["project2"]
    rows = _visible(snap, asker, lambda t: t["project_id"] == project and overdue(snap, t))
    return _list(rows) if turn < 3 else _who_most(snap, asker, rows)


def _urgent(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    rows = _visible(snap, asker, lambda t: t["assignee_id"] == asker and is_open(t))
    if turn == 1:
        return _pick(rows, _urgency)
    if s.get("asks") == "reporter":
        return _pick(rows, _urgency, lambda t: _person_spellings(snap, asker, t.get("reporter_id")))
    return _pick(rows, _urgency, _due_spellings)


def _status_count(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    project = s["project"] if turn == 1 else s["project2"]
    rows = _visible(snap, asker, lambda t: t["project_id"] == project and t["status"] == s["status"])
    return _count(rows) if turn < 3 else _list([t for t in rows if t["assignee_id"] is None])


def _component(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    rows = _visible(snap, asker, lambda t: is_open(t) and _is_type(t, s["type"])
                    and s["component"] in values_of(t, "component"))
    if turn == 1:
        return _list(rows)
    rows = [t for t in rows if t["priority"] == s["priority"]]
    return _list(rows) if turn == 2 else _count(rows)


def _version(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any], fixed: bool = True) -> Truth:
    version = s["version"] if turn == 1 else s["version2"]
    rows = _visible(snap, asker, lambda t: version in values_of(t, "version") and not (fixed and is_open(t)))
    return _list(rows if turn < 3 else [t for t in rows if t.get("reporter_id") == s["person"]])


def _label_count(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    label = s["label"] if turn == 1 else s["label2"]
    rows = _visible(snap, asker, lambda t: is_open(t) and label in values_of(t, "label"))
    return _count(rows) if turn < 3 else _list(rows)


def _type_switch(snap: Snapshot, asker: int, turn: int, s: Mapping[str, Any]) -> Truth:
    kind = s["type"] if turn == 1 else s["type2"]
    rows = _visible(snap, asker, lambda t: t["assignee_id"] == asker and is_open(t) and _is_type(t, kind))
    if turn < 3:
        return _list(rows)
    return _pick([t for t in rows if day_of(t.get("created_at"))], lambda t: -_ordinal(t.get("created_at")))


def _ordinal(value: Any) -> float:
    """A timestamp as a number that orders it (ISO text or a datetime)."""
    if isinstance(value, dt.datetime):
        return value.timestamp()
    return dt.datetime.fromisoformat(str(value).replace("Z", "")).timestamp()


def _is_type(task: Row, kind: str) -> bool:
    return fold(str(task.get("issue_type") or "")) == fold(kind)


def _person_spellings(snap: Snapshot, asker: int, person: int | None) -> tuple[str, ...]:
    if person is None:
        return ("-",)
    return (fold(snap.name(person)), *(YOURS if person == asker else ()))


_CHAINS: dict[str, Callable[[Snapshot, int, int, Mapping[str, Any]], Truth]] = {
    "e_person_status": _person_status, "e_person_work": _person_work, "e_sprint": _sprint,
    "e_project_overdue": _project_overdue, "e_urgent": _urgent,
    "e_urgent_reporter": lambda snap, asker, turn, s: _urgent(snap, asker, turn, {**s, "asks": "reporter"}),
    "e_status_count": _status_count,
    "e_component": _component, "e_version": _version, "e_label_count": _label_count, "e_type_switch": _type_switch,
    "e_version_tasks": lambda snap, asker, turn, s: _version(snap, asker, turn, s, fixed=False),
}
CHAINS = tuple(_CHAINS)


def _single(snap: Snapshot, asker: int, template: str, s: Mapping[str, Any]) -> Truth:
    if template in ("t_reporter_of", "t_created_of"):
        return _field_of(snap, asker, template, s["task"])
    mine = _visible(snap, asker, lambda t: t["assignee_id"] == asker and is_open(t))
    if template in ("t_my_most_urgent", "t_my_open"):
        return _pick(mine, _urgency) if template == "t_my_most_urgent" else _list(mine)
    if template == "t_top_reporter":
        return _who_most(snap, asker, _visible(snap, asker, lambda t: t["project_id"] == s["project"]), "reporter_id")
    if template == "t_most_open_type":
        rows = _visible(snap, asker, lambda t: is_open(t) and _is_type(t, s["type"]))
        return _most(rows, lambda t: (str(t["project_id"]),),
                     lambda p: _name_spellings(str(snap.projects[int(p)]["name"])))
    if template == "t_per_component":
        rows = _visible(snap, asker, lambda t: t["project_id"] == s["project"] and is_open(t))
        return _most(rows, lambda t: values_of(t, "component"), lambda v: (fold(v),))
    keep, answer = _SINGLES[template]
    rows = _visible(snap, asker, lambda t: keep(snap, t, s))
    return answer(rows)


def _field_of(snap: Snapshot, asker: int, template: str, task_id: int) -> Truth:
    if not snap.sees_task(asker, task_id):
        return REFUSAL
    task = snap.tasks[task_id]
    if template == "t_reporter_of":
        spell, raw = _person_spellings(snap, asker, task.get("reporter_id")), str(task.get("reporter_id"))
    else:
        created = day_of(task.get("created_at"))
        spell, raw = (spell_date(created) if created else ("-",)), str(created)
    return Truth("lookup", entity=_anchor(task), values=(spell,), raw_values=(raw,))


def _in_window(snap: Snapshot, value: Any, name: str) -> bool:
    day = day_of(value)
    start, end = window(snap.today, name)
    return day is not None and start <= day < end


Keep = Callable[[Snapshot, Row, Mapping[str, Any]], bool]
_SINGLES: dict[str, tuple[Keep, Callable[[list[Row]], Truth]]] = {
    "t_person_open": (lambda snap, t, s: t["assignee_id"] == s["first"] and is_open(t), _count),
    "t_sprint_open": (lambda snap, t, s: t["sprint_id"] == s["sprint"] and is_open(t), _list),
    "t_unassigned_open": (lambda snap, t, s: t["project_id"] == s["project"] and is_open(t)
                          and t["assignee_id"] is None, _count),
    "t_status_project": (lambda snap, t, s: t["project_id"] == s["project"] and t["status"] == s["status"], _count),
    "t_open_version": (lambda snap, t, s: is_open(t) and s["version"] in values_of(t, "version"), _list),
    "t_count_open_version": (lambda snap, t, s: is_open(t) and s["version"] in values_of(t, "version"), _count),
    "t_open_component": (lambda snap, t, s: is_open(t) and s["component"] in values_of(t, "component"), _list),
    "t_label": (lambda snap, t, s: is_open(t) and s["label"] in values_of(t, "label"), _list),
    "t_count_label": (lambda snap, t, s: s["label"] in values_of(t, "label"), _count),
    "t_unresolved_type": (lambda snap, t, s: t["project_id"] == s["project"] and _is_type(t, s["type"])
                          and not t.get("resolution"), _count),
    "t_resolution": (lambda snap, t, s: t["project_id"] == s["project"]
                     and fold(str(t.get("resolution") or "")) == fold(s["resolution"]), _count),
    "t_created_window": (lambda snap, t, s: t["project_id"] == s["project"]
                         and _in_window(snap, t.get("created_at"), s["window"]), _count),
    "t_resolved_window": (lambda snap, t, s: _in_window(snap, t.get("resolved_at"), s["window"]), _count),
    "t_priority_type": (lambda snap, t, s: is_open(t) and t["priority"] == s["priority"]
                        and _is_type(t, s["type"]), _count),
}
SINGLES = (*_SINGLES, "t_my_open", "t_reporter_of", "t_created_of", "t_my_most_urgent", "t_top_reporter", "t_per_component",
           "t_most_open_type")
