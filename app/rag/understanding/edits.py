"""From what a question says (reader.Said) to a TrackerQuery: on its own (``compose``), or as an edit of the
conversation's last query (``edit``: "and Ana's?", "¿y en pagos?", "only the critical ones", "how many of those
are critical?", "which of those is due first?", "what about the previous sprint?", "who holds most of them?").
Relative sprints are resolved here against the data's sprints, so a stored query names concrete sprints. Pure."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass

from app.rag import terms
from app.rag.understanding import glossary as g
from app.rag.understanding.lexicon import Lexicon, SprintFact
from app.rag.understanding.query import Predicate, TrackerQuery
from app.rag.understanding.said import Said
from app.rag.understanding.spans import Spans

DEFAULT_LIMIT = 500  # a list reads its first rows in order; the total is always counted in the database
# What a question may leave unsaid and still be read on its own: these fields alone do not make a question.
_VALUE_FIELDS = {"fix_version", "affects_version", "component", "label", "issue_type", "resolution", "status_name",
                 "priority_name", "reporter", "created", "updated", "resolved", "text"}


@dataclass(frozen=True)
class Composed:
    """A query, or what is missing to make one: ``ambiguous`` people sharing a name, or ``missing`` a project
    for a relative sprint ("the current sprint" of which project?)."""

    query: TrackerQuery | None
    ambiguous: tuple[tuple[int, str], ...] = ()  # (employee id, full name) of everyone a name matched
    missing: str | None = None


_WHICH = re.compile(r"^\W*(?:which|cuales|cual)\b")


def is_edit(said: Said) -> bool:
    """Whether a question edits the last one: it says so ("and …", "only …", "those") and changes something, or it
    names nothing but values ("Ana's?", "in review?")."""
    changes = bool(said.predicates or said.returns or said.order or said.relative_sprint or said.list_again)
    # "how many is that?", "¿cuántas son?", "how many are major?": the last question's figure, perhaps narrowed
    # "which one was created most recently?", "which is due soonest?": an order over the last question's records
    bare = not said.noun and not said.mine and not said.people and not said.fields & {"project", "sprint"}
    bare_figure = bare and (said.returns in ("count", "points") or said.order is not None)
    counted_that = said.it and bare and said.returns == "count" and not said.predicates  # "y eso cuántos son"
    if not changes or said.it and not counted_that:
        return False
    # "which did Maria file?", "¿cuáles están sin asignar?": which of the last question's records
    bare_which = not said.noun and not said.mine and not said.fields & {"project", "sprint"} and bool(
        said.predicates) and _WHICH.match(terms.fold(said.original)) is not None
    bare_group = bare and said.returns == "group"  # "¿de quién son la mayoría?": a ranking of the last records
    return said.edit or (said.fragment or bare_figure or bare_which or bare_group) and not said.unknown


# Fields whose value a follow-up may swap by naming only the value ("and i18n?" after "open tasks labelled docs").
_SWAPPABLE = ("label", "component", "fix_version", "affects_version", "issue_type", "status_name", "priority_name")


def with_last_fields(last: TrackerQuery, said: Said, lexicon: Lexicon) -> Said:
    """A follow-up read with the fields of the last question: "now task" after the open New Features is the type
    Task (alone, "task" is every issue); "and i18n?" after one label is that label's new value (_unseen_value)."""
    task_type = lexicon.stored("issue_type").get("task")
    if said.edit and said.noun and not said.predicates and last.first("issue_type") is not None \
            and task_type is not None and Spans(terms.fold(said.original)).says(("task", "tasks")):
        return dataclasses.replace(said, predicates=[Predicate("issue_type", (task_type,))],
                                   fields=said.fields | {"issue_type"})
    return _unseen_value(last, said)


