"""The small bilingual glossary of FIELD words (issue 31): the words that say which field a value belongs to, what
to return, in which order, and over which window of dates. Values themselves are never listed here: they are read
from the data (app/rag/understanding/lexicon.py). Phrases are folded (terms.fold: lower case, no accents). Pure."""

from __future__ import annotations

import re

# Words next to a value that say its field ("component Web UI", "the 2.0 release", "etiqueta backend").
FIELD_WORDS = {
    "fix_version": ("fix version", "fix versions", "fixversion", "fix ver", "version de correccion",
                    "version de arreglo", "release", "releases", "version", "versions",
                    "milestone", "milestones", "target", "targeted", "scheduled for", "fixed in", "planned for",
                    "lanzamiento", "entrega", "version objetivo", "versiones", "hito", "arreglado en",
                    "left for", "for release",
                    "corregido en", "corregidas en", "corregidos en", "para la version", "para el release"),
    "affects_version": ("affects version", "affects versions", "affected version", "affects", "affecting", "affect",
                        "hit", "hits", "afecta", "afectan",
                        "affected", "found in", "reported against", "broken in", "afecta", "afectan", "afectada",
                        "afectadas", "afectados", "afectado", "version afectada", "encontrado en", "encontrados en",
                        "affected version", "affected versions", "reported against", "reported in", "reportados",
                        "reportadas", "reportados en", "reportadas en", "seen in", "visto en", "vistos en", "against",
                        "hitting", "that hit", "contra", "contra la", "afectando"),
    "component": ("component", "components", "area", "areas", "module", "modules", "componente", "componentes",
                  "modulo", "modulos", "subsystem", "category", "categories", "categoria", "categorias"),
    "label": ("label", "labels", "labelled", "labeled", "tag", "tags", "tagged", "etiqueta", "etiquetas",
              "etiquetada", "etiquetadas", "etiquetados", "etiquetado", "con la etiqueta", "marcadas con",
              "marcados con", "marcadas", "marcados", "carry the label", "carrying the label", "el label", "label",
              "taggeados", "taggeadas", "taggeado", "taggeada", "tagueados", "tagueadas", "con tag", "con el tag"),
    "issue_type": ("type", "types", "issue type", "tipo", "tipos", "of type", "de tipo"),
    "resolution": ("resolution", "resolved as", "closed as", "marked as", "marked", "ended up", "ended up as",
                   "ended up marked", "ended up marked as", "acabaron en", "acabaron como", "terminaron como",
                   "se cerraron con", "cerradas con", "cerrados con", "con resolucion", "resolucion", "resueltas como",
                   "se resolvieron como", "se cerraron como", "resolved with", "closed with", "con resolucion",
                   "resueltos como", "cerradas como", "cerrados como", "marcadas como", "marcados como"),
    "status_name": ("status", "state", "estado", "in status", "en estado", "column", "columna"),
    "priority_name": ("priority", "prioridad", "with priority", "de prioridad", "con prioridad", "priority of", "prio",
                      "con prio", "with prio"),
}
# "reported by X", "X filed", "abierto por X": the person is the reporter, not the assignee.
REPORTER_BEFORE = ("reported by", "opened by", "filed by", "raised by", "created by", "logged by", "submitted by",
                   "written by", "reportado por", "reportada por", "reportados por", "reportadas por", "abierto por",
                   "abierta por", "abiertos por", "abiertas por", "creado por", "creada por", "creados por",
                   "creadas por", "levantado por", "levantada por", "registrado por", "registrada por")
REPORTER_AFTER = ("reported", "opened", "filed", "raised", "created", "logged", "submitted", "reporto", "reportaron",
                  "abrio", "abrieron", "creo", "crearon", "levanto", "registro", "ha reportado", "ha abierto",
                  "ha creado", "has reported", "has opened", "has filed", "has raised")
# Spanish puts the verb first: "¿cuáles reportó Elena?", "las que abrió Ana".
REPORTER_VERB_FIRST = ("reporto", "reportaron", "abrio", "abrieron", "creo", "crearon", "levanto", "registro",
                       "ha reportado", "ha abierto", "ha creado", "han reportado")
# "did Ben report …?", "what has Ana filed?": the verb's base form, only after did/does/has.
REPORTER_VERBS = ("report", "open", "file", "raise", "create", "log", "submit")
REPORTER_WORDS = ("reporter", "reporters", "reportero", "reportador", "who reported", "who opened", "who filed",
                  "who raised", "who created", "quien reporto", "quien abrio", "quien creo", "quien levanto",
                  "quien registro")
# Returns.
COUNT = ("how many", "number of", "count of", "count", "cuantas", "cuantos", "numero de", "cantidad de", "total of",
         "cuanto trabajo", "cuanta faena", "how much work",
         "how much", "total", "the total", "el total", "in total", "en total", "number", "numero", "the number",
         "el numero", "hw many", "# of", "#of", "no. of", "num of", "nr of", "n° de", "qty of", "que tantos",
         "que tantas", "q tantos", "q tantas")
# "nº de issues" as typed (folding reads "nº" as the word "no"): a count.
NUMERO = re.compile(r"(?<![\w-])n\.?\s?\u00ba\.?(?:\s+de)?(?![\w-])", re.IGNORECASE)
POINTS = ("story points", "story point", "points", "puntos de historia", "puntos")
MOST = ("the most", "most", "mas", "leads in", "leads", "leading", "comes first", "is first", "who's first",
        "whos first", "va primero", "lidera", "encabeza", "the highest number", "mayor numero", "mayor cantidad", "la mayoria", "biggest",
        "largest", "top", "piling up", "pile up", "piles up", "worst off", "worst", "se acumulan", "se amontonan",
        "peor")
