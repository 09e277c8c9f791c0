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


# Phrases, folded (lower case, no accents: terms.fold), longest first when they overlap.
STATUS_PHRASES = {
    "in progress": "IN_PROGRESS", "in-progress": "IN_PROGRESS", "ongoing": "IN_PROGRESS", "started": "IN_PROGRESS",
    "en progreso": "IN_PROGRESS", "en curso": "IN_PROGRESS",
    "in review": "IN_REVIEW", "under review": "IN_REVIEW", "being reviewed": "IN_REVIEW", "en revision": "IN_REVIEW",
    "to do": "TODO", "still to do": "TODO", "todo": "TODO", "not started": "TODO", "por hacer": "TODO",
    "sin empezar": "TODO",
    "pendientes de empezar": "TODO",
    "done": "DONE", "finished": "DONE", "completed": "DONE", "complete": "DONE", "terminadas": "DONE",
    "terminados": "DONE", "hechas": "DONE", "completadas": "DONE", "completados": "DONE", "finalizadas": "DONE",
    # The Spanish singulars ("¿qué tiene Chen terminado?") and "not started" said as a verb.
    "terminada": "DONE", "terminado": "DONE", "hecha": "DONE", "hecho": "DONE", "hechos": "DONE",
    "completada": "DONE", "completado": "DONE", "finalizada": "DONE", "finalizado": "DONE", "finalizados": "DONE",
    "acabadas": "DONE", "acabados": "DONE", "not been started": "TODO", "not yet started": "TODO",
    "haven't been started": "TODO", "hasn't been started": "TODO", "haven't started": "TODO",
    "sin comenzar": "TODO", "sin iniciar": "TODO", "no empezadas": "TODO", "no iniciadas": "TODO",
    "being worked on": "IN_PROGRESS", "under way": "IN_PROGRESS", "underway": "IN_PROGRESS", "wip": "IN_PROGRESS",
    "en marcha": "IN_PROGRESS", "en proceso": "IN_PROGRESS", "en desarrollo": "IN_PROGRESS",
    "waiting for review": "IN_REVIEW", "awaiting review": "IN_REVIEW", "pending review": "IN_REVIEW",
    "up for review": "IN_REVIEW", "pendientes de revision": "IN_REVIEW", "esperando revision": "IN_REVIEW",
    "en revisiones": "IN_REVIEW", "closed": "DONE", "resolved": "DONE", "cerradas": "DONE", "cerrados": "DONE",
    "resueltas": "DONE", "resueltos": "DONE",
    # Singulars and verb forms: "revisando", "por revisar", "cerrada", "wrapped up".
    "revisando": "IN_REVIEW", "revisandose": "IN_REVIEW", "por revisar": "IN_REVIEW", "pendiente de revision": "IN_REVIEW",
    "pendientes de revisar": "IN_REVIEW", "getting reviewed": "IN_REVIEW", "cerrada": "DONE", "cerrado": "DONE",
    "acabada": "DONE", "acabado": "DONE", "wrapped up": "DONE", "to-do": "TODO", "por empezar": "TODO",
    "sin arrancar": "TODO", "shipped": "DONE", "in code review": "IN_REVIEW", "en code review": "IN_REVIEW",
    "hasn't started": "TODO", "hasnt started": "TODO", "not started yet": "TODO", "not yet begun": "TODO",
}
# Finished said by a verb: "what did Ana close?", "has Ben wrapped anything up?" (the verb's span only: the
# name between is read as a name).
_DONE_SAID = re.compile(r"(?<![\w-])(?:did\s+(?:[\w']+\s+){0,3}?(?P<verb>finish|close|complete|ship|wrap up)|"
                        r"(?P<wrap>wrap(?:ped)?\s+(?:anything\s+|something\s+)?up))(?![\w-])")