def _unseen_value(last: TrackerQuery, said: Said) -> Said:
    """"and i18n?" after a question on one label: the words the reader did not know are that field's new value
    (one no visible task holds: the answer says nothing matches, as it would for a value that exists nowhere)."""
    fields = {p.field for p in last.where if p.field in _SWAPPABLE}
    if not said.edit or not said.unknown or len(said.unknown) > 3 or len(fields) != 1 or said.predicates \
            or said.returns or said.order or said.people:
        return said
    value = " ".join(said.unknown)
    name = fields.pop()
    return dataclasses.replace(said, predicates=[Predicate(name, (value,))], fields={name}, unknown=[])  # type: ignore[arg-type]


def uses_new_fields(said: Said) -> bool:
    """Whether the reading needs more than the first tracker reader could express (task_questions): a field of a
    real tracker, an order, a group-by of any field, a relative sprint."""
    return bool(said.fields & _VALUE_FIELDS or said.order or said.relative_sprint or (
        said.returns == "group" and said.group_by not in ("project", "sprint", "assignee", "status", "priority")))


def confident(said: Said) -> bool:
    """A question read whole: it asks about tasks and every word of it was understood."""
    return said.asks_tasks and not said.unknown and bool(said.predicates or said.returns or said.order
                                                         or said.relative_sprint)


def names_its_subject(said: Said) -> bool:
    """Whether a question says what it is about beyond a status or flag ("¿está acabada?" says only a state, which
    a record already said has), a project or an order ("what's the latest on the mobile app?" asks what the records
    say, not for its newest task): tasks, a person, a value of the data, a ranking, a relative sprint, or a state of
    tasks with a project, a figure or an order."""
    flags = {"open", "status", "overdue", "blocked", "priority", "due"}
    return bool(said.noun or said.people or said.mine or said.returns == "group" or said.relative_sprint
                or said.fields & _VALUE_FIELDS or said.fields & flags and (said.fields & {"project", "sprint"}
                                                                           or said.returns or said.order))


def compose(said: Said, lexicon: Lexicon, scope_project: int | None = None) -> Composed:
    ambiguous = _ambiguous(said)
    if ambiguous:
        return Composed(None, ambiguous)
    query = TrackerQuery(where=tuple(said.predicates))
    assignee = query.first("assignee")
    if assignee is not None and assignee.values == (None,) and not {p.field for p in query.where} & _STATES:
        # nobody on it: work waiting, not finished work
        query = query.with_predicate(Predicate("open", (True,)))
    if said.relative_sprint is not None:
        project = _project_of(query, lexicon) or scope_project
        sprint = relative_sprint(lexicon, said.relative_sprint, project, None)
        if sprint is None:
            return Composed(None, missing="project")
        query = query.without("project").with_predicate(Predicate("sprint", (sprint.sprint_id,)))
    return Composed(_returns(query, said, lexicon))


def edit(last: TrackerQuery, said: Said, lexicon: Lexicon) -> Composed:
    """The last query with what the follow-up says in place of the same parts; the rest kept."""
    ambiguous = _ambiguous(said)
    if ambiguous:
        return Composed(None, ambiguous)
    query = last
    named_project = any(p.field == "project" for p in said.predicates)
    if named_project and last.first("sprint") is not None:
        query = query.without("sprint")  # another project's sprint cannot stay
    for predicate in said.predicates:
        query = query.with_predicate(_as_last_version(predicate, last, said))
    if said.relative_sprint is not None:
        base = last.first("sprint")
        base_sprint = lexicon.sprint(base.values[0]) if base is not None and base.values else None
        project = (base_sprint.project_id if base_sprint else None) or _project_of(query, lexicon)
        sprint = relative_sprint(lexicon, said.relative_sprint, project, base_sprint)
        if sprint is None:
            return Composed(None, missing="project")
        query = query.with_predicate(Predicate("sprint", (sprint.sprint_id,)))
    if said.returns or said.order or said.list_again:
        query = _returns(dataclasses.replace(query, returns="list", order="id", descending=False, limit=20,
                                             group_by=None, measure="count", ascending=False, record_field=None),
                         said, lexicon)
    return Composed(query)


