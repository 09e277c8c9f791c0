"""The "edits" batch of the conversation benchmark (issue 31): chains that edit the last question, and single
questions on every field, over the demo data. Pure.

Built from a Snapshot of the seeded demo (app/evals/conversation_truth.py) with fixed seeds, like
conversation_cases.build. Each chain phrasing (a variant: one wording per turn, tuned ones in
conversation_phrasings_edits.py, held-out ones copied unchanged from the "phrasings" helper's file into
conversation_phrasings_edits_heldout.py) is asked CHAIN_REPEAT times, by askers in turn (Maria, the manager,
and four developers: a question about someone else's tasks is hidden from a developer), with slots drawn for
that asker. Single-question phrasings are asked PER_PART[part] times each, askers and slots in a shuffled order.
Every turn of a chain carries the chain's slots so far; its template is "<chain>/<turn>" and its truth
(app/evals/edit_truth.py) is the previous question with this turn's edit applied, computed from the records.

The templates that read the fields of branch `fields` (edit_truth.FIELD_TEMPLATES) are built only when the
seeded demo has those fields (has_fields): without reporters, labels and issue types they would all be refusals.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from app.evals import conversation_phrasings_edits as tuned
from app.evals import conversation_phrasings_edits_heldout as heldout
from app.evals import edit_truth
from app.evals.conversation_cases import PARTS, SEED, Case, Turn, _askers, _items
from app.evals.conversation_truth import Snapshot
from app.evals.edit_truth import FIELD_TEMPLATES, values_of

STATUSES = ("IN_PROGRESS", "TODO", "IN_REVIEW", "DONE")
SAY = {  # slot values as a person writes them
    # a status by the tracker's own name, in both languages (as a Jira board shows it; the catalogue's phrasings
    # say "in {status}", "status {status}", "en estado {status}")
    "status": {lang: {"IN_PROGRESS": "In Progress", "TODO": "To Do", "IN_REVIEW": "In Review", "DONE": "Done"}
               for lang in ("en", "es")},
    "priority": {"en": {"CRITICAL": "critical", "HIGH": "high", "MEDIUM": "medium", "LOW": "low"},
                 "es": {"CRITICAL": "crítica", "HIGH": "alta", "MEDIUM": "media", "LOW": "baja"}},
    "window": {"en": {"last_week": "last week", "last_month": "last month", "this_year": "this year"},
               "es": {"last_week": "la semana pasada", "last_month": "el mes pasado", "this_year": "este año"}},
}
CHAIN_REPEAT = 2  # askings of each chain variant
PER_PART = {"tuned": 3, "heldout": 2}  # askings of each single-question phrasing
SOURCES = dict(zip(PARTS, (tuned, heldout)))
PEOPLE = ("person", "person2", "first")
NAMED = {"project": "projects", "project2": "projects", "sprint": "sprints"}
PLAIN = ("type", "type2", "component", "label", "label2", "version", "version2", "resolution")


# The fields each template of FIELD_TEMPLATES reads beyond the original demo's (a multi-valued one by its
# edit_truth.MULTI name): it is built only when some demo task has every one of them.
NEEDS: dict[str, tuple[str, ...]] = {
    "e_component": ("issue_type", "component"), "e_version": ("version", "reporter_id"), "e_label_count": ("label",),
    "e_version_tasks": ("version", "reporter_id"),
    "e_type_switch": ("issue_type", "created_at"), "e_urgent_reporter": ("reporter_id",),
    "t_open_version": ("version",), "t_count_open_version": ("version",), "t_open_component": ("component",),
    "t_label": ("label",), "t_count_label": ("label",), "t_unresolved_type": ("issue_type", "resolution"),
    "t_most_open_type": ("issue_type",), "t_top_reporter": ("reporter_id",), "t_reporter_of": ("reporter_id",),
    "t_created_of": ("created_at",), "t_resolution": ("resolution",), "t_created_window": ("created_at",),
    "t_resolved_window": ("resolved_at",), "t_priority_type": ("issue_type",), "t_per_component": ("component",),
}


def has_fields(snap: Snapshot) -> bool:
    """Whether the seeded demo has the fields of branch `fields` (reporters, created dates, labels, types)."""
    return all(_has(snap, f) for f in ("reporter_id", "label", "created_at")) and \
        len({t.get("issue_type") for t in snap.tasks.values()} - {None}) > 1


def _has(snap: Snapshot, field: str) -> bool:
    if field in edit_truth.MULTI:
        return any(values_of(t, field) for t in snap.tasks.values())
    return any(t.get(field) not in (None, "") for t in snap.tasks.values())


def left_out(snap: Snapshot, fields: bool | None = None) -> dict[str, str]:
    """The templates of the catalogue the batch does not ask on this demo, and why."""
    fields = has_fields(snap) if fields is None else fields
    out = {}
    for key in dict.fromkeys([*tuned.CHAINS, *heldout.CHAINS, *tuned.SINGLE, *heldout.SINGLE]):
        if key in FIELD_TEMPLATES and not fields:
            out[key] = "the demo has no reporters, labels, created dates and issue types (branch fields)"
        elif key in FIELD_TEMPLATES:
            missing = [f for f in NEEDS.get(key, ()) if not _has(snap, f)]
            if missing:
                out[key] = f"no demo task has {', '.join(missing)}"
    return out


def build_edits(snap: Snapshot, fields: bool | None = None) -> list[Case]:
    """Every conversation of the batch: the chains, then the single questions (``fields``: whether to build the
    templates of FIELD_TEMPLATES; by default, when the demo has them)."""
    fields = has_fields(snap) if fields is None else fields
    askers = _askers(snap)
    cases: list[Case] = []
    for n, chain in enumerate(_available(snap, "CHAINS", fields)):
        cases.extend(_chains(snap, askers, chain, n))
    for template in _available(snap, "SINGLE", fields):
        cases.extend(_singles(snap, askers, template))
    return cases


def _available(snap: Snapshot, name: str, fields: bool) -> list[str]:
    ids = dict.fromkeys([*getattr(tuned, name), *getattr(heldout, name)])
    skip = left_out(snap, fields)
    return [i for i in ids if i not in skip]


def family(template: str) -> str:
    """A turn's kind in the report: its chain, or its single template."""
    return template.split("/", 1)[0]