# "Not finished", said with a negation: taken before STATUS_PHRASES would read "done" in "not done".
OPEN_NEGATED = ("not done", "not finished", "not completed", "not complete", "not closed", "aren't done",
                "isn't done", "aren't finished", "isn't finished", "no terminadas", "no terminados",
                "no estan terminadas", "no estan terminados", "no hechas", "no estan hechas", "no completadas",
                "no estan completadas", "no cerradas", "no estan cerradas")
# Negations no filter expresses ("not critical", "not assigned to me"): left anywhere in the question,
# it is not a tracker question (dropping one, a stop word elsewhere, would answer the opposite).
NEGATIONS = frozenset(("not", "no", "non", "never", "nunca", "ni", "without", "sin"))
NOT_MINE = ("not assigned to me", "not mine", "no asignadas a mi", "no asignados a mi", "no son mias",
            "no son mios")
# "I"/"me"/"ando": a question of someone's work that names nobody and says one of these is the asker's
# ("what's due tomorrow?" says none: everything the asker may see).
_FIRST_PERSON = frozenset(terms.fold(w) for w in """
i me my mine myself i'm im i've i'd mi mis mio mia mios mias yo tengo estoy ando debo voy puedo
necesito llevo soy
""".split())
# Someone having to do something asks for open work; "to do" / "still to do" / "por hacer" said of tasks is the
# tracker's status of that name (Jira's Spanish board calls the column "Por hacer"), which the answer names.
TO_DO_VERBS = ("need to do", "needs to do", "have to do", "has to do", "got to do", "left to do",
               "tengo que hacer", "tiene que hacer", "hay que hacer", "queda por hacer", "quedan por hacer",
               "falta por hacer", "faltan por hacer", "me queda por hacer", "le queda por hacer")
# Points are in no status: "points still to do", "puntos por hacer" are the points of the work not finished.
_POINTS_TO_DO = re.compile(r"(?<![\w-])(?:story points|points|puntos de historia|puntos)\s+"
                           r"(?:(?:are|is|that are|que (?:estan|quedan|faltan)|quedan|faltan|estan)\s+)?"
                           r"(?P<todo>(?:still |left )?to do|por hacer)(?![\w-])")
OPEN_PHRASES = ("not done", "not finished", "unfinished", "open", "left", "remaining", "pending", "outstanding",
                "still open", "sin terminar", "abiertas", "abiertos", "pendientes", "pendiente", "restantes",
                "quedan", "faltan", "por terminar", "working on", "trabajando en", "esta trabajando", "trabajando",
                "esta haciendo", "sin acabar", "por acabar", "sin cerrar", "sin completar", "sin hacer",
                # Someone's load: what they have not finished ("who is the busiest?", "¿quién está más cargado?").
                "busiest", "busy", "overloaded", "workload", "cargado", "cargada", "ocupado", "ocupada",
                "carga de trabajo", "backlog", "still have", "still has", "still got", "todavia tiene",
                "aun tiene", "queda", "falta", "restan", "resta", "restante",
                "on my plate", "on his plate", "on her plate", "on their plate", "on your plate", "plate",
                "to go", "abierto", "abierta", "sin cerrar",
                # Busy with, in Spain's and Latin America's words ("¿con qué anda liado Diego?").
                "metido", "metida", "liado", "liada", "anda metido", "anda metida", "anda liado", "anda liada",
                # "tener algo entre manos" is being busy with it, the Spanish "on his plate" (not all his tasks)
                "entre manos")
