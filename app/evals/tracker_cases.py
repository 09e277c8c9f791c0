"""The tracker benchmark's questions over the Jira-shaped export: every template of section A and every chain
of section B (/work/briefs/templates.md), tuned (tracker_phrasings.py) and held-out
(tracker_phrasings_heldout.json, when present) phrasings, English and Spanish, asked by a manager and two
developers. Pure: the same export gives the same cases.

Slot values come from the raw export: mostly from issues the asker can see (so a developer's question has an
answer), sometimes from any issue (so the access rule is tested too). Each turn knows its template (or chain
and step), slots, language, part and kind; its truth is app/evals/jira_truth.py's.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.evals import jira_truth as jt
from app.evals import tracker_phrasings
from app.evals.conversation_truth import fold

SEED = 31
HELDOUT = Path(__file__).with_name("tracker_phrasings_heldout.json")
PARTS = ("tuned", "heldout")
COMBOS = {("tuned", "en"): 4, ("tuned", "es"): 2, ("heldout", "en"): 1, ("heldout", "es"): 1}  # per phrasing
CHAIN_COMBOS = {"tuned": 2, "heldout": 1}  # per chain variant
KIND = {  # the answer each template asks for (templates.md)
    "t_open_version": "list", "t_count_open_version": "count", "t_open_component": "list", "t_label": "list",
    "t_count_label": "count", "t_unresolved_type": "count", "t_most_open_type": "winner", "t_top_reporter": "winner",
    "t_reporter_of": "field", "t_created_of": "field", "t_resolution": "count", "t_person_open": "count",
    "t_created_window": "count", "t_resolved_window": "count", "t_affects": "list", "t_unassigned_open": "count",
    "t_depends": "list", "t_status_project": "count", "t_per_component": "winner", "t_priority_type": "count",
    "t_sprint_open": "list", "t_my_open": "list", "t_my_most_urgent": "record",
}
CHAIN_KINDS = {
    "e_person_status": ("list", "list", "count"), "e_person_work": ("list", "list", "record"),
    "e_sprint": ("list", "list", "winner"), "e_project_overdue": ("list", "list", "winner"),
    "e_urgent": ("record", "field"), "e_component": ("list", "list", "count"), "e_version": ("list", "list", "list"),
    "e_label_count": ("count", "count", "list"), "e_status_count": ("count", "count", "list"),
    "e_type_switch": ("list", "list", "record"),
}
WINDOWS = {"en": {"last_week": "last week", "last_month": "last month", "this_year": "this year"},
           "es": {"last_week": "la semana pasada", "last_month": "el mes pasado", "this_year": "este año"}}
REPORTER_WORDS = re.compile(r"\b(?:who|quien)\b")  # e_urgent's second turn asks who reported it, else when it is due
SHARED_FIRSTS = ("Maria", "Chris", "Alex", "Sam")


@dataclass(frozen=True)
class Turn:
    text: str
    lang: str
    part: str  # tuned | heldout
    template: str  # a section A template, or the chain's id
    step: int  # 0 for a single question; the turn's index in its chain
    kind: str  # list | count | winner | field | record
    slots: tuple[tuple[str, Any], ...]  # a chain turn: every slot of the chain

    @property
    def slot(self) -> dict[str, Any]:
        return dict(self.slots)


@dataclass(frozen=True)
class Case:
    cid: str
    asker: str  # the person id (accountId) in the export
    turns: tuple[Turn, ...]
    chain: str | None = None

    @property
    def is_chain(self) -> bool:
        return self.chain is not None


def load_heldout(path: Path = HELDOUT) -> dict[str, Any]:
    """The held-out phrasings ({"single": …, "chains": …}), or none when the file is not there yet."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"single": {}, "chains": {}}


def askers(tr: jt.Tracker) -> tuple[str, str, str]:
    """(the manager, developer 1, developer 2): the 4th, 1st and 7th busiest assignees of the export."""
    busy = [who for who, _ in Counter(jt.person_id(i["fields"].get("assignee")) for i in tr.issues
                                      if i["fields"].get("assignee")).most_common()]
    return busy[3], busy[0], busy[6]


def build(tr: jt.Tracker, heldout: Mapping[str, Any] | None = None) -> list[Case]:
    """Every case: the singles of section A, then the chains of section B."""
    heldout = load_heldout() if heldout is None else heldout
    rng = random.Random(SEED)
    manager, dev1, dev2 = askers(tr)
    rotation = (manager, manager, dev1, dev2)
    picker = _Picker(tr, rng)
    cases: list[Case] = []
    for template in KIND:
        for part, source in (("tuned", tracker_phrasings.SINGLE), ("heldout", heldout.get("single", {}))):
            for lang in ("en", "es"):
                for phrasing in source.get(template, {}).get(lang, ()):
                    for _ in range(COMBOS[(part, lang)]):
                        asker = rotation[len(cases) % len(rotation)]
                        slots = picker.single(template, asker)
                        turn = Turn(render(phrasing, slots, lang, rng), lang, part, template, 0, KIND[template],
                                    tuple(sorted(slots.items())))
                        cases.append(Case(f"{template}-{len(cases)}", asker, (turn,)))
    chain_rotation = (manager, dev1, manager, dev2)
    for chain in CHAIN_KINDS:
        for part, source in (("tuned", tracker_phrasings.CHAINS), ("heldout", heldout.get("chains", {}))):
            for lang in ("en", "es"):
                for variant in source.get(chain, {}).get(lang, ()):
                    for _ in range(CHAIN_COMBOS[part]):
                        asker = chain_rotation[len(cases) % len(chain_rotation)]
                        cases.append(_chain_case(tr, picker, rng, chain, part, lang, variant, asker, len(cases)))
    return cases


