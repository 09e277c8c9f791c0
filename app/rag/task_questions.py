"""What people ask a tracker, parsed without an LLM (English and Spanish). Pure: no I/O.

"which of my tasks are still in progress?", "which tasks are overdue in sprint 3?", "which critical
tasks are unassigned?", "how many story points are left in Payments Sprint 2?", "what is Chen working
on?", "¿cuántas tareas críticas hay sin asignar?" become a ``TaskQuestion``: the filters of the
engines' ``find_tasks`` query (the same access rule as every search) plus what to do with the rows
(list them, count them, add up their story points).

The parser is deliberately strict: every word of the question must be understood (a filter, a name,
a phrase about tasks, or a stop word). A question with anything else in it ("which tasks are about
the refund flow?") is not a tracker question and goes to retrieval, which reads the text.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field
from typing import Literal

from app.domain import MAX_FIND_TASKS, Named, Person, TaskQuery, Vocabulary
from app.rag import refs, terms

Aggregate = Literal["list", "count", "points"]


@dataclass(frozen=True)
class TaskQuestion:
    lang: str  # "en" | "es": the language to answer in
    aggregate: Aggregate = "list"
    mine: bool = False
    people: tuple[Person, ...] = ()  # one: that person's tasks; several: the name is ambiguous
    status: str | None = None
    open_only: bool = False
    priority: str | None = None
    overdue: bool = False
    unassigned: bool = False
    due: tuple[dt.date | None, dt.date] | None = None  # due on or after [0] (None: any day) and before [1]
    due_label: str | None = None  # "this week", "esta semana", ...
    sprint: Named | None = None
    project: Named | None = None
    words: tuple[str, ...] = field(default=(), compare=False)  # what was recognised, for tests and logs


from app.rag.understanding.spans import blanked
from app.rag.understanding.phrases import (  # noqa: F401 (the first reader's tables, read through it too)
    STATUS_PHRASES, DONE_SAID, OPEN_NEGATED, NEGATIONS, NOT_MINE, FIRST_PERSON, MY_WORDS, I_HOLD, FOR_ME_ASKED, TO_DO_VERBS, POINTS_TO_DO,
    OPEN_PHRASES, PRIORITY_PHRASES, OVERDUE_PHRASES, OVERDUE_SAID, UNASSIGNED_PHRASES, MINE_PHRASES,
    COUNT_PHRASES, POINTS_PHRASES, TASK_NOUNS, PERSON_MARKERS, HOLDING, FILLER, IDIOMS, DUE_PHRASES, WEEKDAYS,
    DAY_NAMES, WEEKDAY_LABELS, BY_MARKERS, WEEKDAY, SPANISH_LABELS)


def parse(question: str, vocabulary: Vocabulary, today: dt.date) -> TaskQuestion | None:
    """The tracker question this is, or None (then it is a question for retrieval)."""
    reading = _read(question, vocabulary)
    if reading is None or _leftover(reading.text, reading.taken):
        return None
    found = reading.found
    # "what does Emma have in review?", "what do I have due next week?": someone's tasks, though no noun says so.
    # "how many in review in Payments?", "¿cuántas hay en revisión?": a count of a status counts tasks.
    # "¿qué me vence mañana?": the asker's own, said by a pronoun only.
    asks_about_tasks = any(k in found for k in ("noun", "points", "overdue", "unassigned")) or (
        (reading.people or "mine" in found or says_i(reading.text)) and any(k in found for k in ("open", "status", "due"))) or (
        "count" in found and "status" in found) or bool(reading.people and "holding" in found)
    filters = [reading.sprint, reading.project, *(found.get(k) for k in (
        "status", "priority", "overdue", "unassigned", "due", "mine", "open", "count", "points")), reading.people]
    if not asks_about_tasks or not any(filters):
        return None
    if not reading.people and "unassigned" not in found and says_i(reading.text):
        found["mine"] = True  # "what have I missed the deadline on?", "¿qué se me ha pasado de fecha?"
    return _question(reading, today, "points" if "points" in found else "count" if "count" in found else "list")


def slots(question: str, vocabulary: Vocabulary, today: dt.date, aggregate: Aggregate = "list",
          default_open: bool = True, default_mine: bool = True, max_unknown: int | None = None) -> TaskQuestion | None:
    """The filters a question names, whatever else it says: for a question whose kind is already known
    by its meaning (app/rag/intents.py: "what's on my plate?" is someone's work). Nobody named, beside "I",
    "me", "my" or a Spanish first person, means the asker (``default_mine``); no status named means work not finished (``default_open``). None when it names a task or
    document by id, says "not mine" (no filter expresses that), or has more than ``max_unknown`` words no filter
    explains ("how do I book a meeting room for Friday?" is near "my work" in meaning, but is about a room)."""
    reading = _read(question, vocabulary)
    unknown = _unknown(reading.text, reading.taken) if reading is not None else []
    if reading is None or max_unknown is not None and len(unknown) > max_unknown:
        return None
    if NEGATIONS & set(unknown):  # "which tasks are not in progress?": dropping the "not" answers the opposite
        return None
    found = reading.found
    if "points" in found:
        aggregate = "points"
    elif "count" in found and aggregate == "list":
        aggregate = "count"
    if default_mine and not reading.people and not found.get("unassigned") and not (reading.sprint or reading.project) \
            and says_i(reading.text):
        found["mine"] = True
    # A window of days ("due next week", "due on Friday") lists what falls in it, finished or not, as parse
    # does; "before Friday" has no first day, and would list every finished task of the past.
    due = found.get("due")
    bounded = due is not None and (due[0] != "weekday" or due[2] == "on")  # type: ignore[index]
    if default_open and "status" not in found and not bounded:
        found["open"] = True
    return _question(reading, today, aggregate)


@dataclass
class _Reading:
    text: str
    lang: str
    taken: list[tuple[int, int]]
    found: dict[str, object]
    people: list[Person]
    sprint: Named | None
    project: Named | None


def _places(text: str, vocabulary: Vocabulary,
            taken: list[tuple[int, int]]) -> tuple[Named | None, Named | None] | None:
    """(sprint, project) the question names by name or id; None when it asks for a task or document by id."""
    sprint, project = _named(text, vocabulary, taken)
    ids = refs.mentions(text, masked=taken)
    if any(source_type in ("task", "doc") for source_type, _ in ids):
        return None
    taken.extend(refs.mention_spans(text, masked=taken))
    for source_type, source_id in ids:
        if source_type == "sprint":
            sprint = sprint or _by_id(vocabulary.sprints, source_id) or Named(source_id, f"sprint {source_id}")
        elif source_type == "project":
            project = project or _by_id(vocabulary.projects, source_id) or Named(source_id, f"project {source_id}")
    return sprint, project


def _read(question: str, vocabulary: Vocabulary) -> _Reading | None:
    """Every filter the question names, and where (None: a task or document asked by id, or "not mine")."""
    text = terms.fold(question)
    lang = terms.language(question)
    taken: list[tuple[int, int]] = []  # spans of the folded text already understood
    found: dict[str, object] = {}

    def take(phrases, key: str, value=True) -> None:
        for phrase in sorted(phrases, key=len, reverse=True):
            for match in re.finditer(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text):
                if _free(taken, match.span()):
                    taken.append(match.span())
                    if key:
                        found.setdefault(key, value if not isinstance(phrases, dict) else phrases[phrase])

    named = _places(text, vocabulary, taken)
    if named is None:
        return None  # an entity asked by its id is a lookup, not a list
    sprint, project = named
    take(NOT_MINE, "not_mine")
    if "not_mine" in found:
        return None  # other people's tasks and unassigned ones: no filter says that
    take(TO_DO_VERBS, "open")  # "what do I need to do?" asks for open work, not the TODO status
    for match in POINTS_TO_DO.finditer(text):
        if _free(taken, match.span("todo")):
            taken.append(match.span("todo"))
            found.setdefault("open", True)
    take(OPEN_NEGATED, "open")
    for match in OVERDUE_SAID.finditer(text):
        if _free(taken, match.span()):
            taken.append(match.span())
            found.setdefault("overdue", True)
    take(COUNT_PHRASES, "count")
    take(POINTS_PHRASES, "points")
    take(UNASSIGNED_PHRASES, "unassigned")
    take(OVERDUE_PHRASES, "overdue")
    for match in DONE_SAID.finditer(text):
        span = match.span("verb") if match.group("verb") else match.span("wrap")
        if _free(taken, span):
            taken.append(span)
            found.setdefault("status", "DONE")
    # Spanish "todo" is "everything" ("todo lo que tiene Chen"), not the English status.
    take({k: v for k, v in STATUS_PHRASES.items() if k != "todo" or lang != "es"}, "status")
    take(PRIORITY_PHRASES, "priority")
    take_weekday(text, taken, found)
    take(DUE_PHRASES, "due")
    take(MINE_PHRASES, "mine")
    people = _people(text, vocabulary, taken)
    take(OPEN_PHRASES, "open")
    take(TASK_NOUNS, "noun")
    if people:
        take(HOLDING, "holding")
    take(PERSON_MARKERS, "")
    take(IDIOMS, "")
    return _Reading(text, lang, taken, found, people, sprint, project)


def _question(reading: _Reading, today: dt.date, aggregate: Aggregate) -> TaskQuestion:
    found, people = reading.found, reading.people
    due, due_label = due_range(found.get("due"), today, reading.lang)
    return TaskQuestion(
        lang=reading.lang, aggregate=aggregate, mine="mine" in found and not people, people=tuple(people),
        status=found.get("status"), open_only="open" in found and "status" not in found,  # type: ignore[arg-type]
        priority=found.get("priority"), overdue="overdue" in found,  # type: ignore[arg-type]
        unassigned="unassigned" in found, due=due, due_label=due_label, sprint=reading.sprint,
        project=reading.project, words=tuple(reading.text[s:e] for s, e in sorted(reading.taken)),
    )


def take_weekday(text: str, taken: list[tuple[int, int]], found: dict[str, object]) -> None:
    """ "before Friday" / "antes del viernes" (due before it), "by Friday" / "para el viernes" (due on or
    before it), "on Friday" / "el viernes" (due that day): the next such day after today."""
    for match in WEEKDAY.finditer(text):
        if _free(taken, match.span()):
            taken.append(match.span())
            marker = " ".join((match.group("marker") or "").split())
            mode = "before" if marker in ("before", "antes del", "antes de") else \
                "by" if marker in BY_MARKERS else "on"
            found.setdefault("due", ("weekday", WEEKDAYS[match.group("day")], mode))
            return


def people_in(question: str, vocabulary: Vocabulary) -> list[Person]:
    """The people the question names (all who share a first or last name it uses)."""
    return _people(terms.fold(question), vocabulary, [])


def to_query(question: TaskQuestion, asker_id: int, person: Person | None, today: dt.date) -> TaskQuery:
    """The engines' find_tasks filters for a parsed question (counts and sums read up to the maximum)."""
    due_after, due_before = question.due if question.due else (None, None)
    return TaskQuery(
        status=question.status, priority=question.priority,
        sprint_id=question.sprint.id if question.sprint else None,
        project_id=question.project.id if question.project else None,
        assignee_id=asker_id if question.mine else person.employee_id if person else None,
        overdue_on=today if question.overdue else None, unassigned=question.unassigned,
        open_only=question.open_only, due_after=due_after, due_before=due_before, limit=MAX_FIND_TASKS)


def name_spans(question: str, vocabulary: Vocabulary) -> list[tuple[int, int]]:
    """Where the folded question (terms.fold) names a sprint or project, so "Payments Sprint 2" is not
    read as SPRINT #2."""
    taken: list[tuple[int, int]] = []
    _named(terms.fold(question), vocabulary, taken)
    return taken


def might_be(question: str) -> bool:
    """Cheap first look (no vocabulary): does the question use any word a tracker question needs?"""
    text = terms.fold(question)
    return any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text)
               for p in (*TASK_NOUNS, *POINTS_PHRASES, *OVERDUE_PHRASES, *UNASSIGNED_PHRASES, *STATUS_PHRASES,
                         *DUE_PHRASES, "due", "working on", "trabajando", "esta haciendo"))