PRIORITY_PHRASES = {
    "critical": "CRITICAL", "criticas": "CRITICAL", "critica": "CRITICAL", "criticos": "CRITICAL",
    "critico": "CRITICAL", "high priority": "HIGH", "high-priority": "HIGH", "high": "HIGH",
    "alta prioridad": "HIGH", "prioridad alta": "HIGH", "altas": "HIGH", "alta": "HIGH",
    "medium priority": "MEDIUM", "medium": "MEDIUM", "prioridad media": "MEDIUM", "media": "MEDIUM",
    "low priority": "LOW", "low-priority": "LOW", "low": "LOW", "prioridad baja": "LOW", "baja": "LOW", "bajas": "LOW",
}
# Every gender and number of the Spanish adjectives: "¿qué proyecto va más atrasado?" says it of a project.
OVERDUE_PHRASES = ("overdue", "past due", "past its due date", "past their due date", "past the due date",
                   "past their due dates", "past the deadline", "past its deadline", "past their deadline",
                   "past deadline", "late", "behind schedule", "behind", "vencidas", "vencidos", "vencida",
                   "vencido", "atrasadas", "atrasados", "atrasada", "atrasado", "retrasadas", "retrasados",
                   "retrasada", "retrasado", "fuera de plazo", "missed the deadline", "missed its deadline",
                   "missed their deadline", "missed deadline", "missed deadlines", "pasado de fecha",
                   "pasada de fecha", "pasadas de fecha", "pasados de fecha", "fuera de fecha", "con retraso",
                   "retraso", "retrasos", "slipped", "slipping", "let slip",
                   # Running late, said of someone ("¿voy tarde con algo?", "is Ben behind?") or of a date missed.
                   "voy tarde", "vas tarde", "va tarde", "vamos tarde", "van tarde", "llego tarde", "llega tarde",
                   "pasado la fecha", "pasada la fecha", "pasado el plazo", "fuera del plazo", "past the date",
                   "peor de plazos", "peor con los plazos", "worst on deadlines", "miss the due date",
                   "missed the due date", "missed its due date", "missed any deadlines", "missed any deadline",
                   "missed a deadline", "miss the deadline", "missed deadlines",
                   # The deadline missed as a verb ("did I miss any deadlines?", "¿se me venció algo?") or as what
                   # should have happened by now: taken before the statuses, which would read "finished" in it.
                   "miss any deadlines", "miss any deadline", "miss a deadline", "missed any due dates",
                   "missed due dates", "should already be finished", "should already be done",
                   "should have been done", "should have been finished", "should be done by now",
                   "should be finished by now", "se vencio", "se vencieron", "se me vencio", "se le vencio",
                   "se me vencieron", "se le vencieron", "vencio", "vencieron", "se me paso la fecha",
                   "se le paso la fecha", "ya deberian estar terminadas", "ya deberia estar terminada",
                   "deberian estar terminadas", "deberia estar terminada", "running late", "running behind",
                   "paso de fecha", "pasaron de fecha", "paso la fecha", "pasaron la fecha", "paso el plazo",
                   "pasaron el plazo", "deberia haber terminado", "deberian haber terminado",
                   "deberia haberse terminado", "should have finished", "llevan retraso", "lleva retraso",
                   "llevo retraso", "tienen retraso", "tiene retraso", "let anything slip", "let something slip",
                   "atrasos", "rezagadas", "rezagados", "rezagada", "rezagado")
# A date gone by, in Spanish's many forms: "se han pasado de la fecha de entrega", "cuyo plazo ya pasó",
# "con la fecha vencida".
_OVERDUE_SAID = re.compile(
    r"(?<![\w-])(?:(?:se (?:me |le |te |nos |les )?)?(?:ha |han |he )?(?:pasad[oa]s?|paso|pasaron)\s+"
    r"(?:de |del |de la |la |el )?(?:fecha|plazo)|(?:cuy[oa]s?|con (?:el|la|su)) (?:plazo|fecha)"
    r"(?: de entrega| limite)? (?:ya )?(?:paso|vencio|vencid[oa]|pasad[oa]))(?: de entrega| limite)?(?![\w-])")
UNASSIGNED_PHRASES = ("unassigned", "not assigned", "not assigned to anyone", "without an assignee",
                      "without assignee", "with no assignee", "no assignee", "nobody is assigned", "no one is assigned",
                      "no owner", "sin asignar", "sin responsable", "sin asignacion", "no asignadas", "no asignados",
                      "no tienen responsable", "nadie asignado")