def _chain_case(tr: jt.Tracker, picker: _Picker, rng: random.Random, chain: str, part: str, lang: str,
                variant: Sequence[str], asker: str, n: int) -> Case:
    slots = picker.chain(chain, asker)
    if chain == "e_urgent":
        slots["field"] = "reporter" if REPORTER_WORDS.search(fold(variant[1])) else "due"
    turns = tuple(Turn(render(text, slots, lang, rng), lang, part, chain, step, CHAIN_KINDS[chain][step],
                       tuple(sorted(slots.items()))) for step, text in enumerate(variant))
    return Case(f"{chain}-{n}", asker, turns, chain)


def truth_of(tr: jt.Tracker, asker: str, turn: Turn):
    """The turn's truth (app/evals/jira_truth.py)."""
    if turn.template in CHAIN_KINDS:
        return jt.chain(tr, asker, turn.template, turn.step, turn.slot)
    return jt.single(tr, asker, turn.template, turn.slot)


def render(phrasing: str, slots: Mapping[str, Any], lang: str, rng: random.Random) -> str:
    """The phrasing with each {slot} written as a person would: versions, components, labels, sprints,
    statuses, resolutions and keys as the tracker names them; types and priorities in lower case; a project
    by its key or its name; a person by the first name when nobody else has it, else the full name."""
    text = phrasing
    for name in re.findall(r"\{([a-z0-9_]+)\}", phrasing):
        text = text.replace("{" + name + "}", _say(name, slots[name], lang, rng, slots), 1)
    return text


def _say(name: str, value: Any, lang: str, rng: random.Random, slots: Mapping[str, Any]) -> str:
    if name in ("type", "type2", "priority"):
        return str(value).lower()
    if name in ("project", "project2"):
        return str(value) if rng.random() < 0.5 else str(slots.get(f"{name}_name", value))
    if name == "window":
        return WINDOWS[lang][value]
    if name in ("person", "person2"):
        return str(slots[f"{name}_say"])
    return str(value)