# The most, said of someone's load ("who is the busiest?", "whose plate is fullest?", "¿quién está más cargado?"):
# ranked by the work they hold, open work.
LOADED = ("fullest", "busiest", "heaviest", "most loaded", "mas cargado", "mas cargada", "mas lleno", "mas llena")
FEWEST = ("the fewest", "fewest", "the least", "least", "menos", "menor numero", "menor cantidad")
# "which project has more open bugs than any other?", "¿qué proyecto tiene más … que ningún otro?"
MORE_THAN_ANY = re.compile(r"(?<![\w-])(?P<more>more|mas)\b.*?\b(?P<than>than any other|than anyone else|than anybody else|than all the others|than the rest|"
                           r"que ningun otro|que ninguna otra|que cualquier otro|que cualquier otra|que el resto|"
                           r"que los demas|que las demas)(?![\w-])")
# "who ... the most" groups by a person; "which <field> ... the most" by that field; "per <field>" / "by <field>".
GROUP_FIELD_WORDS = {
    "project": ("project", "projects", "proyecto", "proyectos"),
    "sprint": ("sprint", "sprints", "iteracion", "iteraciones"),
    "assignee": ("assignee", "assignees", "person", "people", "developer", "developers", "dev", "devs", "persona",
                 "personas", "responsable", "responsables", "desarrollador", "desarrolladores"),
    "reporter": ("reporter", "reporters",),
    "component": ("component", "components", "area", "areas", "module", "modules", "componente", "componentes",
                  "modulo", "modulos", "category", "categories", "categoria", "categorias"),
    "label": ("label", "labels", "tag", "tags", "etiqueta", "etiquetas"),
    "fix_version": ("version", "versions", "release", "releases", "milestone", "milestones", "version",
                    "versiones", "hito", "hitos"),
    "issue_type": ("type", "types", "issue type", "tipo", "tipos"),
    "status": ("status", "statuses", "state", "states", "estado", "estados"),
    "priority": ("priority", "priorities", "prioridad", "prioridades", "prio"),
    "resolution": ("resolution", "resolutions", "resolucion", "resoluciones"),
}
WHO = ("who", "whom", "whose", "quien", "quienes", "de quien", "de quienes")
# "who else" in Spanish is "quién más", said before its verb: no "most" ("¿quién tiene más?" is).
WHO_ELSE = ("quien mas", "quienes mas", "who else", "alguien mas", "anyone else", "anybody else", "nadie mas")
GROUP_MARKERS = ("per", "by", "for each", "each", "por", "por cada", "grouped by", "broken down by", "split by",
                 "agrupadas por", "agrupados por", "desglosado por", "desglosadas por", "rank", "ranking of",
                 "ranking de", "ranking", "clasifica", "ordena los", "ordena las")
# The present of reporting ("who reports the most?", "¿quién es el que más reporta?"): a reporters' ranking.
REPORTS = re.compile(r"(?<![\w-])(?:reports|files|opens|raises|logs|reporta|reportan|abre|abren|levanta|levantan|"
                     r"registra|registran|(?:ha|han|haya|hayan) (?:creado|reportado|abierto|registrado|levantado)|"
                     r"reporto|reportaron|abrio|abrieron|crearon|registro|levanto)(?![\w-])")
# "project-wise", "per-component", "by sprint": a ranking by that field.
FIELD_WISE = re.compile(r"(?<![\w-])(?P<field>[a-z]+)[- ]wise(?![\w-])")
# Orders, each with its direction and how many records it asks for (1: "the most urgent", "due first").
ORDER_WORDS = {
    ("priority", True): ("most important", "most urgent", "highest priority", "top priority", "most critical",
                         "top prio", "highest prio", "max prio", "mas prio", "corre mas prisa", "mas prisa",
                         "corre prisa", "mas apuro",
                         "matters most", "matter most", "importa mas", "importan mas", "mayor prioridad",
                         "number one priority", "number one", "#1 priority", "priority number one", "top one",
                         "prioridad numero uno", "needs my attention first", "attention first", "atender primero",
                         "de mayor prioridad", "mas prioridad", "mas prioritaria", "mas prioritario",
                         "do first", "work on first", "tackle first", "start with", "hacer primero", "empezar por",
                         "highest-priority", "top-priority", "most-urgent", "deberia empezar", "empezar", "empiezo",
                         "begin with", "start on", "most pressing", "mas apremiante", "mas apremiantes", "ponerme primero", "deberia ponerme",
                         "por donde empiezo", "por cual empiezo", "por cual empezar", "mas importante ahora",
                         "atacar primero", "hago primero", "deberia hacer primero",
                         "mas importante", "mas urgente", "mas prioritaria", "mas prioritario", "prioridad mas alta",
                         "mayor prioridad", "mas critica", "mas critico"),
    ("due", False): ("due first", "due soonest", "due next", "next due", "earliest due", "earliest deadline",
                     "closest deadline", "nearest deadline", "soonest", "vence primero", "vence antes",
                     "vencen primero", "vence mas pronto", "fecha mas cercana", "mas proxima", "mas proximo",
                     "first to be due", "due earliest"),
    ("created", True): ("most recent", "most recently", "newest", "latest", "created last", "last created",
                        "mas reciente", "mas recientes", "mas nueva", "mas nuevo", "ultima creada", "ultimo creado",
                        "creada mas recientemente", "creado mas recientemente", "recien creada", "recien creado"),
    ("created", False): ("oldest", "created first", "first created", "mas antigua", "mas antiguo", "mas vieja",
                         "mas viejo", "primera creada", "primero creado"),
    ("updated", True): ("last updated", "recently updated", "most recently updated", "actualizada mas recientemente",
                        "actualizado mas recientemente", "ultima actualizada", "ultimo actualizado"),
}
# Work to take up first, said with a verb of one's own ("what should I pick up first?", "¿qué debería coger
# primero?", "the one ticket I must fix"): the most important (a date's verb with "first" is read before this).
PRIORITY_FIRST = re.compile(r"(?<![\w-])(?:(?:should|must|shall|do|need to|have to|ought to|debo|deberia|tengo que|"
                            r"tendria que)\s+(?:i\s+)?(?:[\w'-]+\s+){1,3}(?:first|primero)"
                            r"|(?:lo |la |el )?primer[oa] (?:que|q) (?:deberia|debo|tengo que|tendria que|hay que)"
                            r"(?: [\w'-]+)?"
                            r"|(?:the|la|el) (?:one|unica?o?) (?:ticket|issue|task|thing|tarea|incidencia|cosa)"
                            r"|(?:fix|do|work on|tackle|handle|finish|hacer|arreglar|terminar)\s+(?:only\s+|just\s+)?"
                            r"(?:one|una?) (?:thing|ticket|issue|task|cosa|tarea))"
                            r"(?![\w-])")