def _free(taken: list[tuple[int, int]], span: tuple[int, int]) -> bool:
    return all(span[1] <= s or span[0] >= e for s, e in taken)


def _named(text: str, vocabulary: Vocabulary, taken: list[tuple[int, int]]) -> tuple[Named | None, Named | None]:
    """A sprint or project named in full ("Payments Sprint 2"), or a project by a word of its name that
    no other project shares ("payments", "LATAM"); longest names first so a sprint wins over its project.
    Only names whose every word is in the question are searched for (a directory of 10,000 projects
    cost seconds per question when each name was a regex of its own)."""
    present = _tokens(text)
    candidates = [(kind, named, name) for kind, items in (("sprint", vocabulary.sprints), ("project", vocabulary.projects))
                  for named in items for name, words in [_folded(named.name)] if words <= present]
    sprint = project = None
    for kind, named, name in sorted(candidates, key=lambda c: -len(c[2])):
        match = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) if name.strip() else None
        if match and _free(taken, match.span()):
            taken.append(match.span())
            if kind == "sprint" and sprint is None:
                sprint = named
            elif kind == "project" and project is None:
                project = named
    if project is None:
        project = _project_by_word(text, vocabulary, taken)
    return sprint, project


def _project_by_word(text: str, vocabulary: Vocabulary, taken: list[tuple[int, int]]) -> Named | None:
    present = _tokens(text)
    owners: dict[str, list[Named]] = {}
    for p in vocabulary.projects:
        for word in _folded(p.name)[1] & present:  # a word the question does not use names no project here
            if len(word) >= 4 and word not in terms.STOP and word not in FILLER:
                owners.setdefault(word, []).append(p)
    for word, projects in owners.items():
        if len(projects) != 1:
            continue
        for match in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text):
            if _free(taken, match.span()):
                taken.append(match.span())
                return projects[0]
    return None


