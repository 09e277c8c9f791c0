"""The benchmark's conversations: templates × askers × projects × sprints × tasks × phrasings. Pure.

Built from a Snapshot of the seeded demo database (the ids, names and titles a question uses; topics are
app/demo_data.AREAS that some title names), with a fixed seed, so the same data gives the same conversations. Askers of each role: Maria (a manager: sees
everything) and four developers (see their own tasks and the organisation-wide material), so the same
question is answerable for one asker and hidden from another. English phrasings get twice the slot
combinations of Spanish ones: a third of the questions are Spanish. Chains: a task asked by id, title or
its comments, then "who is assigned to it?", "¿y cuándo vence?", "who commented on it?"; and a scope
change ("only look at the Payments Platform project from now on"), questions under it, then "search
everything again". Each turn knows its template, slots, language and whether its phrasing is tuned or
held out; what it asks is its template (app/evals/conversation_truth.py).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.evals import conversation_phrasings as tuned
from app.evals import conversation_phrasings_heldout as heldout
from app.evals.conversation_truth import Snapshot

SEED = 23
ASKERS = ("Maria", "Ana", "Ben", "Chen", "Diego")  # first names in app/demo_data.EMPLOYEES
MISSING_TASK = 9999
STATUSES = ("IN_PROGRESS", "TODO", "IN_REVIEW", "DONE")
SAY = {
    "status": {"en": {"IN_PROGRESS": "in progress", "TODO": "still to do", "IN_REVIEW": "in review", "DONE": "done"},
               "es": {"IN_PROGRESS": "en progreso", "TODO": "por hacer", "IN_REVIEW": "en revisión",
                      "DONE": "terminadas"}},
    "window": {"en": {0: "this week", 1: "next week"}, "es": {0: "esta semana", 1: "la próxima semana"}},
    # Other words for the same filters ({status2}, {window2}), for batches of phrasings that say them so.
    "status2": {"en": {"IN_PROGRESS": "ongoing", "TODO": "not started", "IN_REVIEW": "under review", "DONE": "finished"},
                "es": {"IN_PROGRESS": "en curso", "TODO": "sin empezar", "IN_REVIEW": "pendientes de revisión",
                       "DONE": "cerradas"}},
    "window2": {"en": {0: "during the current week", 1: "the week after this one"},
                "es": {0: "esta misma semana", 1: "la semana que viene"}},
}
PER_PHRASING = {"en": 4, "es": 2}  # slot combinations per phrasing
FOCUS_CHAINS_PER_ASKER = 5
PARTS = ("tuned", "heldout")
CHECK_PARTS = ("check-tune", "check-own")  # the document check set's halves: tuned on, and never tuned on


@dataclass(frozen=True)
class Turn:
    text: str
    lang: str
    part: str  # tuned | heldout: where its phrasing comes from
    template: str
    slots: tuple[tuple[str, Any], ...]

    @property
    def slot(self) -> dict[str, Any]:
        return dict(self.slots)


@dataclass(frozen=True)
class Case:
    """One conversation, asked by one employee from its first turn to its last."""

    cid: str
    asker: int
    turns: tuple[Turn, ...]

    @property
    def is_chain(self) -> bool:
        return len(self.turns) >= 3


Source = Mapping[str, Mapping[str, tuple[str, ...]]]


def phrasings(template: str, lang: str, source: Source | None = None) -> list[tuple[str, str]]:
    """(phrasing, part) of a template in a language: the tuned ones, then the held-out ones; with a
    ``source`` (conversation_phrasings.VARIANTS), its phrasings as tuned ones where it has the template."""
    if source is not None and source.get(template, {}).get(lang):
        return [(p, "tuned") for p in source[template][lang]]
    return [(p, part) for part, module in zip(PARTS, (tuned, heldout))
            for p in module.PHRASINGS.get(template, {}).get(lang, ())]


def build(snap: Snapshot, source: Source | None = None) -> list[Case]:
    """Every conversation; with a ``source``, only those its phrasings reword (the templates it has, and
    the chains, whose other turns keep their phrasings), asked in its words."""
    rng = random.Random(SEED)
    askers = _askers(snap)
    if MISSING_TASK in snap.tasks:
        raise ValueError(f"task {MISSING_TASK} exists: the benchmark's missing id must not")
    picks = {a: _task_picks(snap, a, rng) for a in askers}
    cases: list[Case] = []
    combos = _combos(snap, askers, picks)
    for template, rows in combos.items():
        if source is None or template in source:
            cases.extend(_spread(snap, template, rows, source))
    if source is None:
        cases.extend(_facts(snap, askers))
    rotation = _Rotation(source)
    cases.extend(_focus_chains(snap, askers, picks, rotation))
    cases.extend(_scope_chains(snap, askers, rotation))
    if source is not None:  # a batch of a few templates rewords only the chains that ask one of them
        cases = [c for c in cases if any(t.template in source for t in c.turns)]
    return cases


def _askers(snap: Snapshot) -> list[int]:
    """The ASKERS' employee ids, in ASKERS' order."""
    ids = {str(e["first_name"]): i for i, e in snap.employees.items()}
    return [ids[name] for name in ASKERS]


def _task_picks(snap: Snapshot, asker: int, rng: random.Random) -> list[int]:
    """Tasks one asker asks about: visible ones, then (a developer) one hidden from them, then a missing id."""
    visible = [t["task_id"] for t in snap.visible_tasks(asker)]
    hidden = [i for i in sorted(snap.tasks) if not snap.sees_task(asker, i) and snap.tasks[i]["assignee_id"]]
    chosen = rng.sample(visible, 3)
    if hidden:
        chosen[2] = rng.choice(hidden)
    return [*chosen, rng.choice(visible), MISSING_TASK]


def _combos(snap: Snapshot, askers: list[int], picks: Mapping[int, list[int]]) -> dict[str, list[tuple[int, dict]]]:
    people = [i for i, e in snap.employees.items() if str(e["role"]).upper() == "DEVELOPER"]
    tasks = [(a, {"task": t}) for a in askers for t in picks[a]]
    titled = [(a, {"task": t}) for a in askers for t in picks[a][:3]]
    by_status = [(a, {"status": s}) for a in askers for s in STATUSES]
    return {
        "my_status": by_status,
        "my_overdue": [(a, {}) for a in askers],
        "my_due": [(a, {"window": w}) for a in askers for w in (0, 1)],
        "person_tasks": [(a, {"person": p}) for p in people for a in askers],
        "person_status": [(a, {"person": p, "status": s}) for s in STATUSES for p in people for a in askers],
        "person_overdue": [(a, {"person": p}) for p in people for a in askers],
        "topic_tasks": [(a, {"area": area}) for area in _areas(snap) for a in askers],
        **{f"lookup_{f}": tasks for f in ("status", "assignee", "due", "priority", "points")},
        "title_status": titled, "title_assignee": titled, "card": tasks,
        "count_status": [(a, {"status": s, "project": p}) for p in sorted(snap.projects) for s in STATUSES
                         for a in askers],
        "sum_points": [(a, {"sprint": s}) for s in sorted(snap.sprints) for a in askers],
        **{f"compare_{c}": [(a, {}) for a in askers] for c in ("project_overdue", "person_open", "sprint_points")},
        "comment_authors": tasks, "latest_comment": tasks,
        "blocked_project": [(a, {"project": p}) for p in sorted(snap.projects) for a in askers],
        "doc_summary": [(a, {"doc": d}) for d in sorted(snap.documents) for a in askers],
    }


def _areas(snap: Snapshot) -> list[str]:
    """The demo's topics ("the refund flow") that some task title names."""
    from app.demo_data import AREAS

    titles = [str(t["title"]).lower() for t in snap.tasks.values()]
    return [area for project in sorted(AREAS) for area in AREAS[project] if any(area.lower() in t for t in titles)]