# A tie-break said as a condition ("and if there's a few, whichever deadline comes first", "si hay varias, la que
# venza antes"): the engines break a tie of priority by the due date already, so it says nothing more.
TIE_BREAK = re.compile(r"(?<![\w-])(?:and\s+)?(?:if|si|en caso de|in case)\s+(?:there(?:'s| is| are)\s+|hay\s+|of\s+)?"
                       r"(?:a few|several|more than one|a tie|tied|varias|varios|mas de una|mas de uno|empate)[^.?!;]*")
# A modal's verb owns the superlative after it ("¿qué ticket abierto debería atender primero?"): no date order.
MODAL = re.compile(r"(?<![\w-])(?:should|must|shall|need to|have to|ought to|debo|deberia|deberiamos|tengo que|"
                   r"tenemos que|tendria que|hay que)(?![\w-])")
# A day said of when the asker works, not of a due date ("the one ticket I need to work on today", "if I can only
# fix one thing this week"): it filters nothing.
WORK_TIME = re.compile(r"(?<![\w-])(?:work(?:ing)? on|focus(?:ing)? on|tackle|pick up|look at|trabajar en|ponerme con|"
                       r"hacer primero|do first|"
                       r"atacar|dedicarme a|one thing|one ticket|one issue|una cosa|un ticket)\s+(?:[\w'-]+\s+){0,2}?"
                       r"(?P<when>today|this week|tomorrow|hoy|esta semana|manana)(?![\w-])")
# An order said as a date's verb and a superlative in any of their forms ("¿cuál se creó más recientemente?",
# "which one was updated last?", "the first one opened"): the verb names the date, the superlative the direction.
ORDER_VERBS = {
    "created": re.compile(r"(?<![\w-])(?:created|opened|filed|raised|reported|logged|came in|come in|"
                          r"cre(?:o|aron|ada|ado|adas|ados|arse)|abrirse|reportarse|abri(?:o|eron)|abiert[oa]s?|"
                          r"report(?:o|aron|ad[oa]s?))(?![\w-])"),
    "due": re.compile(r"(?<![\w-])(?:due|deadline|deadlines|due date|fecha limite|fecha de entrega|vencimiento|vence|"
                      r"vencen|entrega|entregar(?:se|la|lo)?|entregu(?:e|en))(?![\w-])"),
    "updated": re.compile(r"(?<![\w-])(?:updated|changed|touched|modified|actualiz\w*|modific\w*|cambi\w*|toc(?:o|aron|ad[oa]s?))"
                          r"(?![\w-])"),
    "resolved": re.compile(r"(?<![\w-])(?:resolved|closed|fixed|finished|completed|solved|resolv\w*|resuel\w*|cerr\w*|"
                           r"arregl\w*|termin\w*|complet\w*|solucion\w*)(?![\w-])"),
}
SUPERLATIVE = {
    True: re.compile(r"(?<![\w-])(?:most recently|most recent|latest|last|newest|(?:lo |la |el )?mas reciente(?:s|mente)?|"
                     r"ultim[oa]s?|(?:por )?ultimo|mas tarde|mas nuev[oa]s?)(?![\w-])"),
    False: re.compile(r"(?<![\w-])(?:first|earliest|oldest|longest ago|primer[oa]?s?|antes|mas antigu[oa]s?|mas viej[oa]s?|"
                      r"mas temprano|soonest|closest|nearest|mas cercan[oa]s?|mas proxim[oa]s?|mas pronto)(?![\w-])"),
}
# Words after "last"/"first" that make it a window or a sprint, not an order ("last week", "the first sprint").
NOT_AN_ORDER_AFTER = re.compile(r"\s*(?:week|month|year|day|days|sprint|sprints|iteration|release|version|quarter|"
                                r"semana|mes|ano|dia|dias|sprint|iteracion|trimestre|\d)")