def _variants(kind: str, key: str) -> list[tuple[str, str, Any]]:
    """(part, lang, phrasing) of a chain or single template: tuned ones, then held-out ones."""
    return [(part, lang, p) for part, module in SOURCES.items() for lang in ("en", "es")
            for p in getattr(module, kind).get(key, {}).get(lang, ())]


def _chains(snap: Snapshot, askers: list[int], chain: str, offset: int) -> Iterator[Case]:
    for i, (part, lang, turns) in enumerate(_variants("CHAINS", chain)):
        for r in range(CHAIN_REPEAT):
            asker = askers[(i * CHAIN_REPEAT + r + offset) % len(askers)]
            rng = random.Random(f"{SEED}-{chain}-{i}-{r}")
            slots = _COMBOS[chain](snap, asker, rng, i + r)
            yield Case(f"{chain}-{part}-{lang}-{i}-{r}", asker, tuple(
                Turn(text.format(**said(snap, slots, lang)), lang, part, f"{chain}/{k + 1}", _items(slots))
                for k, text in enumerate(turns)))


def _singles(snap: Snapshot, askers: list[int], template: str) -> Iterator[Case]:
    rows = _single_rows(snap, askers, template)
    order = random.Random(f"{SEED}-{template}").sample(rows, len(rows))
    taken = 0
    for i, (part, lang, text) in enumerate(_variants("SINGLE", template)):
        for j in range(PER_PART[part]):
            asker, slots = order[taken % len(order)]
            taken += 1
            yield Case(f"{template}-{part}-{lang}-{i}-{j}", asker, (
                Turn(text.format(**said(snap, slots, lang)), lang, part, template, _items(slots)),))