@functools.lru_cache(maxsize=1 << 16)
def _folded(name: str) -> tuple[str, frozenset[str]]:
    """A name folded (terms.fold) and the words in it: each name is folded once, not once per question."""
    folded = terms.fold(name)
    return folded, _tokens(folded)


def _tokens(folded: str) -> frozenset[str]:
    """The runs of letters and digits: a name found in the question has each of its runs there too."""
    return frozenset(re.findall(r"[^\W_]+", folded))


def _by_id(items: tuple[Named, ...], item_id: int) -> Named | None:
    return next((n for n in items if n.id == item_id), None)


def _people(text: str, vocabulary: Vocabulary, taken: list[tuple[int, int]]) -> list[Person]:
    """People named by full name, or by a first or last name ("Chen's tasks"): all who share it."""
    present = _tokens(text)
    present |= {t[:-1] for t in present if len(t) > 2 and t.endswith("s")}  # "bens": Ben's
    for full in (True, False):
        matches: dict[int, Person] = {}
        spans = []
        for person in vocabulary.people:
            parts = [_folded(p) for p in (person.first_name, person.last_name) if p]
            if not all(words <= present for _, words in parts) if full else \
                    not any(words <= present for _, words in parts):
                continue
            names = [" ".join(name for name, _ in parts)] if full else [name for name, _ in parts]
            for name in names:
                if len(name) < 2:
                    continue
                # "Ben's", "Ben’s", and "bens" as a chat types it
                for match in re.finditer(rf"(?<![\w-]){re.escape(name)}(?:['\u2019]?s)?(?![\w-])", text):
                    if _free(taken, match.span()):
                        matches[person.employee_id] = person
                        spans.append(match.span())
        if matches:
            taken.extend(spans)
            return list(matches.values())
    return []