# Verbs and nouns that point a window of dates at a field ("created last week", "cerradas este mes").
WINDOW_FIELD_WORDS = {
    "created": ("created", "opened", "filed", "raised", "reported", "logged", "submitted", "new", "create", "open",
                "file", "raise", "report", "log", "submit", "se crearon",
                "crearon", "se abrieron", "abrieron", "reportaron", "se reportaron", "creadas",
                "creados", "creada", "creado", "abiertas", "abiertos", "reportadas", "reportados", "nuevas",
                "nuevos", "registradas", "registrados", "levantadas", "levantados", "creation", "creacion"),
    "resolved": ("resolved", "closed", "fixed", "finished", "completed", "done", "solved", "resolve", "close", "fix",
                 "finish", "complete", "solve", "se resolvieron",
                 "resolvieron", "se cerraron", "cerraron", "se arreglaron", "arreglaron", "resueltas",
                 "resueltos", "cerradas", "cerrados", "arregladas", "arreglados", "terminadas", "terminados",
                 "completadas", "completados", "solucionadas", "solucionados", "resolution", "resolucion"),
    "updated": ("updated", "changed", "touched", "modified", "actualizadas", "actualizados", "modificadas",
                "modificados", "tocadas", "tocados", "cambiadas", "cambiados"),
}
# Windows of dates (the day the reader is given decides them): unit, offset from this one.
WINDOWS = {
    "today": ("day", 0), "hoy": ("day", 0), "yesterday": ("day", -1), "ayer": ("day", -1),
    "this week": ("week", 0), "esta semana": ("week", 0), "last week": ("week", -1), "past week": ("days", -7),
    "la semana pasada": ("week", -1), "semana pasada": ("week", -1), "la ultima semana": ("days", -7),
    "this month": ("month", 0), "este mes": ("month", 0), "last month": ("month", -1), "el mes pasado": ("month", -1),
    "mes pasado": ("month", -1), "past month": ("days", -30), "el ultimo mes": ("days", -30),
    "this year": ("year", 0), "este ano": ("year", 0), "last year": ("year", -1), "el ano pasado": ("year", -1),
    "ano pasado": ("year", -1), "past year": ("days", -365), "el ultimo ano": ("days", -365),
    "in the last 7 days": ("days", -7), "last 7 days": ("days", -7), "ultimos 7 dias": ("days", -7),
    "in the last 30 days": ("days", -30), "last 30 days": ("days", -30), "ultimos 30 dias": ("days", -30),
    "last two weeks": ("days", -14), "past two weeks": ("days", -14), "ultimas dos semanas": ("days", -14),
}
# Relative sprints of a project: the current (active) one, the one before, the one after, the latest started.
# In a follow-up of a few words ("y el anterior?", "and the next one?") the sprint is the last question's.
BARE_RELATIVE_SPRINTS = {
    "previous": re.compile(r"(?<![\w-])(?:previous|prev|prior|earlier|anterior|before|b4|antes|back|previo)(?![\w-])"),
    "next": re.compile(r"(?<![\w-])(?:next|following|later|siguiente|proximo|after|despues)(?![\w-])"),
}
RELATIVE_SPRINTS = {
    "current": ("current sprint", "active sprint", "this sprint", "ongoing sprint", "running sprint",
                "sprint actual", "sprint en curso", "sprint activo", "este sprint", "current iteration",
                "iteracion actual"),
    "previous": ("previous sprint", "prev sprint", "last sprint", "prior sprint", "sprint before", "the sprint before",
                 "sprint before that", "earlier sprint", "sprint anterior", "el sprint anterior", "ultimo sprint",
                 "el ultimo sprint", "previous iteration", "iteracion anterior", "sprint pasado"),
    "next": ("next sprint", "upcoming sprint", "following sprint", "sprint after", "proximo sprint",
             "siguiente sprint", "sprint siguiente", "el proximo sprint", "next iteration", "proxima iteracion"),
}
UNRESOLVED = ("unresolved", "not resolved", "sin resolver", "sin resolverse", "sin resolverlas", "no resueltas", "no resueltos", "without resolution",
              "sin resolucion", "still unresolved", "por resolver", "por cerrar", "sin cerrar", "falta por cerrar",
              "faltan por cerrar", "queda por cerrar", "quedan por cerrar", "pendientes de resolver", "pending", "pendiente",
              "pendientes", "outstanding")
CLOSED = ("closed", "resolved", "cerradas", "cerrados", "resueltas", "resueltos", "fixed", "arregladas",
          "arreglados")