def said(snap: Snapshot, slots: Mapping[str, Any], lang: str) -> dict[str, str]:
    """The slots as the question writes them."""
    out: dict[str, str] = {}
    for key, value in slots.items():
        if key in PEOPLE:
            out[key] = str(snap.employees[value]["first_name"])
        elif key in SAY:
            out[key] = SAY[key][lang][value]
        elif key in NAMED:
            out[key] = str(getattr(snap, NAMED[key])[value]["name"])
        elif key in PLAIN:
            out[key] = str(value)
        elif key == "task":
            external = snap.tasks[value].get("external_key") if value in snap.tasks else None
            out["key"] = str(external) if external else f"#{value}"
    return out


def _developers(snap: Snapshot) -> list[int]:
    return sorted(i for i, e in snap.employees.items() if str(e["role"]).upper() == "DEVELOPER")


def _person_pair(snap: Snapshot, asker: int, rng: random.Random, n: int) -> tuple[int, int]:
    """Two developers; for a developer asker, themselves and another, in turn first and second."""
    devs = _developers(snap)
    if asker not in devs:
        first, second = rng.sample(devs, 2)
        return first, second
    other = rng.choice([d for d in devs if d != asker])
    return (asker, other) if n % 2 else (other, asker)


def _present(rows: list[Mapping[str, Any]], field: str, rng: random.Random, fallback: tuple) -> Any:
    """A value of ``field`` some of ``rows`` have (so the question has an answer for someone), else any."""
    seen = sorted({str(t[field]) for t in rows if t.get(field) is not None})
    return rng.choice(seen) if seen else rng.choice(fallback)


def _person_status(snap, asker, rng, n):
    person, person2 = _person_pair(snap, asker, rng, n)
    theirs = [t for t in snap.tasks.values() if t["assignee_id"] == person2]
    status = _present(theirs, "status", rng, STATUSES)
    rows = [t for t in theirs if t["status"] == status]
    return {"person": person, "person2": person2, "status": status,
            "priority": _present(rows, "priority", rng, tuple(edit_truth.RANK))}


def _person_work(snap, asker, rng, n):
    person = _person_pair(snap, asker, rng, n)[0]
    open_rows = [t for t in snap.tasks.values() if t["assignee_id"] == person and t["status"] != "DONE"]
    return {"person": person, "status": _present(open_rows, "status", rng, STATUSES[:3])}


def _sprint(snap, asker, rng, n):
    by_project: dict[int, list[int]] = {}
    for i, s in sorted(snap.sprints.items(), key=lambda kv: (str(kv[1]["start_date"]), kv[0])):
        by_project.setdefault(s["project_id"], []).append(i)
    pairs = [(ids[k], ids[k - 1]) for ids in by_project.values() for k in range(1, len(ids))]
    sprint, before = rng.choice(sorted(pairs))
    return {"sprint": sprint, "sprint_before": before}


def _two_projects(snap, asker, rng, n):
    project, project2 = rng.sample(sorted(snap.projects), 2)
    return {"project": project, "project2": project2}


def _status_count(snap, asker, rng, n):
    return {**_two_projects(snap, asker, rng, n), "status": rng.choice(STATUSES)}


def _component(snap, asker, rng, n):
    pairs = sorted({(str(t["issue_type"]), c) for t in _open(snap, asker) for c in values_of(t, "component")})
    kind, component = rng.choice(pairs)
    rows = [t for t in _open(snap, asker) if t["issue_type"] == kind and component in values_of(t, "component")]
    return {"type": kind, "component": component, "priority": _present(rows, "priority", rng, tuple(edit_truth.RANK))}