class _Picker:
    """Slot values for one question, read from the raw export."""

    def __init__(self, tr: jt.Tracker, rng: random.Random) -> None:
        self.tr, self.rng = tr, rng
        self.projects = sorted({jt.project_of(i) for i in tr.issues})
        self.project_names = {jt.project_of(i): i["fields"]["project"]["name"] for i in tr.issues}

    def pool(self, asker: str, where=lambda i: True) -> list[jt.Issue]:
        """Issues to draw values from: mostly the asker's visible ones, one time in five any issue."""
        rows = [i for i in self.tr.visible(asker) if where(i)] if self.rng.random() < 0.8 else []
        return rows or [i for i in self.tr.issues if where(i)]

    def one(self, asker: str, where=lambda i: True) -> jt.Issue:
        return self.rng.choice(self.pool(asker, where))

    def project(self, slots: dict, key: str, name: str = "project") -> None:
        slots[name], slots[f"{name}_name"] = key, self.project_names[key]

    def person(self, slots: dict, who: str, name: str = "person") -> None:
        full = self.tr.name(who)
        slots[name] = who
        slots[f"{name}_say"] = full.split()[0] if len(self.tr.sharing(full.split()[0])) == 1 else full

    def single(self, template: str, asker: str) -> dict[str, Any]:  # noqa: C901 (one branch per template)
        rng, slots = self.rng, {}
        opened = lambda i: jt.is_open(i)  # noqa: E731
        if template in ("t_open_version", "t_count_open_version"):
            slots["version"] = rng.choice(jt.names(self.one(asker, lambda i: opened(i) and jt.names(i, "fixVersions")),
                                                   "fixVersions"))
        elif template == "t_affects":
            slots["version"] = rng.choice(jt.names(self.one(asker, lambda i: jt.names(i, "versions")), "versions"))
        elif template == "t_open_component":
            slots["component"] = rng.choice(jt.names(self.one(asker, lambda i: opened(i) and jt.names(i, "components")),
                                                     "components"))
        elif template in ("t_label", "t_count_label"):
            issue = self.one(asker, lambda i: jt.labels(i) and (opened(i) or template == "t_count_label"))
            slots["label"] = rng.choice(jt.labels(issue))
        elif template in ("t_unresolved_type", "t_most_open_type", "t_priority_type"):
            issue = self.one(asker, opened)
            slots["type"] = jt.type_name(issue)
            if template == "t_unresolved_type":
                self.project(slots, jt.project_of(issue))
            if template == "t_priority_type":
                slots["priority"] = jt.priority(issue)
        elif template in ("t_reporter_of", "t_created_of"):
            slots["key"] = self.one(asker)["key"]
        elif template == "t_depends":
            seen = lambda i: any(self.tr.sees(asker, t) for t in map(self.tr.by_key, jt.blockers(i)) if t)  # noqa: E731
            slots["key"] = self.one(asker, seen)["key"] if any(map(seen, self.tr.visible(asker))) else \
                self.one(asker, jt.blockers)["key"]
        elif template == "t_resolution":
            issue = self.one(asker, lambda i: jt.resolution(i) not in (None, "Fixed", "Done"))
            self.project(slots, jt.project_of(issue))
            slots["resolution"] = jt.resolution(issue)
        elif template == "t_person_open":
            if rng.random() < 0.2:
                slots["first"] = rng.choice(SHARED_FIRSTS)
            else:
                slots["first"] = self.tr.name(jt.person_id(self.one(asker, lambda i: i["fields"].get("assignee"))
                                                           ["fields"]["assignee"])).split()[0]
        elif template == "t_status_project":
            issue = self.one(asker)
            self.project(slots, jt.project_of(issue))
            slots["status"] = jt.status_name(issue)
        elif template == "t_sprint_open":
            issue = self.one(asker, lambda i: opened(i) and any(s["state"] != "closed" for s in jt.sprints(i)))
            slots["sprint"] = next(s["name"] for s in jt.sprints(issue) if s["state"] != "closed")
        elif template in ("t_created_window", "t_top_reporter", "t_unassigned_open", "t_per_component"):
            self.project(slots, jt.project_of(self.one(asker)))
        if template in ("t_created_window", "t_resolved_window"):
            slots["window"] = rng.choice(("last_week", "last_month", "this_year"))
        return slots

    def chain(self, chain: str, asker: str) -> dict[str, Any]:
        rng, slots, tr = self.rng, {}, self.tr
        assignee = lambda i: jt.person_id(i["fields"].get("assignee"))  # noqa: E731
        if chain == "e_person_status":
            issue = self.one(asker, assignee)
            self.person(slots, assignee(issue))
            slots["status"] = jt.status_name(issue)
            other = self.one(asker, lambda i: assignee(i) not in (None, slots["person"])
                             and jt.status_name(i) == slots["status"])
            self.person(slots, assignee(other), "person2")
            slots["priority"] = jt.priority(other)
        elif chain == "e_person_work":
            issue = self.one(asker, lambda i: assignee(i) and jt.is_open(i))
            self.person(slots, assignee(issue))
            slots["status"] = jt.status_name(issue)
        elif chain == "e_sprint":
            issue = self.one(asker, lambda i: jt.is_open(i) and any(s["state"] == "active" for s in jt.sprints(i)))
            slots["sprint"] = next(s["name"] for s in jt.sprints(issue) if s["state"] == "active")
        elif chain in ("e_project_overdue", "e_status_count"):
            first, second = rng.sample(self.projects, 2)
            self.project(slots, first)
            self.project(slots, second, "project2")
            if chain == "e_status_count":
                slots["status"] = jt.status_name(self.one(asker, lambda i: jt.project_of(i) == second))
        elif chain == "e_component":
            issue = self.one(asker, lambda i: jt.is_open(i) and jt.names(i, "components"))
            slots.update(type=jt.type_name(issue), component=jt.names(issue, "components")[0],
                         priority=jt.priority(issue))
        elif chain == "e_version":
            issue = self.one(asker, lambda i: not jt.is_open(i) and jt.names(i, "fixVersions"))
            slots["version2"] = jt.names(issue, "fixVersions")[-1]
            project = [i for i in tr.issues if jt.project_of(i) == jt.project_of(issue)]
            others = sorted({v for i in project for v in jt.names(i, "fixVersions") if not jt.is_open(i)}
                            - {slots["version2"]})
            slots["version"] = rng.choice(others)
            self.person(slots, jt.person_id(issue["fields"]["reporter"]))
        elif chain == "e_label_count":
            first = rng.choice(jt.labels(self.one(asker, lambda i: jt.is_open(i) and jt.labels(i))))
            issue = self.one(asker, lambda i: jt.is_open(i) and set(jt.labels(i)) - {first})
            slots.update(label=first, label2=rng.choice(sorted(set(jt.labels(issue)) - {first})))
        elif chain == "e_type_switch":
            mine = [jt.type_name(i) for i in tr.issues if assignee(i) == asker and jt.is_open(i)]
            first, second = rng.sample(sorted(set(mine)) if len(set(mine)) > 1 else ["Bug", "Improvement"], 2)
            slots.update(type=first, type2=second)
        return slots