# Resolutions said otherwise than their stored name (the stored names are matched as they are).
RESOLUTION_SYNONYMS = {
    "wont fix": "won't fix", "wontfix": "won't fix", "won't do": "won't do", "wont do": "won't do",
    "no se arreglara": "won't fix", "no se corregira": "won't fix", "duplicates": "duplicate",
    "duplicated": "duplicate", "duplicadas": "duplicate", "duplicados": "duplicate", "duplicada": "duplicate",
    "duplicado": "duplicate", "dupes": "duplicate", "dupe": "duplicate", "not reproducible": "cannot reproduce",
    "can't reproduce": "cannot reproduce", "cant reproduce": "cannot reproduce", "no reproducible": "cannot reproduce",
    "no reproducibles": "cannot reproduce", "invalidas": "invalid", "invalidos": "invalid", "invalida": "invalid",
    "incompletas": "incomplete", "incompletos": "incomplete",
}
# Issue types said otherwise than their stored name: matched only against types the data holds.
TYPE_SYNONYMS = {
    "defect": "bug", "defects": "bug", "bugs": "bug", "errores": "bug", "error": "bug", "fallos": "bug",
    "fallo": "bug", "bichos": "bug", "defecto": "bug", "defectos": "bug", "stories": "story", "historias": "story", "historia": "story",
    "features": "new feature", "feature": "new feature", "feature requests": "new feature", "mejoras": "improvement",
    "mejora": "improvement", "subtasks": "sub-task", "sub-tasks": "sub-task", "subtareas": "sub-task",
    "subtarea": "sub-task", "epicas": "epic", "epica": "epic", "epics": "epic",
}
# Words only a fix version is said with (unlike "version"): one right before a version decides it.
RELEASE_WORDS = ("release", "releases", "fix version", "fix versions", "fixversion", "milestone", "milestones", "target",
                 "targeted", "lanzamiento", "hito", "version objetivo")
# Bugs said as such: a version said of them with no field word is where they were found.
BUG_WORDS = ("bug", "bugs", "defect", "defects", "defecto", "defectos", "error", "errores", "fallo", "fallos",
             "bichos", "regression", "regressions", "regresion", "regresiones")
# Priorities by the tracker's names (Jira's) and ours, for questions that name one ("open Major bugs").
PRIORITY_NAMES = {
    "blocker priority": "CRITICAL", "priority blocker": "CRITICAL", "highest": "CRITICAL", "major": "HIGH",
    "minor": "LOW", "trivial": "LOW", "lowest": "LOW", "mayor": "HIGH", "menor": "LOW", "trivales": "LOW",
    "triviales": "LOW",
}
# The tracker's priority names said in Spanish or in the plural, read as the name the data holds (only when it does).
PRIORITY_TWINS = {"menor": "minor", "menores": "minor", "mayor": "major", "mayores": "major", "triviales": "trivial",
                  "bloqueante": "blocker", "bloqueantes": "blocker", "blockers": "blocker", "critica": "critical",
                  "criticas": "critical", "critico": "critical", "criticos": "critical", "alta": "high",
                  "altas": "high", "baja": "low", "bajas": "low", "media": "medium", "medias": "medium",
                  "muy alta": "highest", "muy baja": "lowest", "la mas alta": "highest", "la mas baja": "lowest"}
# "those", "them", "of these": an edit of the last question, not a new one.
THOSE = ("ahi", "alli", "alla", "de ahi", "in there", "over there", "those", "them", "these", "em", "'em", "of em", "of those", "of them", "of these", "among them", "among those", "esas", "esos",
         "ellas", "ellos", "estas", "estos", "de esas", "de esos", "de ellas", "de ellos", "de estas", "de estos",
         "entre ellas", "entre ellos", "the same", "lo mismo", "las mismas", "los mismos",
         # the last answer pointed back at ("the ones you just showed", "from that list", "de lo de antes")
         "the ones you just showed", "the ones you showed", "you just showed", "from that list", "that list",
         "the same ones", "from the list", "de lo de antes", "lo de antes", "de esa lista", "esa lista",
         "esas mismas", "esos mismos", "de esas mismas", "de esos mismos", "from before")
# What opens a follow-up that changes one part of the last question ("and Ana's?", "¿y en pagos?").
EDIT_OPENERS = ("and", "y", "what about", "how about", "and what about", "and for", "and in", "and the", "y en",
                "y de", "y para", "y los", "y las", "y el", "y la", "same for", "same but", "same in", "same with",
                "the same for", "the same in", "same", "lo mismo en", "lo mismo con", "lo mismo para",
                "lo mismo pero", "igual para", "igual pero", "now", "ahora", "e", "also", "tambien", "y que tal",
                "que tal", "y que hay de", "y sobre", "only", "just", "solo", "solamente", "nada mas", "unicamente",
                "but", "pero", "ok and", "ok y", "vale y", "then", "entonces", "nomas", "no mas", "switch to", "change to", "instead", "cambia a", "cambialo a",
                "cambialas a", "cambialos a", "en vez de eso", "mejor")
# A follow-up said as a correction of the last question ("no, I meant Pavel", "sorry, only the major ones",
# "perdón, en Harbor Storage", "no wait, I meant Tally Metrics"): an edit, its "no" no negation.
CORRECTION = re.compile(r"^(?:(?:(?:no|nope|nah)(?:\s*[,.!:-]+|\s+(?=wait|sorry|i mean|perdon|espera|quise|me referia))|(?:sorry|perdon|perdona|oops|ups|wait|espera|actually|"
                        r"en realidad|i mean|i meant|quise decir|me referia a)(?:[\s,.!:-]+|$))\s*)+")
ONLY = ("only", "just", "solo", "solamente", "unicamente", "nada mas", "nomas", "no mas")
# Narrowing said as a verb ("keep only …", "limit it to high priority", "quédate con las críticas").
NARROW = ("keep", "keep only", "limit it to", "limit to", "restrict to", "restrict it to", "leave only",
          "deja solo", "deja solamente", "quedate con", "quedate solo con", "limitalo a", "limitala a")
