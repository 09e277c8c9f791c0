"""Where a question goes before anything is retrieved. Pure: no I/O.

The rules are the precise path, and win:

- a scope request ("only look at the payments project from now on", "busca en todo otra vez") → ``scope``;
- comments or blockers of the focus ("who else commented on it?", "what is blocking it?") or of an id →
  ``comments`` / ``blockers``; "what is blocked?" without a pointer → ``blockers`` over what is in scope;
- a tracker question ("which of my tasks are in progress?") → ``tasks``: the find_tasks query;
- a comparison ("which project has the most overdue work?", "tasks per status") → ``compare``;
- an explicit id ("task 107", "tarea 107", "#107", "doc 6"), or a tracker key ("PAY-1210") the caller resolved
  to tasks they may see (``keyed``: app/services/entities.py) → ``lookup`` under the access rule;
- a follow-up that names nothing of its own ("when is it due?") while the conversation has a focus →
  ``follow_up``: about the focus; without one, a follow-up about one thing ("who has it?") asks which
  (``clarify``), rather than list every task or rank people.

Then the question's kind by meaning (app/rag/intents.py, found by the caller from the question's
embedding) routes what no rule matched: someone's work or a count → ``tasks`` with the filters the
question names (app/rag/task_questions.slots), a comparison → ``compare``, comments or blockers → as
above; a clear kind that lacks what it needs asks for it (``clarify``). Everything else → ``retrieve``.

The same route serves the extractive answer and the LLM (which gets the routed evidence first, and the
same lookups as tools), so offline and online agree on what is true.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass
from typing import Literal

from collections.abc import Sequence

from app.domain import Person, SearchHit, Vocabulary
from app.rag import comparisons, followup, refs, scope_requests, task_questions, terms
from app.rag.comparisons import GroupBy
from app.rag.intents import Intent
from app.rag.refs import EntityRef
from app.rag.scope_requests import ScopeRequest
from app.rag.task_questions import TaskQuestion
from app.rag.understanding import edits, facts, reader
from app.rag.understanding.edits import Composed
from app.rag.understanding.lexicon import Lexicon
from app.rag.understanding.query import TrackerQuery

RouteKind = Literal["tasks", "lookup", "follow_up", "retrieve", "compare", "comments", "blockers", "scope",
                    "clarify"]
Missing = Literal["group", "task", "sprint", "project", "person"]


@dataclass(frozen=True)
class Tracker:
    """What the typed query's reader needs (issue 31): the words of the data, who asks, the conversation's last
    query (a follow-up edits it) and the project the conversation is scoped to."""

    lexicon: Lexicon
    asker_id: int
    last_query: TrackerQuery | None = None
    scope_project: int | None = None

# Idioms of one's own work a sentence embedding of Spanish barely separates ("¿en qué ando?"): read as the
# kind "work", as a kind found by meaning would be.
_WORK = re.compile(r"(?<![\w-])(?:en que (?:ando|anda|andas|andan|estoy|esta|estas)|que (?:tengo|tiene|tienes) que "
                   r"(?:hacer|terminar|entregar|acabar)|que me (?:toca|tocan|queda|quedan)|on (?:my|his|her) plate)"
                   r"(?![\w-])")
# "which tasks did Chen comment on?" asks for tasks, not for one task's comments.
_TASKS_ASKED = re.compile(r"(?<![\w-])(?:which|what|que|cuales)\s+(?:tasks|tickets|issues|tareas)(?![\w-])")
_LATEST_STEMS = frozenset(terms.stem(w) for w in ("latest", "last", "recent", "newest", "ultimo", "ultima",
                                                  "reciente", "else", "mas", "anyone", "anybody", "someone", "alguien",
                                                  "other", "others", "otro", "otros", "otra", "otras", "haya", "hayan",
                                                  # the verbs a comment is made with ("who else left comments?")
                                                  "left", "leave", "wrote", "write", "written", "posted", "added",
                                                  "dejo", "dejaron", "dejado", "escribio", "escribieron", "puso",
                                                  "pusieron", "agrego", "puesto", "dicho", "chime", "chimed",
                                                  # who else, said of the assignee ("besides the assignee, who …?")
                                                  "besides", "apart", "aparte", "ademas", "assignee", "owner",
                                                  "responsable", "nuevo", "nueva", "said", "say", "dijo", "dijeron",
                                                  "opino", "opinaron", "people", "person", "persona", "personas",
                                                  "gente", "final",
                                                  # what a chat opens with ("ok, and who else commented?")
                                                  "ok", "okay", "hey", "hi", "hello", "vale", "oye", "hola",
                                                  "buenas", "pues",
                                                  # the verbs feedback is given with ("who has been giving feedback?")
                                                  "giving", "gave", "given", "get", "got", "dando", "dado", "dio",
                                                  "dieron", "estado", "dice"))
# Words no filter explains that a question of a kind found by meaning may still hold ("what's on my plate?":
# "plate"; "anything I should finish before Friday?": "finish"); more, and it is about something else.
MAX_UNKNOWN = 2
# Writing on a task is commenting on it ("who wrote on it?", "¿quién escribió en ella?").
# So is putting or saying something there, or chiming in ("¿quién ha puesto algo en la 112?").
_COMMENTS = re.compile(r"(?<![\w-])(?:comment\w*|coment\w*|replied|repl(?:y|ies)|respondi\w*|"
                       r"(?:wrote|written|writes|escribi\w*|escrito) (?:on|en)|"
                       r"(?:puesto|puso|pusieron|dicho|dijo|dijeron) (?:algo |nada )?en|(?:puesto|puso|pusieron) (?:algo|nada)|"
                       r"(?:said|say|says|put|posted) (?:anything|something) (?:on|in|about)|"
                       r"chim(?:e|ed|es|ing) in|weigh(?:ed|s|ing)? in|opin(?:o|aron|ado)|opinion(?:es)?|feedback|discuss(?:ed|ing|ion)?|"
                       r"(?:left|leave|leaves|leaving|posted|added|wrote|put) (?:a |any |some )?notes?|"
                       r"(?:dej\w*|puso|pusieron|escribi\w*) (?:una |alguna |algunas )?notas?|"
                       # messages and answers on it ("last msg on 112?", "¿quién contestó en la 112?")
                       r"msgs?|messages?|mensajes?|respuestas?|contest(?:o|aron|ado)|respond(?:ed|s)?)(?![\w-])")
# What a person said ("what did Ben say?", "¿qué dijo Ana?") is their comments; what a document says is not.
_SAID = re.compile(r"(?<![\w-])(?:(?:did|does|has) (?P<who>[\w']+) (?:say|said)|que (?:dijo|dice|ha dicho|escribio|puso) "
                   r"(?P<quien>[\w']+))(?![\w-])")
# "what is blocked?", "which tasks are stuck?", "¿qué está bloqueado?": a list, even beside a focus (while
# "is there a blocker?" beside one is about it).
_LIST_ASKED = re.compile(r"(?<![\w-])(?:what|what's|whats|which|anything|any|que|cuales|cual|algo|hay|tasks|tickets|"
                         r"issues|tareas)(?![\w-])"
                         r".*(?:blocked|stuck|bloquead\w*|atascad\w*|trabad\w*)")
# "How many points are left in the sprint?" points at a sprint it does not name: ask which (a conversation
# scoped to a project answers for that project instead: app/services/chat.py).
_UNNAMED = re.compile(r"(?<![\w-])(?:the|this|that|current|el|la|este|esta|ese|esa)\s+"
                      r"(?P<what>sprint|iteracion|project|proyecto)(?![\w-])")
# A field of the record, which a question near the comments by meaning ("who has it?") still asks for.
_FIELD_ASKED = re.compile(r"(?<![\w-])(?:" + "|".join(
    [*(re.escape(terms.fold(w)) for stem in ("statu", "prior", "due", "point", "hours", "sprin")
       for w in terms.FIELD_HINTS[stem]),
     *(re.escape(terms.fold(w)) for w in terms.FIELD_HINTS["assig"] if terms.fold(w) not in ("who", "whom", "quien")),
     r"who(?: is|'s|s)? (?:has|owns|holds|on|doing|working|handling)", r"quien (?:lo |la |le )?(?:tiene|lleva|hace)",
     r"done|finished|complete|completed|terminad[oa]|hech[oa]|acabad[oa]|completad[oa]|lista|listo",
     # a real tracker's fields of a record (issue 31): who reported it, when it was created, what it depends on
     r"reported|reporter|report[oó]|opened|filed|raised|created|creada|creado|se creo|creation|creacion|"
     r"resolution|resoluci[oó]n|"
     r"depends?|dependent|dependencies|depende|dependencias|linked|links|duplicates"])
    + r")(?![\w-])")
# "show me #57", "info on 11", "enséñame la 63": the record asked for by id, which no kind by meaning turns
# into its comments or blockers.
_CARD_ASKED = re.compile(r"(?<![\w-])(?:show|tell me about|info|information|details|detail|what's|whats|what is|"
                         r"ensename|muestra\w*|hablame|dame|detalles|que es)(?![\w-])")
# What a record waits on ("what does PAY-12 depend on?", "¿de qué depende?"): its holders, like "blocked by".
_DEPENDS = re.compile(r"(?<![\w-])(?:depend(?:s|ing)? (?:on|upon)|dependenc(?:y|ies)|dependencias?|depende|dependen|"
                      # what a record waits on, in other words ("tickets it's waiting on", "linked issues for
                      # X", "¿tiene tickets enlazados que lo frenen?")
                      r"waiting (?:on|for)|waits (?:on|for)|linked|enlazad[oa]s?|vinculad[oa]s?|fren(?:a|an|e|en))"
                      r"(?![\w-])")
# ... but "which tasks depend on PAY-12?" asks the other way: what waits on it (its card's links answer that).
_DEPENDED_ON = re.compile(r"(?<![\w-])(?:what|which|anything|who|que|cuales?)\s+(?!does|do|did|de)(?:[\w-]+\s+){0,2}"
                          r"(?:depends?|dependen|depende) (?:on|upon|de)(?![\w-])")
_BLOCKED = re.compile(r"(?<![\w-])(?:block\w*|bloque\w*|stuck|atascad\w*|trabad\w*|held up|holding up)(?![\w-])")


@dataclass(frozen=True)
class Route:
    kind: RouteKind
    refs: tuple[EntityRef, ...] = ()  # lookup: the ids asked for; follow_up, comments, blockers: what about
    tasks: TaskQuestion | None = None  # tasks: the question; compare / blockers: the filters it names
    intent: Intent | None = None  # the kind by meaning, when one was clear (None: unclear, or not asked)
    group: GroupBy | None = None  # compare: grouped by what, which end
    scope: ScopeRequest | None = None  # scope: what the asker asked for
    people: tuple[Person, ...] = ()  # comments: whose ("what did Chen say?")
    missing: Missing | None = None  # clarify: what to ask for
    lang: str = "en"
    query: TrackerQuery | None = None  # tasks / compare read by the typed reader: the query to run
    ambiguous: tuple[tuple[int, str], ...] = ()  # clarify (person): everyone a name matched
    missing_keys: tuple[str, ...] = ()  # lookup: keys of a known project that name no task the asker may see
    guessed: bool = False  # tasks / compare read from the question's kind by meaning, not from its words


def route(question: str, focus: EntityRef | None, vocabulary: Vocabulary, today: dt.date,
          intent: Intent | None = None, keyed: tuple[EntityRef, ...] = (), tracker: Tracker | None = None) -> Route:
    text, lang = terms.fold(question), terms.language(question)
    reading = reader.read(question, tracker.lexicon, tracker.asker_id, today) if tracker is not None else None
    intent = "work" if intent is None and _WORK.search(text) else intent
    # Folded text (as the name spans are), so a sprint named "... Sprint 2" is not read as SPRINT #2.
    masked = [*task_questions.name_spans(question, vocabulary), *refs.key_spans(question)]
    # A key is a lookup like an id; one that names no task the caller may see is not (it may be "COVID-19"),
    # and reads exactly as an unknown key.
    ids = refs.unique([*refs.mentions(text, masked=masked), *keyed])
    first = _first(question, vocabulary, intent, lang, ids, keyed, reading, tracker)
    if first is not None:
        return first
    asked = task_questions.parse(question, vocabulary, today)  # "overdue in sprint 3" before SPRINT #3
    # "when is it due?" about nothing asks which; "¿qué le han asignado a Ana?" names whose tasks it asks for
    if focus is None and not ids and not (asked and (asked.people or asked.mine)) \
            and followup.asks_about_one(question):
        return Route("clarify", intent=intent, missing="task", lang=lang)
    follow_up = focus is not None and not ids and followup.is_follow_up(question)
    pointing = focus is not None and not ids and followup.points_back(question)
    tasks_asked = tuple(r for r in ids if r[0] == "task")
    about = tasks_asked or ((focus,) if focus is not None and focus[0] == "task" and (follow_up or pointing)
                            else ())
    # A kind found by meaning yields to a tracker question the rules read whole ("¿qué tareas de Emma están
    # terminadas?" is near "blocked" to a Spanish MiniLM) and to a field of the record asked for ("who has
    # it?" is near the comments): the words of comments or blockers do not.
    by_meaning = asked is None and not _FIELD_ASKED.search(text) and not (ids and _CARD_ASKED.search(text))
    said = _SAID.search(text)
    speakers = tuple(task_questions.people_in(said.group("who") or said.group("quien"), vocabulary)) if said else ()
    if (_COMMENTS.search(text) or speakers or intent == "comments" and by_meaning) and not _TASKS_ASKED.search(text):
        found = _comments(question, text, focus, ids, about, vocabulary, intent, lang, speakers)
        if found is not None:
            return found
    if _BLOCKED.search(text) or _DEPENDS.search(text) and about and not _DEPENDED_ON.search(text) or intent == "blockers" and by_meaning:
        found = _blockers(question, text, ids, about, pointing, vocabulary, today, intent, lang)
        if found is not None:
            return found
    if follow_up and pointing:  # "is it overdue?" is about the focus, not a list
        return Route("follow_up", refs=(focus,), intent=intent, lang=lang)  # type: ignore[arg-type]
    if reading is not None and tracker is not None and not ids and edits.confident(reading) \
            and edits.names_its_subject(reading):  # read whole by the typed reader: it wins
        return _query(edits.compose(reading, tracker.lexicon, tracker.scope_project), intent, lang, text)
    guess = _lenient(reading, tracker) if not ids else None
    answered = _answered_guess(guess, intent, lang, text)
    if answered is not None:
        return answered
    lenient = guess.query if guess is not None else None
    if not ids and (group := comparisons.group_of(question)) is not None:
        return _compare(question, vocabulary, today, group, intent, lang)
    if asked is not None:
        return _tasks(text, asked, intent, lang)
    if ids:
        return Route("lookup", refs=tuple(ids), intent=intent, lang=lang)
    guessed = _guessed(question, text, vocabulary, today, intent, lang, open_question=not follow_up and not speakers)
    if guessed is not None:
        return guessed
    if follow_up:
        return Route("follow_up", refs=(focus,), intent=intent, lang=lang)  # type: ignore[arg-type]
    return Route("retrieve", intent=intent, lang=lang, query=lenient, guessed=lenient is not None)


def _lenient(reading: reader.Said | None, tracker: Tracker | None) -> Composed | None:
    """A tracker reading with a few words it did not understand ("give me the number of tickets tagged performance
    for the retro slide"), said as a guess: a count or a ranking, which no retrieved text can give, is answered by
    it; a list only when nothing retrieval finds covers the question (app/services/chat_evidence.py). Either
    answer says what it ran, so a misreading shows."""
    if reading is None or tracker is None or len(reading.unknown) > MAX_LENIENT \
            or set(reading.unknown) & task_questions.NEGATIONS or reading.named_unknown or not reading.asks_tasks \
            or any(_VALUE_LIKE.search(w) for w in reading.unknown) \
            or not edits.names_its_subject(reading) or not (reading.predicates or reading.returns):
        return None
    return edits.compose(reading, tracker.lexicon, tracker.scope_project)


def _answered_guess(guess: Composed | None, intent: Intent | None, lang: str, text: str) -> Route | None:
    """A guess answered by its query: a count or a ranking (no retrieved text can give one), or the question back
    when it names someone several people could be."""
    if guess is None:
        return None
    if guess.ambiguous:
        return _query(guess, intent, lang, text)
    if guess.query is not None and guess.query.returns in ("count", "points", "group"):
        return dataclasses.replace(_query(guess, intent, lang, text), guessed=True)
    return None


_VALUE_LIKE = re.compile(r"\d")  # "open w/ i18n count": a word with a digit is a value nobody here can see
MAX_LENIENT = 3  # words a tracker reading may leave unread and still answer when retrieval finds nothing


def _first(question: str, vocabulary: Vocabulary, intent: Intent | None, lang: str, ids: list[EntityRef],
           keyed: tuple[EntityRef, ...], reading: reader.Said | None, tracker: Tracker | None) -> Route | None:
    """What comes before every other rule: a scope request, a sprint or the projects asked about themselves, an
    unresolved key of a known project, and a follow-up that edits the last query ("and Ana's?")."""
    asked_scope = scope_requests.recognise(question, vocabulary, intent)
    last = tracker.last_query if tracker is not None and not ids else None
    follow_up = edits.with_last_fields(last, reading, tracker.lexicon) if last is not None and reading is not None \
        else None
    edits_last = follow_up is not None and edits.is_edit(follow_up)
    # "filtra por estado In Progress" narrows the last question; a scope request names a project
    if asked_scope is not None and not (edits_last and "project" not in follow_up.fields):
        return Route("scope", scope=asked_scope, intent=intent, lang=lang)
    if tracker is None or ids:
        return None
    about = _record_asked(question, keyed, tracker)
    if about is not None:
        return dataclasses.replace(about, intent=intent, lang=lang)
    if edits_last:
        return _query(edits.edit(last, follow_up, tracker.lexicon), intent, lang)
    return None


def _guessed(question: str, text: str, vocabulary: Vocabulary, today: dt.date, intent: Intent | None, lang: str,
             open_question: bool) -> Route | None:
    """A reading guessed from the question's kind by meaning: offline it answers, with an LLM the model is given it
    as context, not as the backbone, and may ask the query tool instead (guessed=True)."""
    if intent == "compare" and task_questions.slots(question, vocabulary, today, max_unknown=MAX_UNKNOWN + 1):
        dimension = comparisons.dimension_named(question)  # "most"/"fewest" are words no filter explains
        if dimension is None:
            return Route("clarify", intent=intent, missing="group", lang=lang)
        return dataclasses.replace(_compare(question, vocabulary, today, GroupBy(dimension), intent, lang),
                                   guessed=True)
    # what someone said about a topic ("¿qué dijo Chen sobre el almacén?") is not their task list, however
    # near "work" its meaning is
    if intent in ("work", "count") and open_question:
        asked = task_questions.slots(question, vocabulary, today, "count" if intent == "count" else "list",
                                     max_unknown=MAX_UNKNOWN)
        if asked is not None:
            return dataclasses.replace(_tasks(text, asked, intent, lang), guessed=True)
    return None


def _record_asked(question: str, keyed: tuple[EntityRef, ...], tracker: Tracker) -> Route | None:
    """A sprint or the projects asked about themselves (their cards), or a key of a known project that names no task
    the asker may see: the lookup answers it in one wording, hidden or missing, naming no other record."""
    keys = refs.key_mentions(question)
    prefixes = {p.external_key for p in tracker.lexicon.projects if p.external_key}
    unresolved = tuple(k for k in keys if k.rsplit("-", 1)[0] in prefixes) if keys and not keyed else ()
    if unresolved:
        return Route("lookup", missing_keys=unresolved)
    sprint = facts.sprint_asked(question, tracker.lexicon, tracker.scope_project)
    if sprint is not None:
        return Route("lookup", refs=(sprint,))
    projects = facts.projects_asked(question, tracker.lexicon)
    if projects:
        return Route("lookup", refs=projects)
    return None


def _query(composed: Composed, intent: Intent | None, lang: str, text: str = "") -> Route:
    """A typed query's route: ``compare`` for a ranking, ``tasks`` otherwise; or the question back."""
    if composed.ambiguous:
        return Route("clarify", intent=intent, missing="person", lang=lang, ambiguous=composed.ambiguous)
    if composed.query is None:
        return Route("clarify", intent=intent, missing="project", lang=lang)
    for match in _UNNAMED.finditer(text):  # "the sprint" it does not name: which? (a scoped project answers)
        missing: Missing = "sprint" if match.group("what") in ("sprint", "iteracion") else "project"
        if composed.query.first(missing) is None and composed.query.group_by != missing \
                and not (missing == "sprint" and composed.query.first("project")):
            return Route("clarify", intent=intent, missing=missing, lang=lang, query=composed.query)
    return Route(query_kind(composed.query), intent=intent, lang=lang, query=composed.query)


def query_kind(query: TrackerQuery) -> RouteKind:
    """A typed query's route: ``compare`` for a ranking, ``tasks`` otherwise."""
    return "compare" if query.returns == "group" else "tasks"


def _tasks(text: str, asked: TaskQuestion, intent: Intent | None, lang: str) -> Route:
    """The tracker question, or the question back when it points at a sprint or project it does not name."""
    for match in _UNNAMED.finditer(text):
        missing: Missing = "sprint" if match.group("what") in ("sprint", "iteracion") else "project"
        if getattr(asked, missing) is None:
            return Route("clarify", tasks=asked, intent=intent, missing=missing, lang=lang)
    return Route("tasks", tasks=asked, intent=intent, lang=lang)


def _comments(question: str, text: str, focus: EntityRef | None, ids: list[EntityRef], about: tuple[EntityRef, ...],
              vocabulary: Vocabulary, intent: Intent | None, lang: str,
              speakers: tuple[Person, ...] = ()) -> Route | None:
    """The comments of the tasks asked about, of the focus when the question names nothing else, or the
    question back (whose comments?); None: the question names a topic of its own (retrieval reads it)."""
    authors = tuple(task_questions.people_in(question, vocabulary))
    # What the question names besides comments, their authors and "the latest": nothing means the focus's.
    topic = followup.own_topic(_COMMENTS.sub(" ", text)) - _LATEST_STEMS - {
        terms.stem(w) for p in authors for w in terms.words(terms.fold(p.name))}
    if not about and focus is not None and focus[0] == "task" and not ids and not topic:
        about = (focus,)  # "¿quién más comentó?", "¿qué comentó Diego?"
    if about:
        return Route("comments", refs=about, intent=intent, people=authors, lang=lang)
    # With no task to point at, a question asked only by what someone said that names another person is about
    # something of theirs, not about comments ("what did Ana say in her 1:1 with Maria?": a document's).
    said_about = speakers and not _COMMENTS.search(text) and set(authors) - set(speakers)
    if (_COMMENTS.search(text) or speakers) and not ids and not topic and not said_about:
        return Route("clarify", intent=intent, missing="task", lang=lang)
    return None


def _blockers(question: str, text: str, ids: list[EntityRef], about: tuple[EntityRef, ...], pointing: bool,
              vocabulary: Vocabulary, today: dt.date, intent: Intent | None, lang: str) -> Route | None:
    """What blocks the tasks asked about (or the focus), or the blocked tasks the question's filters name;
    None: it names a topic no filter explains ("what's blocking the refund flow?": retrieval)."""
    tasks_asked = tuple(r for r in ids if r[0] == "task")
    if tasks_asked or (about and (pointing or not _LIST_ASKED.search(text))):
        return Route("blockers", refs=about, intent=intent, lang=lang)
    filters = task_questions.slots(question, vocabulary, today, default_mine=False) if not ids else None
    understood = {terms.stem(w) for phrase in (filters.words if filters else ()) for w in terms.words(phrase)}
    if filters is not None and not followup.own_topic(question) - _FILTER_STEMS - understood:
        return Route("blockers", tasks=filters, intent=intent, lang=lang)
    return None


# Words a blockers question may hold beside "blocked" and still be about the list: "what is blocked in
# the payments project?", "which tasks are stuck?".
_FILTER_STEMS = frozenset(terms.stem(w) for w in (*task_questions.TASK_NOUNS, "right", "now", "currently",
                                                 "project", "proyecto", "sprint", "stuck", "atascadas"))


def _compare(question: str, vocabulary: Vocabulary, today: dt.date, group: GroupBy, intent: Intent | None,
             lang: str) -> Route:
    filters = task_questions.slots(question, vocabulary, today, default_mine=False, default_open=False)
    if filters is None:  # "… not assigned to me": no filter says that
        return Route("retrieve", intent=intent, lang=lang)
    return Route("compare", tasks=filters, group=group, intent=intent, lang=lang)


def said_in_a_document(question: str, asked: TaskQuestion, hits: Sequence[SearchHit]) -> bool:
    """A tracker reading whose other words a retrieved document holds, with the people it names ("what does
    Ana want to lead?": the 1:1 notes say "Ana wants to lead …") asks what the document says, not for a list:
    a person's name does not make a question about their tasks."""
    understood = {terms.stem(w) for phrase in asked.words for w in terms.words(phrase)}
    rest = terms.topic_stems(question) - understood - _TASK_NOUN_STEMS
    if not asked.people or len(rest) < MIN_SAID:  # one odd word ("team") a document also uses proves nothing
        return False
    named = {terms.stem(w) for p in asked.people for w in terms.words(p.name)}
    wanted = rest | (named & terms.topic_stems(question))
    return any(h.source_type == "doc" and wanted <= terms.text_stems(h.content) for h in hits)


_TASK_NOUN_STEMS = frozenset(terms.stem(w) for w in task_questions.TASK_NOUNS)
MIN_SAID = 2  # words beyond the filters a document must hold ("want", "lead")