MINE_PHRASES = ("assigned to me", "asignadas a mi", "asignados a mi", "my", "mine", "am i", "do i", "i have",
                "i am", "i'm", "mis", "mias", "mios", "lo mio", "lo mia", "mio", "mia", "tengo", "me toca", "me tocan", "a mi", "for me", "para mi",
                # What falls to me, what I carry, what is in my name.
                "me corresponde", "me corresponden", "llevo", "a mi nombre", "soy responsable de", "soy responsable",
                "me encargo de", "me encargo", "on my side", "on my end", "por mi parte", "de mi parte")
COUNT_PHRASES = ("how many", "number of", "count of", "count", "cuantas", "cuantos", "numero de", "cantidad de")
POINTS_PHRASES = ("story points", "story point", "points", "puntos de historia", "puntos")
TASK_NOUNS = ("tasks", "task", "tickets", "ticket", "issues", "issue", "items", "work", "tareas", "tarea",
              "pendientes", "trabajo",
              # What a chat calls them ("my in review stuff?", "mis cosas terminadas", "mis entregas de ...").
              "stuff", "things", "ones", "cosas", "entregas", "deliverables")
PERSON_MARKERS = ("assigned to", "asignadas a", "asignados a", "asignada a", "asignado a", "working on", "trabajando en",
                  "esta haciendo", "owned by", "de", "owns", "own", "belong to", "belongs to", "belonging to",
                  "responsible for", "a cargo de", "le toca", "le tocan", "se encarga", "se encarga de")
# Someone holding tasks, said beside their name and nothing else: all their tasks ("what's assigned to Emma?",
# "everything Diego has", "¿qué tiene Ben?"), finished or not; taken before PERSON_MARKERS.
HOLDING = ("assigned to", "asignadas a", "asignados a", "asignada a", "asignado a", "le han asignado",
           "owned by", "owns", "own", "belong to", "belongs to", "belonging to", "has", "have", "got", "tiene",
           "tienen", "lleva", "llevan", "lo de", "le toca", "le tocan", "holding", "is holding", "carrying",
           "le corresponde", "le corresponden", "se encarga de", "se encarga", "a nombre de", "a su nombre",
           "en su nombre", "responsible for", "in charge of", "a cargo de", "en manos de")
# Words that say nothing a filter does not already say ("which", "still", "show me", "quedan", ...).
FILLER = frozenset(terms.fold(w) for w in """
which what whats what's show list give tell me all any are is there still currently now right have has
got does do doing due assigned much owned by with in on of for the a an total sum left remaining open over
under this that these those does did be being been whose who whom sprint project please
cuales cual que muestra muestrame lista dame dime todas todos hay estan esta siguen sigue aun todavia
ensename listame ver quiero saber everything todo encuentra encuentran column columna
anything something algo alguna alguno con
tiene tienen vence vencen vencer asignadas asignados asignada asignado del de la las los en el por
proyecto iteracion suma total actualmente ahora
pasame mandame cuentame sacame traeme buscame porfa porfis plis xfa pls plz please already during durante
esten sean need needs deliver finish entregar terminar acabar pull fetch grab that's thats it's they're
figuran figura aparecen aparece cuyo cuya cuyos cuyas yet va van vas
podrias podria podes recuerdas recordarme dices decirme listarme mostrarme pasas pasarme necesito quisiera
remind like see i'd quick teniendo tenga ok okay hey hi hello vale oye hola buenas pues
""".split())
# Idioms around a question that ask nothing of their own ("¿qué onda con mis tareas?", "what's up with Ben's?").
IDIOMS = ("que onda con", "que onda", "que tal", "what's up with", "whats up with", "how about", "y que hay de",
          "estos dias", "these days", "lately", "ultimamente", "at the moment", "ahora mismo", "en este momento")
