"""The words a question may use, read from the tracker's own data (issue 31: "the words come from the data").
Pure: no I/O.

A ``Lexicon`` is built from what the engine read (``Engine.tracker_values``: the distinct values of every field the
asker's visible tasks hold, the projects, sprints and people), never from lists of the demo's values. ``find``
returns every place a folded question names a value: a version "2.0.0", a component "Web UI", a label
"needs-triage", an issue type "Bug" (also said "bugs"), a resolution "Won't Fix", a status name "Patch Available",
a project by name or key, a sprint by name, a person by full name, first name, last name or login.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from app.rag import bilingual, terms
from app.rag.understanding.vocabulary import PersonName, ProjectName, SprintName, TrackerValues

# Fields whose values are read from the data, in the order a value said alone is given to (a word that is both
# a component and a label is the component's unless a field word says otherwise).
VALUE_FIELDS = ("fix_version", "affects_version", "component", "label", "issue_type", "resolution", "status_name",
                "priority_name")
# Generic nouns that are also issue types ("open tasks" is every open issue, not those of the type Task).
_GENERIC_TYPES = frozenset({"task", "issue", "ticket", "item"})
MIN_VALUE_CHARS = 2


# The data's sprints, projects and people, as Engine.tracker_values reads them.
SprintFact = SprintName
ProjectFact = ProjectName
PersonFact = PersonName


@dataclass(frozen=True)
class Mention:
    """A value the question names: ``field`` (a VALUE_FIELDS name, "project", "sprint" or "person"), the value
    (an id, or the stored text), the span in the folded question, and how it was said."""

    field: str
    value: object
    span: tuple[int, int]
    said: str


@dataclass(frozen=True)
class Lexicon:
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # VALUE_FIELDS -> stored values
    counts: Mapping[tuple[str, str], int] = field(default_factory=dict)  # (field, value) -> tasks holding it
    projects: tuple[ProjectFact, ...] = ()
    sprints: tuple[SprintFact, ...] = ()
    people: tuple[PersonFact, ...] = ()

    def project(self, project_id: object) -> ProjectFact | None:
        return next((p for p in self.projects if p.project_id == project_id), None)

    def sprint(self, sprint_id: object) -> SprintFact | None:
        return next((s for s in self.sprints if s.sprint_id == sprint_id), None)

    def person(self, employee_id: object) -> PersonFact | None:
        return next((p for p in self.people if p.employee_id == employee_id), None)

    def stored(self, name: str) -> dict[str, str]:
        """The field's values the data holds, by how they are said folded ("task" -> "Task")."""
        return {terms.fold(v): v for v in self.values.get(name, ())}


def from_values(found: TrackerValues) -> Lexicon:
    """The lexicon of what the engine read for one asker."""
    counts = {(name, value): n for name, values in found.counts.items() for value, n in values.items()}
    return build(found.values, found.projects, found.sprints, found.people, counts)


def build(values: Mapping[str, Iterable[str]] | None = None, projects: Sequence[ProjectFact] = (),
          sprints: Sequence[SprintFact] = (), people: Sequence[PersonFact] = (),
          counts: Mapping[tuple[str, str], int] | None = None) -> Lexicon:
    kept = {name: tuple(sorted({v for v in (values or {}).get(name, ()) if v and len(v) >= MIN_VALUE_CHARS}))
            for name in VALUE_FIELDS}
    return Lexicon(kept, dict(counts or {}), tuple(projects), tuple(sprints), tuple(people))


# --- finding values in a question -----------------------------------------------------------------------

def value_mentions(text: str, lexicon: Lexicon) -> list[Mention]:
    """Every field value the folded question names, longest first, each span once (a value may be named by
    several fields: all are returned, the reader picks by the field words around it)."""
    present = _tokens(text)
    found: list[Mention] = []
    for name in VALUE_FIELDS:
        for value in lexicon.values.get(name, ()):
            for said in _forms(name, value):
                if not _words_of(said) <= present:
                    continue
                for match in re.finditer(_pattern(said), text):
                    found.append(Mention(name, value, match.span(), said))
    return sorted(found, key=lambda m: (-(m.span[1] - m.span[0]), m.span[0], VALUE_FIELDS.index(m.field)))