def _spread(snap: Snapshot, template: str, rows: list[tuple[int, dict]], source: Source | None) -> Iterator[Case]:
    """Each phrasing with its share of the slot combinations, taken in a fixed shuffled order (so every
    project, sprint, status and asker gets its turn), distinct until all are used, Spanish after English."""
    order = random.Random(f"{SEED}-{template}").sample(rows, len(rows))
    taken = 0
    for lang in ("en", "es"):
        per = min(PER_PHRASING[lang], len(rows))
        if len(rows) <= len({asker for asker, _ in rows}):  # one combination per asker: fewer of them
            per = max(1, per // 2)
        for i, (text, part) in enumerate(phrasings(template, lang, source)):
            for j in range(per):
                asker, slots = order[taken % len(order)]
                taken += 1
                yield Case(f"{template}-{lang}-{i}-{j}", asker, (_turn(snap, template, text, part, lang, slots),))


def _facts(snap: Snapshot, askers: list[int]) -> Iterator[Case]:
    """Document facts and questions nothing answers, each asked by the manager and by one developer."""
    for part, module in zip(PARTS, (tuned, heldout)):
        yield from _facts_of(snap, askers, [(part, row) for row in module.DOC_FACTS],
                             [(part, row) for row in module.NOWHERE], part)


def _facts_of(snap: Snapshot, askers: list[int], facts: list[tuple[str, tuple[str, str, str, str]]],
              nowhere: list[tuple[str, tuple[str, str]]], tag: str) -> Iterator[Case]:
    """(part, row) of document facts and of questions nothing answers, as cases."""
    developers = askers[1:]
    for n, (part, (lang, text, title, key)) in enumerate(facts):
        slots = {"doc": snap.doc_by_title(title)["document_id"], "key": key}
        for asker in (askers[0], developers[n % len(developers)]):
            yield Case(f"doc_fact-{tag}-{n}-{asker}", asker, (Turn(text, lang, part, "doc_fact", _items(slots)),))
    for n, (part, (lang, text)) in enumerate(nowhere):
        for asker in (askers[0], developers[(n + 1) % len(developers)]):
            yield Case(f"nowhere-{tag}-{n}-{asker}", asker, (Turn(text, lang, part, "nowhere", ()),))


def build_check(snap: Snapshot) -> list[Case]:
    """The document check set (conversation_phrasings.DOC_FACTS_CHECK, NOWHERE_CHECK, DOC_SUMMARY_CHECK),
    asked as the benchmark's own document questions are; its rows alternate between CHECK_PARTS."""
    askers = _askers(snap)
    half = lambda n: CHECK_PARTS[n % 2]  # noqa: E731
    facts = [(half(n), row) for n, row in enumerate(tuned.DOC_FACTS_CHECK)]
    nowhere = [(half(n), row) for n, row in enumerate(tuned.NOWHERE_CHECK)]
    cases = list(_facts_of(snap, askers, facts, nowhere, "check"))
    source = {"doc_summary": tuned.DOC_SUMMARY_CHECK}
    rows = [(a, {"doc": d}) for d in sorted(snap.documents) for a in askers]
    for case in _spread(snap, "doc_summary", rows, source):
        n = int(case.cid.split("-")[-2])  # the phrasing's index in its language
        cases.append(Case(f"check-{case.cid}", case.asker,
                          tuple(Turn(t.text, t.lang, half(n), t.template, t.slots) for t in case.turns)))
    return cases


def _focus_chains(snap: Snapshot, askers: list[int], picks: Mapping[int, list[int]],
                  rotation: _Rotation) -> Iterator[Case]:
    """A task (by id, by title, or its comments), then four follow-ups about it: its assignee, its due date and
    two of the three closers, in turn (each closer in two of every three chains, so in both languages often
    enough that each of its phrasings is asked)."""
    openers = ("card", "lookup_status", "title_status", "comment_authors", "lookup_due")
    closers = ("fu_authors", "fu_others", "fu_status")
    n = 0
    for asker in askers:
        for k in range(FOCUS_CHAINS_PER_ASKER):
            task = picks[asker][k]  # visible, visible, hidden (a developer), visible, missing
            lang = "es" if n % 3 == 2 else "en"
            opener = openers[(n + k) % len(openers)]
            if task not in snap.tasks and opener == "title_status":
                opener = "card"  # a missing task has no title to ask by
            first = (n // 3) % len(closers)
            templates = (opener, "fu_assignee", "fu_due", closers[first], closers[(first + 1) % len(closers)])
            yield Case(f"chain-focus-{n}", asker, tuple(
                _turn(snap, t, *rotation.next(t, lang), lang, {"task": task}) for t in templates))
            n += 1


def _scope_chains(snap: Snapshot, askers: list[int], rotation: _Rotation) -> Iterator[Case]:
    """"Only look at project X from now on", two questions under it, then "search everything again"."""
    n = 0
    for asker in askers:
        for project in sorted(snap.projects):
            lang = "es" if n % 3 == 2 else "en"
            status = STATUSES[n % 3]
            steps = (("scope_project", {"project": project}), ("fu_blocked", {}),
                     ("fu_count_status", {"status": status}), ("scope_all", {}))
            yield Case(f"chain-scope-{n}", asker, tuple(
                _turn(snap, t, *rotation.next(t, lang), lang, slots) for t, slots in steps))
            n += 1


class _Rotation:
    """Each chain template's phrasings in turn, per language, across all chains: every phrasing is asked and
    as often as the others (an index from the chain's number and the turn's place asked some never, since a
    chain's language follows its number too)."""

    def __init__(self, source: Source | None) -> None:
        self._source = source
        self._asked: dict[tuple[str, str], int] = {}

    def next(self, template: str, lang: str) -> tuple[str, str]:
        pool = phrasings(template, lang, self._source)
        k = self._asked.get((template, lang), 0)
        self._asked[(template, lang)] = k + 1
        return pool[k % len(pool)]


def _turn(snap: Snapshot, template: str, text: str, part: str, lang: str, slots: Mapping[str, Any]) -> Turn:
    return Turn(text.format(**_said(snap, slots, lang)), lang, part, template, _items(slots))


def _said(snap: Snapshot, slots: Mapping[str, Any], lang: str) -> dict[str, str]:
    """The slots as the question writes them."""
    said: dict[str, str] = {}
    for key in ("status", "window"):
        if key in slots:
            said[key], said[f"{key}2"] = (SAY[k][lang][slots[key]] for k in (key, f"{key}2"))
    if "area" in slots:
        said["area"] = slots["area"]
    if "person" in slots:
        said["person"] = str(snap.employees[slots["person"]]["first_name"])
        said["person_lc"] = said["person"].lower()  # as a chat types it
        said["person_full"] = snap.name(slots["person"])
    if "task" in slots:
        said["id"] = str(slots["task"])
        task = snap.tasks.get(slots["task"])
        said["title"] = str(task["title"]) if task is not None else ""
    if "project" in slots:
        said["project"] = str(snap.projects[slots["project"]]["name"])
    if "sprint" in slots:
        said["sprint"] = str(snap.sprints[slots["sprint"]]["name"])
    if "doc" in slots:
        said["doc"] = str(snap.documents[slots["doc"]]["title"])
    return said


def _items(slots: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(slots.items()))


FAMILY = {  # the kinds of issue 23 the report is split by
    **dict.fromkeys(("my_status", "my_overdue", "my_due", "person_tasks", "person_status", "person_overdue"),
                    "work"),
    "topic_tasks": "topic",
    **dict.fromkeys(("lookup_status", "lookup_assignee", "lookup_due", "lookup_priority", "lookup_points",
                     "card", "fu_assignee", "fu_due", "fu_status"), "lookup_id"),
    **dict.fromkeys(("title_status", "title_assignee"), "lookup_title"),
    **dict.fromkeys(("count_status", "sum_points", "fu_count_status"), "count"),
    **dict.fromkeys(("compare_project_overdue", "compare_person_open", "compare_sprint_points"), "compare"),
    **dict.fromkeys(("comment_authors", "latest_comment", "fu_authors", "fu_others"), "comments"),
    **dict.fromkeys(("blocked_project", "fu_blocked"), "blockers"),
    **dict.fromkeys(("scope_project", "scope_all"), "scope"),
    **dict.fromkeys(("doc_summary", "doc_fact"), "documents"),
    "nowhere": "nowhere",
}


def sample(cases: list[Case], min_turns: int, seed: int = SEED) -> list[Case]:
    """A fixed, seeded subset with at least ``min_turns`` turns, stratified by the first turn's template,
    language and shape (whole rounds over the strata, so each is in it at least once): what tests/quality
    runs in make test."""
    strata: dict[tuple[str, str, bool], list[Case]] = {}
    for case in cases:
        strata.setdefault((case.turns[0].template, case.turns[0].lang, case.is_chain), []).append(case)
    rng = random.Random(seed)
    queues = [rng.sample(group, len(group)) for _, group in sorted(strata.items())]
    chosen: list[Case] = []
    turns = 0
    while turns < min_turns and any(queues):
        for queue in queues:
            if queue:
                chosen.append(queue.pop())
                turns += len(chosen[-1].turns)
    return chosen