def says_i(text: str) -> bool:
    """Whether the folded question speaks of the asker's own work: a possessive or object of the first person
    ("show me", "tell me" ask for something; "my PM asked me" is no task of mine) or "I" holding or doing the work
    (app/rag/understanding/phrases.I_HOLD)."""
    rest = _TO_ME.sub(" ", FOR_ME_ASKED.sub(lambda m: m.group()[:m.start("me") - m.start()], text))
    return bool(MY_WORDS & set(terms.words(rest))) or bool(I_HOLD.search(rest)) or bool(_I_HAVE_DONE.search(text))


# Spanish "he" before a participle is "I have" ("¿qué he terminado?"), not the English "he".
_I_HAVE_DONE = re.compile(r"(?<![\w-])he\s+\w+(?:ado|ido|cho|sto|rto|ito)(?![\w-])")
_TO_ME = re.compile(r"(?<![\w-])(?:(?:show|tell|give|let|send|list|showing|telling|giving|sending|listing)\s+me|(?:could|can|may|might|would)\s+i\s+"
                    r"(?:get|see|have|ask|know|check|find|look at|pull)|i(?:'d| would) like(?: to (?:see|know))?|"
                    r"i want to (?:see|know)|i need to (?:see|know)|i wonder|i'm curious|im curious|"
                    r"(?:asked|asks|ask|remind|reminds|help|helps|sent|send|got|gets)\s+me|"
                    r"necesito saber|necesito ver|puedo ver|puedo saber|me gustaria|me encantaria|me interesa|"
                    r"me (?:podrias|puedes|podes|podeis|podria|podrian)\s+\w+|me (?:(?:lo|la|los|las)\s+)?(?:cuentas|pasas|pasa|listas|lista|das|da|dices|dice|decis|muestras|muestra|ensenas|mandas|traes|sacas))"
                    r"(?![\w-])")


