"""The phrases the tracker readers understand, in English and Spanish, folded (terms.fold: lower case, no accents):
statuses, open and finished work, priorities, overdue, unassigned, the asker, counts and points, task nouns, filler,
idioms and the weeks and weekdays of due dates. The first reader (app/rag/task_questions.py) and the typed reader
(reader.py) share them; values of the data are never listed here (lexicon.py reads them). Pure."""

from __future__ import annotations

import re

from app.rag import terms

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
DONE_SAID = re.compile(r"(?<![\w-])(?:did\s+(?:[\w']+\s+){0,3}?(?P<verb>finish|close|complete|ship|wrap up)|"
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
# "I"/"me"/"ando": words of the first person, known to the reader wherever they stand.
FIRST_PERSON = frozenset(terms.fold(w) for w in """
i me my mine myself i'm im i've i'd mi mis mio mia mios mias yo tengo estoy ando debo voy puedo
necesito llevo soy
""".split())
# Whose work: a possessive or an object of the first person says the asker's own ("my tasks", "assigned to me", "mis
# tareas", "¿qué me toca?"); the subject "I" says it only as the one who holds or does the work ("what do I have?",
# "I'm working on", "should I fix …", "¿qué tengo?"), never as the one asking ("I wonder …", "I'm preparing the
# release notes and need to know …", "estoy cerrando el milestone y quiero ver …": everything the asker may see).
MY_WORDS = frozenset(terms.fold(w) for w in "me my mine myself mi mis mio mia mios mias".split())
# "could you count the LMN issues for me, please?": "for me" after a request is the one asking, not the holder.
FOR_ME_ASKED = re.compile(r"(?<![\w-])(?:count|list|show|pull|check|find|get|fetch|give|tell|grab|look up|dig up|"
                          r"sum up|summari[sz]e)(?![\w-])[^?!]*?(?<![\w-])(?P<me>for me)"
                          r"(?=\s*(?:[,.?!]|please|pls|thanks|thx|$))")
_WORK_VERBS = (r"have|has|had|got|gotten|own|owe|hold|holding|work|working|worked|do|doing|did|done|finish|finishing|"
               r"finished|fix|fixing|fixed|close|closed|resolve|resolved|handle|handling|tackle|tackling|pick|focus|"
               r"start|ship|deliver|carry|carrying|assigned|on|behind|late|responsible|missed|miss|forgot|left|due|"
               r"overdue|blocked|stuck")
_AUX = (r"should|must|need|needs|to|have|will|ll|can|could|am|m|still|also|really|just|already|ever|even|going|"
        r"supposed|got|be|been|currently|actually|not|absolutely|definitely|urgently|probably|seriously|honestly|"
        r"only|truly|totally")
_ES_HOLD = (r"tengo|llevo|ando|debo|deberia|hago|termino|empiezo|arranco|ataco|me pongo|me toca|me tocan|"
            r"me queda|me quedan|"
            r"(?:estoy|voy|necesito|puedo|yo)\s+(?:[\w]+\s+)?(?:trabajando|haciendo|con|atrasad[oa]s?|retrasad[oa]s?|"
            r"tarde|liad[oa]|metid[oa]|asignad[oa]s?|encargad[oa]|hacer|terminar|cerrar|acabar|entregar|trabajar|"
            r"atacar|empezar|arreglar|resolver)")
# Asking, not doing: "I need to know", "should I check …?", "can I see …?".
_ASKING_VERBS = r"know|see|check|ask|tell|understand|find|say|wonder|get|look|read|show|list"
I_HOLD = re.compile(rf"(?<![\w-])(?:(?:i|i'm|im|i've|ive|i'd|i'll)\s+(?:(?:{_AUX})\s+){{0,3}}(?:{_WORK_VERBS})|"
                    # an obligation of the first person is the asker's work, whatever its verb ("what must I wrap up?")
                    rf"(?:i|i've|ive)\s+(?:must|should|need to|have to|got to|gotta|ought to)\s+(?!(?:{_ASKING_VERBS})\b)\w+|"
                    rf"(?:am|do|did|have|should|must|can|could|will|shall)\s+i\s+(?:(?:{_AUX})\s+){{0,2}}"
                    rf"(?!(?:{_ASKING_VERBS})\b)\w+|{_ES_HOLD})(?![\w-])")
# Someone having to do something asks for open work; "to do" / "still to do" / "por hacer" said of tasks is the
# tracker's status of that name (Jira's Spanish board calls the column "Por hacer"), which the answer names.
TO_DO_VERBS = ("need to do", "needs to do", "have to do", "has to do", "got to do", "left to do",
               "tengo que hacer", "tiene que hacer", "hay que hacer", "queda por hacer", "quedan por hacer",
               "falta por hacer", "faltan por hacer", "me queda por hacer", "le queda por hacer")
# Points are in no status: "points still to do", "puntos por hacer" are the points of the work not finished.
POINTS_TO_DO = re.compile(r"(?<![\w-])(?:story points|points|puntos de historia|puntos)\s+"
                           r"(?:(?:are|is|that are|que (?:estan|quedan|faltan)|quedan|faltan|estan)\s+)?"
                           r"(?P<todo>(?:still |left )?to do|por hacer)(?![\w-])")
OPEN_PHRASES = ("not done", "not finished", "unfinished", "open", "left", "remaining", "pending", "outstanding",
                "still open", "still opened", "sin terminar", "abiertas", "abiertos", "pendientes", "pendiente", "restantes",
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
OVERDUE_SAID = re.compile(
    r"(?<![\w-])(?:(?:se (?:me |le |te |nos |les )?)?(?:ha |han |he )?(?:pasad[oa]s?|paso|pasaron)\s+"
    r"(?:de |del |de la |la |el |su )?(?:fecha|plazo)|(?:cuy[oa]s?|con (?:el|la|su)) (?:plazo|fecha)"
    r"(?: de entrega| limite)? (?:ya )?(?:paso|vencio|vencid[oa]|pasad[oa]))(?: de entrega| limite)?(?![\w-])")
UNASSIGNED_PHRASES = ("unassigned", "not assigned", "not assigned to anyone", "without an assignee",
                      "without assignee", "with no assignee", "no assignee", "nobody is assigned", "no one is assigned",
                      "no owner", "sin asignar", "sin responsable", "sin asignacion", "no asignadas", "no asignados",
                      "no tienen responsable", "nadie asignado", "unowned", "ownerless", "without an owner",
                      "with no owner", "without owner", "sin dueno", "sin owner")
MINE_PHRASES = ("assigned to me", "asignadas a mi", "asignados a mi", "my", "mine", "am i", "do i", "i have",
                "mis", "mias", "mios", "lo mio", "lo mia", "mio", "mia", "tengo", "me toca", "me tocan", "a mi", "for me", "para mi",
                # What falls to me, what I carry, what is in my name.
                "me corresponde", "me corresponden", "llevo", "a mi nombre", "soy responsable de", "soy responsable",
                "me encargo de", "me encargo", "on my side", "on my end", "por mi parte", "de mi parte")
COUNT_PHRASES = ("how many", "number of", "count of", "count", "cuantas", "cuantos", "numero de", "cantidad de")
POINTS_PHRASES = ("story points", "story point", "points", "puntos de historia", "puntos")
TASK_NOUNS = ("tasks", "task", "tickets", "ticket", "issues", "issue", "items", "work", "tareas", "tarea",
              "pendientes", "trabajo",
              # What a chat calls them ("my in review stuff?", "mis cosas terminadas", "mis entregas de ...").
              "stuff", "things", "ones", "cosas", "entregas", "deliverables",
              # The tracker's own name for its records ("my most critical open jira?").
              "jira", "jiras", "jira issues", "jira tickets", "jira tix")
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
rn atm asap tbh imo fyi lol btw
podrias podria podes recuerdas recordarme dices decirme listarme mostrarme pasas pasarme necesito quisiera
remind like see i'd quick teniendo tenga ok okay hey hi hello vale oye hola buenas pues
""".split())
# Idioms around a question that ask nothing of their own ("¿qué onda con mis tareas?", "what's up with Ben's?").
IDIOMS = ("que onda con", "que onda", "que tal", "what's up with", "whats up with", "how about", "y que hay de",
          "estos dias", "these days", "lately", "ultimamente", "at the moment", "ahora mismo", "en este momento")
DUE_PHRASES = {
    "this week": ("week", 0), "esta semana": ("week", 0), "next week": ("week", 1), "la proxima semana": ("week", 1),
    "la semana que viene": ("week", 1), "proxima semana": ("week", 1), "today": ("day", 0), "hoy": ("day", 0),
    "tomorrow": ("day", 1), "manana": ("day", 1),
    # The same weeks in other words ("during the current week", "la semana entrante").
    "current week": ("week", 0), "esta misma semana": ("week", 0), "following week": ("week", 1),
    "the week after this one": ("week", 1), "week after this one": ("week", 1), "coming week": ("week", 1),
    "upcoming week": ("week", 1), "la semana entrante": ("week", 1), "semana entrante": ("week", 1),
    "la semana siguiente": ("week", 1), "semana siguiente": ("week", 1),
}
WEEKDAYS = {name: ix for ix, names in enumerate((
    ("monday", "lunes"), ("tuesday", "martes"), ("wednesday", "miercoles"), ("thursday", "jueves"),
    ("friday", "viernes"), ("saturday", "sabado"), ("sunday", "domingo"))) for name in names}
DAY_NAMES = {"en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
              "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")}
WEEKDAY_LABELS = {"en": {"before": "before {day}", "by": "by {day}", "on": "on {day}"},
                   "es": {"before": "antes del {day}", "by": "hasta el {day}", "on": "el {day}"}}
BY_MARKERS = ("by", "until", "till", "para el", "hasta el", "para el dia", "hasta el dia")
WEEKDAY = re.compile(r"(?<![\w-])(?:(?P<marker>before|by|until|till|on|antes\s+del?|para\s+el(?:\s+dia)?"
                      r"|hasta\s+el(?:\s+dia)?|el)\s+)?(?P<day>" + "|".join(WEEKDAYS) + r")(?![\w-])")
SPANISH_LABELS = {"this week": "esta semana", "next week": "la próxima semana", "today": "hoy",
                   "tomorrow": "mañana"}