_VERSIONS = ("fix_version", "affects_version")
_STATES = {"open", "status", "status_name", "resolution", "resolved", "overdue"}


def _as_last_version(predicate: Predicate, last: TrackerQuery, said: Said) -> Predicate:
    """"same for 2.8.1" after the issues fixed in 2.9.0: a version said without its field word swaps the last
    question's version, whichever field more tasks hold it in."""
    if predicate.field not in _VERSIONS or last.first(predicate.field) is not None:
        return predicate
    other = _VERSIONS[1 - _VERSIONS.index(predicate.field)]
    if last.first(other) is None or Spans(terms.fold(said.original)).says(g.FIELD_WORDS[predicate.field]):
        return predicate
    return Predicate(other, predicate.values)


# A ranking by status or priority is by the tracker's own names where the data holds them (Jira's "Open",
# "Closed", "Major"), by ours otherwise.
_OWN_NAMES = {"status": "status_name", "priority": "priority_name"}


def _returns(query: TrackerQuery, said: Said, lexicon: Lexicon) -> TrackerQuery:
    if said.returns == "group" and said.group_by:
        group_by = said.group_by
        if group_by in _OWN_NAMES and lexicon.values.get(_OWN_NAMES[group_by]):
            group_by = _OWN_NAMES[group_by]
        return dataclasses.replace(query, returns="group", group_by=group_by, ascending=said.ascending,
                                   measure="points" if said.measure_points else "count")
    if said.returns in ("count", "points"):
        return dataclasses.replace(query, returns=said.returns)
    if said.order is not None:
        order, descending = said.order
        if order in ("priority", "due") and not {"open", "status", "status_name", "resolution"} & {
                p.field for p in query.where}:  # the most urgent, the next due: of the work not finished
            query = query.with_predicate(Predicate("open", (True,)))
        return dataclasses.replace(query, returns="list", order=order, descending=descending,
                                   limit=said.limit or 1)
    return dataclasses.replace(query, returns="list", limit=DEFAULT_LIMIT)


def _ambiguous(said: Said) -> tuple[tuple[int, str], ...]:
    for people in said.people:
        if len(people) > 1:
            return tuple((p.employee_id, p.name) for p in people)
    return ()


def _project_of(query: TrackerQuery, lexicon: Lexicon) -> int | None:
    project = query.first("project")
    if project is not None and len(project.values) == 1 and project.values[0] is not None:
        return project.values[0]
    sprint = query.first("sprint")
    if sprint is not None and len(sprint.values) == 1:
        fact = lexicon.sprint(sprint.values[0])
        return fact.project_id if fact else None
    return None


def relative_sprint(lexicon: Lexicon, which: str, project_id: int | None, base: SprintFact | None = None,
              today: dt.date | None = None) -> SprintFact | None:
    """The current (active) sprint of a project, or the one before / after ``base`` (the current one when no base
    is given), by start date then id."""
    if project_id is None:
        return None
    sprints = sorted((s for s in lexicon.sprints if s.project_id == project_id),
                     key=lambda s: (s.start_date or dt.date.min, s.sprint_id))
    if not sprints:
        return None
    active = [s for s in sprints if (s.status or "").upper() == "ACTIVE"]
    current = active[-1] if active else _latest_started(sprints, today)
    if which == "current":
        return current
    anchor = base or current
    if anchor is None:
        return sprints[-1] if which == "previous" else None
    at = sprints.index(anchor) if anchor in sprints else None
    if at is None:
        return None
    if which == "previous":
        return sprints[at - 1] if at > 0 else None
    return sprints[at + 1] if at + 1 < len(sprints) else None


def _latest_started(sprints: list[SprintFact], today: dt.date | None) -> SprintFact | None:
    day = today or dt.date.today()
    started = [s for s in sprints if s.start_date is not None and s.start_date <= day]
    return started[-1] if started else None