def _leftover(text: str, taken: list[tuple[int, int]]) -> bool:
    """Whether a word outside the understood spans carries meaning (then the question is not ours); a
    negation always does."""
    return bool(_unknown(text, taken))


def _unknown(text: str, taken: list[tuple[int, int]]) -> list[str]:
    """The words outside the understood spans that carry meaning (a negation always does)."""
    return [word for word in terms.words(blanked(text, taken)) if word in NEGATIONS or not (
        word in terms.STOP or word in FILLER or len(word) < 2 and not word.isdigit())]


def due_range(kind: object, today: dt.date, lang: str) -> tuple[tuple[dt.date | None, dt.date] | None, str | None]:
    if kind is None:
        return None, None
    if kind[0] == "weekday":  # type: ignore[index]
        _, weekday, mode = kind  # type: ignore[misc]
        day = today + dt.timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)  # the next one after today
        said = WEEKDAY_LABELS[lang][mode].format(day=DAY_NAMES[lang][weekday])
        if mode == "before":
            return (None, day), said  # what is overdue is due before it too
        if mode == "by":
            return (None, day + dt.timedelta(days=1)), said
        return (day, day + dt.timedelta(days=1)), said
    unit, offset = kind  # type: ignore[misc]
    if unit == "day":
        start = today + dt.timedelta(days=offset)
        label = "today" if offset == 0 else "tomorrow"
        return (start, start + dt.timedelta(days=1)), SPANISH_LABELS[label] if lang == "es" else label
    monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=offset)
    label = "this week" if offset == 0 else "next week"
    return (monday, monday + dt.timedelta(days=7)), SPANISH_LABELS[label] if lang == "es" else label