# Narrowing said with a verb of filtering ("narrow that down to low priority", "filter it to bugs", "filtra por").
NARROW_VERB = re.compile(r"(?<![\w-])(?:(?:narrow|cut|trim|reduce|whittle)(?:\s+{it})?(?:\s+down)?\s+(?:to|by|on)|"
                         r"filter(?:\s+{it})?(?:\s+down)?(?:\s+(?:to|by|on))?|filtr(?:a|ar)(?:lo|la|los|las)?(?:\s+(?:por|a|en))?|"
                         r"reduce(?:lo|la|los|las)?\s+a)(?![\w-])".format(
                             it="(?:it|that|this|them|those|these|the list|that list|this list|the results)"))
# Greetings and thanks that say nothing about the question ("hola, ¿qué tengo abierto …?").
PLEASANTRIES = ("hello", "hi", "hey", "hiya", "good morning", "good afternoon", "thanks", "thank you", "thx", "ty",
                "cheers", "please", "pls", "plz", "hola", "buenas", "buenos dias", "buenas tardes", "gracias",
                "muchas gracias", "porfa", "por favor", "oye", "che", "vale", "ok", "okay", "dale", "genial", "great",
                "cool", "perfecto", "perfect", "quick question", "serias tan amable de", "seria tan amable de",
                "would you be so kind as to", "would you be so kind to", "if you don't mind", "si no es molestia", "una pregunta", "pregunta rapida", "yo", "sup", "oigan",
                "oiga", "hey there", "hi there", "buen dia", "saludos", "out of curiosity", "por curiosidad", "kindly",
                "x fa", "xfa", "x favor", "porfis", "porfi", "plis",
                # what people say while they think, dictating ("um", "so yeah", "o sea", "bueno")
                "um", "umm", "uh", "uhm", "erm", "hmm", "yeah", "so yeah", "okay so", "ok so", "o sea", "bueno",
                "pues nada",
                # friends called by name ("parce, listame …", "tío, ¿cuántas …?", "dude, what's open")
                "parce", "tio", "tia", "wey", "guey", "cachai", "mae", "pana", "bro", "dude", "mate")
# A word taken back ("open bugs, I mean issues", "el sprint de antes, digo el anterior"): the word before the
# marker is struck, the one after says it ("no, I meant Elena" takes back the last question: CORRECTION).
TAKEN_BACK = re.compile(r"(?<![\w'-])(?!(?:no|nope|nah|wait|sorry|perdon|espera|oops|ups)\b)(?P<struck>[\w'-]+)"
                        r"(?:\s+or)?\s*,\s*(?P<marker>i mean|i meant|digo|quiero decir|mejor dicho|or rather|o mejor)"
                        r"\s*,?\s+(?=\w)")
# Now, said of holding work ("assigned to Leonie right now", "¿qué tiene Ana ahora mismo?"): open work.
CURRENTLY = ("right now", "currently", "at the moment", "at present", "as of now", "atm", "ahora mismo", "actualmente",
             "en este momento", "ahorita")
# A greeting stretched as people type it ("holaa", "heyyy", "hiii", "buenass").
# A bug and a task said together ("open bugs/tasks", "bugs and tasks", "bug o tarea") are every issue, not the type.
EVERY_KIND = re.compile(r"(?<![\w-])(?:bugs?|defects?|errores|error)(?:(?:\s*(?:/|&|\+|\band\b|\bor\b|\by\b|\bo\b)\s*"
                        r"(?:tasks?|issues?|tickets?|tareas?|incidencias?|tix|tkts|stuff|such|things|whatnot|whatever|demas|eso))+|"
                        r"\s*etc\.?)(?![\w-])")
# The greeting's vocative is part of it ("Hi team bot,", "hola equipo", "hey all").
STRETCHED_GREETING = re.compile(r"^\W*(?:hol+a+|he+y+|hi+|buena+s+|ho+la+s+|hello+|yo+)\b[\s,!.]*"
                                r"(?:(?:team|bot|all|everyone|everybody|folks|guys|there|y'all|chicos|equipo|gente|"
                                r"bot|amigo|amiga)\b[\s,!.]*)*")
# Not finished, said with a negation a few words before a word of finishing ("haven't been closed yet", "aún no se
# han cerrado", "not yet resolved"): open work.
NOT_DONE = re.compile(r"(?<![\w-])(?:not|never|no|sin|haven't|havent|hasn't|hasnt|isn't|isnt|aren't|arent|weren't|"
                      r"wasn't|aun no|todavia no)\s+(?:[\w']+\s+){0,2}(?:closed|resolved|done|finished|fixed|completed|"
                      r"cerrad\w*|cerrado|resuelt\w*|terminad\w*|hech[oa]s?|acabad\w*|completad\w*|arreglad\w*|"
                      r"cerr(?:o|aron)|termin(?:o|aron)|resolvi(?:o|eron)|acab(?:o|aron))"
                      r"(?:\s+(?:yet|todavia|aun))?(?![\w-])")