def project_mentions(text: str, lexicon: Lexicon) -> list[Mention]:
    """Projects named by their whole name or their key ("HDFS-1234" is a key, not the project: refs reads it),
    else by a word of its name no other project's name has, or that word's twin in the other language
    (app/rag/bilingual.py: "pagos" names Payments Platform)."""
    present = _tokens(text)
    found = []
    for project in lexicon.projects:
        for said in {terms.fold(project.name), *([terms.fold(project.external_key)] if project.external_key else [])}:
            if len(said) >= MIN_VALUE_CHARS and _words_of(said) <= present:
                for match in re.finditer(_pattern(said) + r"(?!-\d)", text):
                    found.append(Mention("project", project.project_id, match.span(), said))
    return found or _by_distinct_word(text, lexicon)


def _by_distinct_word(text: str, lexicon: Lexicon) -> list[Mention]:
    owners: dict[str, set[int]] = {}
    for project in lexicon.projects:
        for word in _words_of(terms.fold(project.name)):
            if len(word) >= 4 and word not in terms.STOP:
                owners.setdefault(terms.stem(word), set()).add(project.project_id)
    found = []
    for match in re.finditer(r"[^\W_]+", text):
        word = match.group()
        if len(word) < 4 or word in terms.STOP:
            continue
        hits = {pid for stem in bilingual.widen({terms.stem(word)}) for pid in owners.get(stem, ())}
        if len(hits) == 1:
            found.append(Mention("project", hits.pop(), match.span(), word))
    return found


def sprint_mentions(text: str, lexicon: Lexicon) -> list[Mention]:
    present = _tokens(text)
    found = []
    for sprint in lexicon.sprints:
        said = terms.fold(sprint.name)
        if len(said) >= MIN_VALUE_CHARS and _words_of(said) <= present:
            for match in re.finditer(_pattern(said), text):
                found.append(Mention("sprint", sprint.sprint_id, match.span(), said))
    return found


def person_mentions(text: str, lexicon: Lexicon) -> list[Mention]:
    """People by full name, then (when no full name matched) by the first word of their first name, their last
    name or their login; "Ben's" and "bens" as a chat types them. Several people sharing a name are all returned."""
    present = _tokens(text)
    present |= {t[:-1] for t in present if len(t) > 2 and t.endswith("s")}
    for full in (True, False):
        found = []
        for person in lexicon.people:
            for said in (_full_names(person) if full else _short_names(person)):
                if len(said) < MIN_VALUE_CHARS or said in terms.STOP or not _words_of(said) <= present:
                    continue
                for match in re.finditer(_pattern(said, possessive=True), text):
                    found.append(Mention("person", person.employee_id, match.span(), said))
        if found:
            return found
    return []


def _full_names(person: PersonFact) -> set[str]:
    parts = [terms.fold(p) for p in (person.first_name, person.last_name) if p]
    return {" ".join(parts)} if len(parts) == 2 else set()


def _short_names(person: PersonFact) -> set[str]:
    names = set()
    if person.first_name:
        first = terms.fold(person.first_name)
        names |= {first, first.split()[0]}
    if person.last_name:
        names.add(terms.fold(person.last_name))
    if person.external_id and not person.external_id.isdigit() and ":" not in person.external_id:
        names.add(terms.fold(person.external_id))  # a login ("mjgarcia"), not an opaque account id
    return names


@functools.lru_cache(maxsize=1 << 14)
def _forms(name: str, value: str) -> tuple[str, ...]:
    """How a value may be said: as stored (folded), and an issue type also in the plural ("bugs", "stories")."""
    folded = terms.fold(value)
    if name != "issue_type":
        return (folded,)
    if folded in _GENERIC_TYPES:  # "task" is every issue, unless said as the type: "task issues", "type Task"
        return tuple(f"{folded} {noun}" for noun in ("issues", "tickets", "items", "issue", "ticket")) + tuple(
            f"{noun} {folded}" for noun in ("incidencias", "incidencia", "tickets", "ticket", "issues", "issue")) + (
            f"type {folded}", f"tipo {folded}", f"de tipo {folded}")
    plural = folded[:-1] + "ies" if folded.endswith("y") else folded + ("es" if folded.endswith("s") else "s")
    return tuple(dict.fromkeys((folded, plural, folded + "s")))  # "storys" as people type it


@functools.lru_cache(maxsize=1 << 14)
def _pattern(said: str, possessive: bool = False) -> str:
    tail = r"(?:['\u2019]?s)?" if possessive else ""
    # a version "2.0" is not the start of "2.0.1", nor a word the start of a longer one
    return rf"(?<![\w.-]){re.escape(said)}{tail}(?![\w-]|\.\w)"


def _tokens(folded: str) -> frozenset[str]:
    return frozenset(re.findall(r"[^\W_]+", folded))


@functools.lru_cache(maxsize=1 << 14)
def _words_of(said: str) -> frozenset[str]:
    return _tokens(said)