_DUE_PHRASES = {
    "this week": ("week", 0), "esta semana": ("week", 0), "next week": ("week", 1), "la proxima semana": ("week", 1),
    "la semana que viene": ("week", 1), "proxima semana": ("week", 1), "today": ("day", 0), "hoy": ("day", 0),
    "tomorrow": ("day", 1), "manana": ("day", 1),
    # The same weeks in other words ("during the current week", "la semana entrante").
    "current week": ("week", 0), "esta misma semana": ("week", 0), "following week": ("week", 1),
    "the week after this one": ("week", 1), "week after this one": ("week", 1), "coming week": ("week", 1),
    "upcoming week": ("week", 1), "la semana entrante": ("week", 1), "semana entrante": ("week", 1),
    "la semana siguiente": ("week", 1), "semana siguiente": ("week", 1),
}
_WEEKDAYS = {name: ix for ix, names in enumerate((
    ("monday", "lunes"), ("tuesday", "martes"), ("wednesday", "miercoles"), ("thursday", "jueves"),
    ("friday", "viernes"), ("saturday", "sabado"), ("sunday", "domingo"))) for name in names}
_DAY_NAMES = {"en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
              "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")}
_WEEKDAY_LABELS = {"en": {"before": "before {day}", "by": "by {day}", "on": "on {day}"},
                   "es": {"before": "antes del {day}", "by": "hasta el {day}", "on": "el {day}"}}
_BY_MARKERS = ("by", "until", "till", "para el", "hasta el", "para el dia", "hasta el dia")
_WEEKDAY = re.compile(r"(?<![\w-])(?:(?P<marker>before|by|until|till|on|antes\s+del?|para\s+el(?:\s+dia)?"
                      r"|hasta\s+el(?:\s+dia)?|el)\s+)?(?P<day>" + "|".join(_WEEKDAYS) + r")(?![\w-])")
_SPANISH_LABELS = {"this week": "esta semana", "next week": "la próxima semana", "today": "hoy",
                   "tomorrow": "mañana"}


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
        (reading.people or "mine" in found or _says_i(reading.text)) and any(k in found for k in ("open", "status", "due"))) or (
        "count" in found and "status" in found) or bool(reading.people and "holding" in found)
    filters = [reading.sprint, reading.project, *(found.get(k) for k in (
        "status", "priority", "overdue", "unassigned", "due", "mine", "open", "count", "points")), reading.people]
    if not asks_about_tasks or not any(filters):
        return None
    if not reading.people and "unassigned" not in found and _says_i(reading.text):
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
            and _says_i(reading.text):
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

    sprint, project = _named(text, vocabulary, taken)
    ids = refs.mentions(text, masked=taken)
    if any(source_type in ("task", "doc") for source_type, _ in ids):
        return None  # an entity asked by its id is a lookup, not a list
    taken.extend(refs.mention_spans(text, masked=taken))
    for source_type, source_id in ids:
        if source_type == "sprint":
            sprint = sprint or _by_id(vocabulary.sprints, source_id) or Named(source_id, f"sprint {source_id}")
        elif source_type == "project":
            project = project or _by_id(vocabulary.projects, source_id) or Named(source_id, f"project {source_id}")
    take(NOT_MINE, "not_mine")
    if "not_mine" in found:
        return None  # other people's tasks and unassigned ones: no filter says that
    take(TO_DO_VERBS, "open")  # "what do I need to do?" asks for open work, not the TODO status
    for match in _POINTS_TO_DO.finditer(text):
        if _free(taken, match.span("todo")):
            taken.append(match.span("todo"))
            found.setdefault("open", True)
    take(OPEN_NEGATED, "open")
    for match in _OVERDUE_SAID.finditer(text):
        if _free(taken, match.span()):
            taken.append(match.span())
            found.setdefault("overdue", True)
    take(COUNT_PHRASES, "count")
    take(POINTS_PHRASES, "points")
    take(UNASSIGNED_PHRASES, "unassigned")
    take(OVERDUE_PHRASES, "overdue")
    for match in _DONE_SAID.finditer(text):
        span = match.span("verb") if match.group("verb") else match.span("wrap")
        if _free(taken, span):
            taken.append(span)
            found.setdefault("status", "DONE")
    # Spanish "todo" is "everything" ("todo lo que tiene Chen"), not the English status.
    take({k: v for k, v in STATUS_PHRASES.items() if k != "todo" or lang != "es"}, "status")
    take(PRIORITY_PHRASES, "priority")
    _take_weekday(text, taken, found)
    take(_DUE_PHRASES, "due")
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
    due, due_label = _due_range(found.get("due"), today, reading.lang)
    return TaskQuestion(
        lang=reading.lang, aggregate=aggregate, mine="mine" in found and not people, people=tuple(people),
        status=found.get("status"), open_only="open" in found and "status" not in found,  # type: ignore[arg-type]
        priority=found.get("priority"), overdue="overdue" in found,  # type: ignore[arg-type]
        unassigned="unassigned" in found, due=due, due_label=due_label, sprint=reading.sprint,
        project=reading.project, words=tuple(reading.text[s:e] for s, e in sorted(reading.taken)),
    )