_FINISHED = r"(?:resolved|closed|done|finished|completed|fixed|resuelt[oa]s?|cerrad[oa]s?|terminad[oa]s?|hech[oa]s?)"
# Any state, said outright ("regardless of status", "open or closed", "da igual el estado", "in total"): no state.
ANY_STATE = re.compile(r"(?<![\w-])(?:regardless of (?:the )?status|whatever (?:the )?status|any status|all statuses|"
                       r"open or closed|closed or open|open and closed|overall|altogether|all time|ever|"
                       r"not (?:just|only) (?:the )?(?:open|unresolved)(?: ones)?|no (?:solo|solamente) (?:las |los )?"
                       r"(?:abiert|pendient)\w*|"
                       r"(?:me da igual|da igual|no importa|sin importar|no matter|regardless)\s+(?:si|if|whether)\s[^.?!,;]*|"
                       r"da igual el estado|sin importar (?:el |su )?estado|independientemente del estado|cualquier estado|todos los estados|"
                       r"abiert[oa]s? (?:y|o) cerrad[oa]s?|cerrad[oa]s? (?:y|o) abiert[oa]s?|"
                       # the finished said as included ("including resolved ones", "contando también los ya resueltos")
                       rf"(?:including|incl\.?|plus|even|as well as)\s+(?:the\s+)?(?:already\s+)?{_FINISHED}(?:\s+ones)?|"
                       r"(?:contando|incluyendo|incluso|incluid[oa]s?|sumando)\s+(?:tambien\s+|tb\s+)?(?:(?:a\s+)?(?:los|las)\s+)?"
                       rf"(?:ya\s+)?{_FINISHED}|(?:open|unresolved|abiert[oa]s?|pendientes?)\s+(?:and|&|\+|or|y|e|o)\s+{_FINISHED})"
                       r"(?![\w-])")
# Nobody assigned, said otherwise than the tracker questions' own phrases.
UNASSIGNED = ("nobody assigned", "no one assigned", "aren't assigned", "arent assigned", "isn't assigned",
              "aren't assigned to anyone", "arent assigned to anyone", "isn't assigned to anyone",
              "isnt assigned", "no tiene nadie", "no tienen nadie", "que nadie tiene", "no lleva nadie", "no lleva nadie", "have nobody assigned", "has nobody assigned", "nobody on it",
              "no assignee", "without an owner", "nadie asignado", "sin nadie asignado", "no tienen a nadie",
              "sin dueno", "sin responsable asignado", "unowned", "nobody on", "no one on",
              "nobody working on", "no one working on", "nadie trabajando en",
              "sin nadie", "nobody's picked up", "unclaimed", "que nadie tomo")
# A field said empty: a negation, a few small words, the field's noun or verb ("without a resolution", "no tienen
# asignado", "not assigned to anyone", "sin sprint", "nobody owns").
_NEGATION = (r"(?:no (?:tienen|tiene|hay) (?:a )?nadie|sin que nadie|without anyone|without anybody|without|with no|"
             r"don't|dont|doesn't|doesnt|do not|does not|no|sin|not|nobody|no one|nadie|ningun[oa]?|lacking|missing)")
_SMALL = (r"(?:\s+(?:a|an|the|any|un|una|el|la|tienen|tiene|have|has|had|is|are|been|esta|estan|ha|han|sido|yet|aun|"
          r"todavia|de|set|puesto|puesta|got|its|su|sus|las|los|lo|le|les|tenga|tengan|haya|hayan|them|it|ever|"
          r"really|actually))*")
EMPTY_FIELD = {
    "resolution": re.compile(rf"(?<![\w-]){_NEGATION}{_SMALL}\s+(?:resolution|resolved|resolucion|resolver|resuelt\w*)"
                             r"(?![\w-])"),
    "assignee": re.compile(rf"(?<![\w-]){_NEGATION}{_SMALL}\s+(?:assign\w*|asignad\w*|asignar|owner|owns|dueno|"
                           r"responsable|assignee|"  # or a verb of taking it on ("nobody has picked them up")
                           r"picked\s+up|picked|taken|grabbed|claimed|cogid[oa]s?|"
                           r"tomad[oa]s?|agarrad[oa]s?|pillad[oa]s?)(?:\s+to\s+(?:anyone|anybody|someone))?(?![\w-])"),
    "sprint": re.compile(rf"(?<![\w-]){_NEGATION}{_SMALL}\s+(?:sprint|iteracion)(?![\w-])"),
    "reporter": re.compile(rf"(?<![\w-]){_NEGATION}{_SMALL}\s+(?:reporter|reportador)(?![\w-])"),
}
# The sentence's own tasks as a verb's object ("nobody has picked them up"), not the last answer's.
TAKEN_ON = re.compile(r"(?<![\w-])(?:pick|picked|take|took|taken|grab|grabbed|claim|claimed)\s+(?P<it>them|it|those|these)"
                      r"(?![\w-])")
# Held up: a status, a link or the text (the engines' blocked predicate reads all three).
BLOCKED = ("blocked", "bloqueadas", "bloqueados", "bloqueada", "bloqueado", "stuck", "atascadas", "atascados",
           "atascada", "atascado", "on hold", "waiting on something", "waiting on", "waiting for", "held up",
           "esperando algo", "esperando", "en espera", "trabadas", "trabados", "frenadas", "frenados")
# "list them", "¿cuáles son?": the last question's records as a list.
LIST_AGAIN = ("list them", "show them", "show me them", "list those", "show those", "which are they", "which ones",
              "cuales son", "listalas", "listalos", "muestralas", "muestralos", "ensenamelas", "dime cuales",
              "name them", "what are they", "list them all", "show me those", "show me the list", "la lista",
              "the list", "list", "ensename cuales", "muestrame cuales", "show me which", "show which")
# Asking to be given something ("pásame esas mismas", "show me those"): with "those", the last rows listed.
GIVE_ME = ("pasame", "dame", "muestrame", "ensename", "mandame", "show me", "give me", "send me", "pass me", "list",
           "show", "listame")
