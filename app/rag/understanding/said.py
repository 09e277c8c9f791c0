"""What a question says of the tracker (``Said``), shared by the reader's steps (reader.py, values.py), and the
words that ask nothing of their own. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.rag import task_questions as tq, terms
from app.rag.understanding.lexicon import PersonFact
from app.rag.understanding.query import Predicate

# Words that ask nothing of their own beyond what the glossary reads ("issues", "show", "please", ...).
KNOWN = frozenset(tq.FILLER | tq.FIRST_PERSON | {terms.fold(w) for w in (
    *tq.TASK_NOUNS, "ones", "one", "bugs", "records", "tix", "tkts", "pls", "plz", "thx", "list", "show", "give",
    "tell", "anything", "everything", "absolutely", "definitely", "seriously", "honestly", "realmente", "person", "persona", "ensenas", "muestras", "pasas", "listas", "dices", "mandas",
    "sacas", "traes", "podrias", "puedes", "indicarme", "decirme", "mostrarme", "pasarme", "darme", "gustaria", "todo", "todas", "todos", "cuales", "cual", "which", "what", "whats", "who",
    "quien", "quienes", "has", "have", "tiene", "tienen", "holds", "hold", "tiene", "lleva", "llevan", "got",
    "are", "is", "there", "hay", "currently", "right", "now", "ahora", "mismo", "still", "aun", "todavia", "sigue",
    "siguen", "kind", "set", "they", "them", "it", "son", "es", "those", "these", "that", "ones", "las", "los",
    "unas", "unos", "cosas", "stuff", "things", "items", "current", "actual", "actuales", "sprint", "project",
    "proyecto", "iteracion", "version", "release", "label", "component", "type", "tipo", "right", "then",
    "entonces", "so", "well", "pues", "like", "about", "see", "ver", "mostrar", "muestra", "muestrame",
    "ensename", "listame", "dame", "dime", "pasame", "saber", "know", "want", "quiero", "need", "necesito",
    "many", "much", "number", "numero", "count", "same", "mismo", "misma", "mismas", "mismos", "ok", "okay",
    "per", "each", "cada", "first", "primero", "primera", "order", "ordered", "sorted", "ordenadas", "ordenados",
    "incidencias", "incidencia", "tickets", "ticket", "issues", "errores", "fallos", "please", "porfa",
    "carry", "carries", "carrying", "thing", "rank", "ranking", "plate",
    "roughly", "approximately", "approx", "around", "aproximadamente", "aprox", "check", "curious", "curiosity",
    "lol", "haha", "jaja", "btw", "quick", "quickly", "real", "total", "sitting", "sit", "sits", "ended", "end",
    "acabaron", "acabo", "quedaron", "quedo", "terminaron", "got", "get", "fetch", "pull", "see", "look",
    "listas", "pasas", "das", "dices", "muestras", "mandas", "traes", "sacas", "dieron", "dio", "hubo", "tuvo", "tuvieron", "had", "habia", "across", "board", "item", "go", "no-go", "deberia", "deberias", "should", "would", "could", "known", "conocidos", "conocidas", "big", "large", "grande", "pile", "backlog", "heap", "bunch", "lot", "lots", "montón", "monton", "having", "llevan", "lleva", "acumula", "acumulan", "concentra", "concentran",
    "junta", "suma", "one", "ones", "cual", "which",
    # the words a question is framed with ("I wonder whether …", "the single most important", "decime", "la cifra")
    "wonder", "wondering", "whether", "single", "every", "decis", "decime", "deci", "cifra", "figure",
    # what a release holds ("¿qué entra en la 2.0?", "what goes into 2.0?")
    "entra", "entran", "goes", "go", "into",
    # asking for a list in its infinitive ("¿me podrías listar …?", "¿puedes mostrar …?")
    "listar", "mostrar", "mostrarme", "listarme", "ensenar", "ensenarme", "pasar", "pasarme", "enviar", "mandar",
    "salen", "sale", "resultan", "terms", "actually", "really", "serian", "seria", "leave", "leaves", "would",
    # asking to be told ("kindly share …"), "also" as typed ("abiertas y cerradas tb"), "that still are"
    "share", "provide", "tb", "tmb", "tambien", "sigan", "siga", "queden", "quede",
    # the meeting a question is asked for ("need the list for standup", "tengo reunión en 5 min")
    "standup", "stand-up", "retro", "retrospective", "meeting", "reunion", "junta",
    # holding work said as carrying it ("¿quién carga con más?")
    "carga", "cargan")})


@dataclass
class Said:
    """What a question says of the tracker. ``fields``: the fields it names (a follow-up replaces exactly
    these in the last query); ``returns`` and friends are None when it does not say what to return."""

    lang: str
    predicates: list[Predicate] = field(default_factory=list)
    fields: set[str] = field(default_factory=set)
    returns: str | None = None  # list | count | points | group
    group_by: str | None = None
    measure_points: bool = False  # a group ranked by story points
    ascending: bool = False
    order: tuple[str, bool] | None = None  # (order, descending)
    limit: int | None = None
    relative_sprint: str | None = None  # current | previous | next: resolved against a project
    people: list[list[PersonFact]] = field(default_factory=list)  # names said (several people: ambiguous)
    asks_tasks: bool = False  # a task noun, a value of the data, a count, a group or an order was said
    edit: bool = False  # an opener ("and …?", "only …") or "those" says it edits the last question
    fragment: bool = False  # a few words without a question word ("Ana's?", "in review?")
    those: bool = False
    list_again: bool = False  # "list them", "show them"
    unknown: list[str] = field(default_factory=list)
    mine: bool = False
    noun: bool = False  # a task noun was said ("how many tasks?": a question of its own, not "how many?")
    original: str = ""  # the question as typed (a value written as the tracker writes it: "are Closed?")
    it: bool = False  # points at one thing already said ("is it blocked?"): the focus's, not an edit
    any_state: bool = False  # "regardless of status", "open or closed": no state
    named_unknown: bool = False  # a word not understood is written as part of a name: no guess reads it
    loose_spans: list[tuple[int, int]] = field(default_factory=list)  # projects said by one word of their name

    def add(self, predicate: Predicate) -> None:
        self.predicates = [p for p in self.predicates if p.field != predicate.field or p.field == "text"]
        self.predicates.append(predicate)
        self.fields.add(predicate.field)