def _take_weekday(text: str, taken: list[tuple[int, int]], found: dict[str, object]) -> None:
    """ "before Friday" / "antes del viernes" (due before it), "by Friday" / "para el viernes" (due on or
    before it), "on Friday" / "el viernes" (due that day): the next such day after today."""
    for match in _WEEKDAY.finditer(text):
        if _free(taken, match.span()):
            taken.append(match.span())
            marker = " ".join((match.group("marker") or "").split())
            mode = "before" if marker in ("before", "antes del", "antes de") else \
                "by" if marker in _BY_MARKERS else "on"
            found.setdefault("due", ("weekday", _WEEKDAYS[match.group("day")], mode))
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
                         *_DUE_PHRASES, "due", "working on", "trabajando", "esta haciendo"))


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


def _says_i(text: str) -> bool:
    """Whether the folded question speaks of the asker's own work ("show me", "tell me" ask for something)."""
    return bool(_FIRST_PERSON & set(terms.words(_TO_ME.sub(" ", text)))) or bool(_I_HAVE_DONE.search(text))


# Spanish "he" before a participle is "I have" ("¿qué he terminado?"), not the English "he".
_I_HAVE_DONE = re.compile(r"(?<![\w-])he\s+\w+(?:ado|ido|cho|sto|rto|ito)(?![\w-])")
_TO_ME = re.compile(r"(?<![\w-])(?:show|tell|give|let|send|list)\s+me(?![\w-])")


def _leftover(text: str, taken: list[tuple[int, int]]) -> bool:
    """Whether a word outside the understood spans carries meaning (then the question is not ours); a
    negation always does."""
    return bool(_unknown(text, taken))


def _unknown(text: str, taken: list[tuple[int, int]]) -> list[str]:
    """The words outside the understood spans that carry meaning (a negation always does)."""
    rest = list(text)
    for start, end in taken:
        rest[start:end] = " " * (end - start)
    return [word for word in terms.words("".join(rest)) if word in NEGATIONS or not (
        word in terms.STOP or word in FILLER or len(word) < 2 and not word.isdigit())]


def _due_range(kind: object, today: dt.date, lang: str) -> tuple[tuple[dt.date | None, dt.date] | None, str | None]:
    if kind is None:
        return None, None
    if kind[0] == "weekday":  # type: ignore[index]
        _, weekday, mode = kind  # type: ignore[misc]
        day = today + dt.timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)  # the next one after today
        said = _WEEKDAY_LABELS[lang][mode].format(day=_DAY_NAMES[lang][weekday])
        if mode == "before":
            return (None, day), said  # what is overdue is due before it too
        if mode == "by":
            return (None, day + dt.timedelta(days=1)), said
        return (day, day + dt.timedelta(days=1)), said
    unit, offset = kind  # type: ignore[misc]
    if unit == "day":
        start = today + dt.timedelta(days=offset)
        label = "today" if offset == 0 else "tomorrow"
        return (start, start + dt.timedelta(days=1)), _SPANISH_LABELS[label] if lang == "es" else label
    monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=offset)
    label = "this week" if offset == 0 else "next week"
    return (monday, monday + dt.timedelta(days=7)), _SPANISH_LABELS[label] if lang == "es" else label