# "muéstramelos", "enséñamelas", "lístalos", "dámelas": show them, in one word.
LIST_AGAIN_WORD = re.compile(r"(?<![\w-])(?:muestra|ensena|lista|dame|pasa|mostrar|ensenar|listar|pasar|da|enumera|"
                             r"enumerar|nombra|nombrar|dime)(?:me|nos)?"
                             r"(?:los|las)(?![\w-])"
                             # the pronouns before the verb: "¿me los listas?", "me las pasas"
                             r"|(?<![\w-])(?:me|nos)\s+(?:los|las)\s+(?:listas|lista|pasas|pasa|muestras|muestra|ensenas|"
                             r"das|mandas|dices|enumeras|nombras)(?![\w-])")
# What opens a question of its own (a few words with one of these are not a fragment of the last question).
ASKING_WORDS = ("what", "whats", "what's", "which", "who", "whom", "whose", "how", "when", "where", "why", "show",
                "list", "give", "tell", "que", "cual", "cuales", "quien", "quienes", "cuanto", "cuantos", "cuantas",
                "como", "cuando", "donde", "dame", "dime", "muestra", "muestrame", "lista")
# A relative sprint with a project's word between ("the current mobile sprint", "el sprint actual de datos").
RELATIVE_SPRINT_WORDS = {
    "current": (r"current|active|ongoing|running|this|present", r"actual|en curso|activo|vigente|de ahora"),
    "previous": (r"previous|last|prior|past|earlier", r"anterior|pasado|previo|de antes|antes|de atras|before|b4|back"),
    "next": (r"next|upcoming|following|coming", r"proximo|siguiente|que viene|de despues|despues|after"),
}
# Work someone has to finish: open work, not the status of that name ("what do I need to get done next week?").
OPEN_WORK = ("remains", "remain", "still remains", "is left", "are left", "queda pendiente", "quedan pendientes",
             "get done", "to get done", "need to finish", "needs to finish", "have to finish", "has to finish",
             "got to finish", "must finish", "should finish", "get finished", "tengo que terminar",
             "tiene que terminar", "hay que terminar", "tengo que acabar", "tengo que sacar", "por sacar")
# After a field word, what makes it the group of a ranking ("sprint con más puntos", "the project with the most").
WITH_MOST = ("with the most", "with most", "w/ most", "w/ the most", "w most", "with the highest number",
             "with the largest number", "with the biggest number", "has the highest number", "con el mayor numero",
             "con mayor numero", "con la mayor cantidad", "con mayor cantidad", "with the fewest", "with fewest", "with the least", "has the most",
             "has most", "has the fewest", "con mas", "con menos", "tiene mas", "tiene menos", "que mas", "que menos",
             "with the biggest", "with the largest", "with the worst", "has the biggest", "has the largest",
             "con el mayor", "con la mayor", "tiene el mayor", "tiene la mayor")
WHERE = ("where", "donde", "en donde", "en que parte")
# The field ranked, said as the set the winner comes from ("out of all projects, which one has the most …?").
AMONG = ("out of all", "of all the", "of all", "among", "among all", "among the", "across all", "de todos los",
         "de todas las", "entre los", "entre las", "entre todos los", "entre todas las")
# A version said as where the work was done ("fixed in 2.0", "corregidas en la 2.0"): its finished work.
FIXED_IN = ("fixed in", "resolved in", "shipped in", "released in", "delivered in", "landed in", "went into",
            "corregidas en", "corregidos en", "arregladas en", "arreglados en", "resueltas en", "resueltos en",
            "entregadas en", "publicadas en", "fixed for", "done in", "went out in", "went out with", "came out in",
            "made it into", "salio en", "salieron en", "se publico en", "se publicaron en")
# A version's work said DONE by a verb of fixing ("which issues were fixed in 2.0?", "what got fixed in 1.8?",
# "se arreglaron en la versión 1.8.0", "¿qué se corrigió en la 3.1.1?", "corrigieron en la 2.0"): its finished
# work, as FIXED_IN's bare participles ("the tasks fixed in 1.0"); the field's name ("fix version 1.2") names only
# the version.
FIXED_VERB = re.compile(
    r"(?<![\w-])(?:(?:got|were|was|been|get|gets|did \w+)\s+(?:fix|fixed|resolved|solved|shipped|released|delivered|"
    r"closed|resolve|solve|ship|release|close)"
    r"|se\s+(?:arregl|correg|corrig|solucion|resolv|resuel|cerr|entreg)\w*"
    r"|(?:arregl|correg|corrig|solucion|resolv|cerr|entreg)\w*(?:aron|ieron)|sali(?:o|eron)|went out|came out"
    r"|(?:fueron|fue|han sido|ha sido)\s+(?:arreglad|corregid|solucionad|resuelt|cerrad|entregad)[oa]s?"
    # the participle before or after its noun, and the noun of fixing ("fixed issues in", "tickets solved in",
    # "fixes in 2.1.0")
    r"|(?:fixed|solved|resolved|shipped)\s+(?:issues|tickets|bugs|tasks|items|ones)|(?:issues|tickets|bugs|tasks|"
    r"items)\s+(?:fixed|solved|resolved|shipped)|fixes|bugfixes|arreglos|correcciones)"
    r"(?:\s+(?:in|for|on|en|para|con))?(?![\w-])")
# Verbs of holding a value ("tickets that carry the performance label", "issues with label X").
HOLDING_VALUE = ("carry", "carries", "carrying", "with", "having", "tagged with", "marked with", "llevan", "lleva",
                 "con", "tienen", "tiene")