def _version(snap, asker, rng, n):
    version, version2 = rng.sample(_all_values(snap, "version"), 2)
    rows = [t for t in snap.tasks.values() if version2 in values_of(t, "version")]
    reporters = sorted({t["reporter_id"] for t in rows if t.get("reporter_id") is not None})
    return {"version": version, "version2": version2, "person": rng.choice(reporters or _developers(snap))}


def _label_count(snap, asker, rng, n):
    label, label2 = rng.sample(_all_values(snap, "label"), 2)
    return {"label": label, "label2": label2}


def _type_switch(snap, asker, rng, n):
    kinds = sorted({str(t["issue_type"]) for t in _open(snap, asker) if t.get("issue_type")})
    kinds = kinds if len(kinds) >= 2 else sorted({str(t["issue_type"]) for t in snap.tasks.values()
                                                  if t.get("issue_type")})
    kind, kind2 = rng.sample(kinds, 2)
    return {"type": kind, "type2": kind2}


def _open(snap: Snapshot, asker: int) -> list[Mapping[str, Any]]:
    """The open tasks a combination is drawn from: the asker's own for a developer, else every one."""
    mine = [t for t in snap.tasks.values() if t["assignee_id"] == asker and t["status"] != "DONE"]
    return mine if snap.role(asker) == "DEVELOPER" and mine else \
        [t for t in snap.tasks.values() if t["status"] != "DONE"]


def _all_values(snap: Snapshot, name: str) -> list[str]:
    return sorted({v for t in snap.tasks.values() for v in values_of(t, name)})


_COMBOS: dict[str, Callable[[Snapshot, int, random.Random, int], dict[str, Any]]] = {
    "e_person_status": _person_status, "e_person_work": _person_work, "e_sprint": _sprint,
    "e_project_overdue": _two_projects, "e_urgent": lambda *a: {}, "e_urgent_reporter": lambda *a: {},
    "e_status_count": _status_count, "e_component": _component, "e_version": _version, "e_version_tasks": _version,
    "e_label_count": _label_count, "e_type_switch": _type_switch,
}


def _single_rows(snap: Snapshot, askers: list[int], template: str) -> list[tuple[int, dict[str, Any]]]:
    """Every (asker, slots) a single template is asked with."""
    projects, sprints = sorted(snap.projects), sorted(snap.sprints)
    if template in ("t_reporter_of", "t_created_of"):
        return [(a, {"task": t}) for a in askers for t in _task_picks(snap, a, template)]
    windows = tuple(SAY["window"]["en"])
    combos: dict[str, list[dict[str, Any]]] = {
        "t_person_open": [{"first": p} for p in _developers(snap)],
        "t_my_open": [{}], "t_my_most_urgent": [{}],
        "t_sprint_open": [{"sprint": s} for s in sprints],
        "t_unassigned_open": [{"project": p} for p in projects],
        "t_status_project": [{"status": s, "project": p} for s in STATUSES for p in projects],
        "t_top_reporter": [{"project": p} for p in projects], "t_per_component": [{"project": p} for p in projects],
        "t_resolved_window": [{"window": w} for w in windows],
        "t_created_window": [{"project": p, "window": w} for p in projects for w in windows],
        "t_unresolved_type": [{"type": k, "project": p} for k in _all_of(snap, "issue_type") for p in projects],
        "t_most_open_type": [{"type": k} for k in _all_of(snap, "issue_type")],
        "t_priority_type": [{"priority": r, "type": k} for r in edit_truth.RANK for k in _all_of(snap, "issue_type")],
        "t_resolution": [{"project": p, "resolution": r} for p in projects for r in _all_of(snap, "resolution")],
        **{t: [{"version": v} for v in _all_values(snap, "version")] for t in ("t_open_version", "t_count_open_version")},
        "t_open_component": [{"component": c} for c in _all_values(snap, "component")],
        **{t: [{"label": v} for v in _all_values(snap, "label")] for t in ("t_label", "t_count_label")},
    }
    return [(a, slots) for slots in combos[template] for a in askers]


