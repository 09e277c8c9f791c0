"""Key terms of a question, in English and Spanish: words minus stop words, compared by a crude stem.

Pure: no I/O. Used by the extractive answer (which lines share terms with the question) and by the
offline follow-up query (which terms of the previous turn to carry over). The stem is the first five
letters of an accent-folded word: "blocking"/"blocked" and "assigned"/"Assignee" meet, which is all
a line picker needs; it is not a linguistic stemmer.
"""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
STEM_LEN = 5

EN_STOP = frozenset("""
a about after again all also am an and any are as at be because been before being but by can could
did do does doing done for from get gets got had has have having he her here hers him his how i if in
into is it its it's itself just know let me more most my no not now of on once only or other our out
over own please same she should show so some such tell than that the their them then there these they
this those through to too under until up very was we were what when where which while who whom whose
why will with would you your yours give find list any anything something there's what's who's
""".split())
ES_STOP = frozenset("""
a al algo algun alguna alguno algunos ante antes como con contra cual cuales cuando de del desde donde
dónde el él ella ellas ellos en entre era eres es esa ese eso esta está están este esto estos fue ha
han hay la las le les lo los mas más me mi mis muy nada ni no nos o para pero por porque que qué quien
quién quienes se sea ser si sí sin sobre son su sus también te tiene tienen todo todos tu tus un una
uno unos y ya yo dime decir favor puedes cuál cómo cuándo
""".split())
STOP = EN_STOP | ES_STOP

# Question words that point at one line of the task template (app/rag/templates.py), whose field
# names are English even for Spanish tasks: "who"/"quién" asks for the Assignee line, and so on.
FIELD_HINTS = {
    "assig": ("who", "whom", "quién", "quien", "assigned", "assignee", "owner", "asignado", "asignada",
              "asignar", "responsable", "encargado", "encargada",
              # Who handles it, in other words ("who's handling that one?", "¿quién la lleva?", "whose is it?").
              "handling", "handles", "handle", "whose", "lleva", "llevando", "encarga"),
    "statu": ("status", "state", "estado", "progress", "progreso"),
    "prior": ("priority", "prioridad", "urgent", "urgente", "critical", "crítica", "critica"),
    "due": ("due", "date", "deadline", "when", "cuándo", "cuando", "fecha", "vence", "entrega", "plazo", "límite", "limite"),
    "block": ("blocked", "blocking", "blocker", "bloqueado", "bloqueada", "bloquea", "bloqueo"),
    "sprin": ("sprint", "iteración", "iteracion"),
    "point": ("points", "puntos", "estimate"),
    "hours": ("hours", "horas"),
}
# Stems of the task template's own field names: every task chunk has them, so sharing one says
# nothing about whether a chunk is about the question.
TEMPLATE_STEMS = frozenset({"statu", "prior", "sprin", "proje", "assig", "story", "point", "estim", "hours",
                            "due", "descr", "comme", "dates", "goal", "task", "tasks"})
_HINT_OF = {word: stem for stem, words in FIELD_HINTS.items() for word in words}
_SPANISH_MARKS = re.compile(r"[¿¡ñáéíóúü]", re.IGNORECASE)
_NAMES = re.compile(r"(?<![\w¿¡])[A-ZÁÉÍÓÚÑÜ][\w'-]*")
# The words a chat asks about its records with, which say the asker's language as stop words do: a title
# or topic quoted in the data's language ("tareas de the nightly ETL") must not outvote them.
_EN_ASKING = frozenset("task tasks document documents project projects status summary summarise summarize".split())
_ES_ASKING = frozenset("""tarea tareas documento documentos proyecto proyectos estado resumen resume lleva pasa
encarga dame cuentame hablame muestrame
q tengo tienes toca tocan vence vencen vencida vencido vencidas vencidos atrasada atrasado atrasadas atrasados
pendiente pendientes comentarios comento comentaron ultimo ultima quienes pasame
abierta abiertas abierto abiertos cerrada cerradas cerrado cerrados incidencia incidencias""".split())


def fold(word: str) -> str:
    """Lower-case without accents ("Iteración" → "iteracion")."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stem(word: str) -> str:
    return fold(word)[:STEM_LEN]


def words(text: str) -> list[str]:
    return WORD.findall(text)


def text_stems(text: str) -> set[str]:
    """The stems of a record's words, a plural's singular and a verb's -ing form beside them ("wants" holds the
    "want" of a question, "Clone" its "cloning": five letters cut them apart), and a hyphenated word's parts."""
    found = set()
    for word in WORD.findall(text):
        found.add(stem(word))
        if "-" in word:  # a hyphenated word holds its parts: "#eng-help" the "help" of a question
            found.update(stem(part) for part in word.split("-") if len(part) > 1)
        if len(word) > 4 and word[-1] in "sS":
            found.add(stem(word[:-1]))
        if len(word) > 3 and word[-1] in "eE":
            found.add(stem(word[:-1] + "ing"))
    return found


def key_terms(text: str) -> list[str]:
    """The words of `text` that carry meaning (stop words and 1-letter words dropped), in order, once."""
    seen: set[str] = set()
    terms = []
    for word in words(text):
        low = word.lower()
        if is_stop(low) or len(low) < 2 or stem(low) in seen:
            continue
        seen.add(stem(low))
        terms.append(word)
    return terms


def is_stop(word: str) -> bool:
    """A stop word, also contracted with "is" ("when's", "one's", "that’s" say only their stop word)."""
    folded = fold(word)
    return word in STOP or folded in STOP or uncontracted(folded) in STOP


def uncontracted(word: str) -> str:
    return _CONTRACTED.sub("", word)


_CONTRACTED = re.compile(r"['\u2019]s$")


def question_stems(question: str) -> set[str]:
    """Stems a line must share to answer `question`: its key terms plus the template fields it asks for."""
    stems = {stem(t) for t in key_terms(question)}
    stems |= {_HINT_OF[w.lower()] for w in words(question) if w.lower() in _HINT_OF}
    return stems


def topic_stems(question: str) -> set[str]:
    """Stems of the question's own subject (key terms minus template field names): a hit must share
    one to count as relevant, whatever its distance."""
    return {stem(t) for t in key_terms(question)} - TEMPLATE_STEMS


def language(text: str) -> str:
    """The answer's language for a question: "es" or "en" (is_spanish)."""
    return "es" if is_spanish(text) else "en"


def is_spanish(text: str) -> bool:
    """Spanish when it has Spanish marks or more Spanish than English stop words or asking words (on a tie,
    the first of them decides; English when there are none)."""
    if _SPANISH_MARKS.search(_NAMES.sub(" ", text)):  # "raised by María Castillo" is English: an accent of a name
        return True
    lowered = [w.lower() for w in words(text)]
    spanish = [w in ES_STOP and w not in EN_STOP or w in _ES_ASKING for w in lowered]
    english = [w in EN_STOP and w not in ES_STOP or w in _EN_ASKING for w in lowered]
    if sum(spanish) != sum(english):
        return sum(spanish) > sum(english)
    # A tie: the question's first telling word, since the asker's frame opens it ("quien lleva Write … for the …")
    return next((es for es, en in zip(spanish, english) if es or en), False)