def _all_of(snap: Snapshot, field: str) -> list[str]:
    return sorted({str(t[field]) for t in snap.tasks.values() if t.get(field)})


def _task_picks(snap: Snapshot, asker: int, template: str) -> list[int]:
    """Two tasks the asker sees and one they may not (a developer: another's), drawn per asker and template."""
    rng = random.Random(f"{SEED}-{template}-{asker}")
    visible = [t["task_id"] for t in snap.visible_tasks(asker)]
    others = [i for i in sorted(snap.tasks) if not snap.sees_task(asker, i)] or sorted(snap.tasks)
    return [*rng.sample(visible, 2), rng.choice(others)]


# The catalogue's slots (templates.md): each chain turn's own, each single template's. A phrasing holds exactly these.
CHAIN_SLOTS: dict[str, tuple[frozenset[str], ...]] = {k: tuple(frozenset(s.split()) for s in v) for k, v in {
    "e_person_status": ("person status", "person2", "priority"), "e_person_work": ("person", "status", ""),
    "e_sprint": ("sprint", "", ""), "e_project_overdue": ("project", "project2", ""), "e_urgent": ("", ""),
    "e_urgent_reporter": ("", ""), "e_component": ("type component", "priority", ""),
    "e_version": ("version", "version2", "person"), "e_version_tasks": ("version", "version2", "person"),
    "e_label_count": ("label", "label2", ""),
    "e_status_count": ("status project", "project2", ""), "e_type_switch": ("type", "type2", ""),
}.items()}
SINGLE_SLOTS: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in {
    "t_open_version": "version", "t_count_open_version": "version", "t_open_component": "component",
    "t_label": "label", "t_count_label": "label", "t_unresolved_type": "type project", "t_most_open_type": "type",
    "t_top_reporter": "project", "t_reporter_of": "key", "t_created_of": "key", "t_resolution": "project resolution",
    "t_person_open": "first", "t_created_window": "project window", "t_resolved_window": "window",
    "t_unassigned_open": "project", "t_status_project": "status project", "t_per_component": "project",
    "t_priority_type": "priority type", "t_sprint_open": "sprint", "t_my_open": "", "t_my_most_urgent": "",
}.items()}


def slot_errors() -> list[tuple[str, str, str]]:
    """(template, part, phrasing) of every phrasing, tuned or held-out, whose slots are not exactly its turn's."""
    import string

    def slots(text: str) -> list[str]:
        return [name for _, name, _, _ in string.Formatter().parse(text) if name]

    bad = []
    for part, module in SOURCES.items():
        for chain, by in module.CHAINS.items():
            for variant in (v for lang in by.values() for v in lang):
                if len(variant) != len(CHAIN_SLOTS[chain]):
                    bad.append((chain, part, " / ".join(variant)))
                bad += [(chain, part, t) for t, want in zip(variant, CHAIN_SLOTS[chain])
                        if sorted(slots(t)) != sorted(want)]
        for template, by in module.SINGLE.items():
            bad += [(template, part, t) for lang in by.values() for t in lang
                    if sorted(slots(t)) != sorted(SINGLE_SLOTS[template])]
    return bad


def sample_chains(cases: list[Case], seed: int = SEED) -> list[Case]:
    """One chain of each chain template (about 30 turns), seeded: its language and part alternate over the
    templates, so both languages and both parts are in it. What tests/quality runs in make test."""
    by_chain: dict[str, list[Case]] = {}
    for case in cases:
        if len(case.turns) > 1:
            by_chain.setdefault(family(case.turns[0].template), []).append(case)
    rng = random.Random(seed)
    chosen = []
    for n, (_, group) in enumerate(sorted(by_chain.items())):
        lang, part = ("en", "es")[n % 2], PARTS[(n // 2) % 2]
        fits = [c for c in group if c.turns[0].lang == lang and c.turns[0].part == part] or group
        chosen.append(rng.choice(fits))
    return chosen
