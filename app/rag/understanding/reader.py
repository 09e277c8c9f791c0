"""The reader: a question in English or Spanish -> what it says of the tracker (``Said``), with the tracker's own
values (app/rag/understanding/lexicon.py) and the small glossary of field words (glossary.py). Pure: no I/O.

The reader is lenient: greetings, thanks and filler change nothing, and a word that is neither understood nor a
topic is ignored; it is honest about what it did not understand (``unknown``), so the caller can tell a confident
reading from a guess. What it reads is a set of parts — predicates and what to return — that ``compose`` turns into
a TrackerQuery on its own, or that app/rag/understanding/edits.py applies to the conversation's last query.
"""

from __future__ import annotations

import datetime as dt
import re

from app.rag import refs, task_questions as tq, terms
from app.rag.understanding import clauses, dates, glossary as g, spelling, values
from app.rag.understanding.lexicon import Lexicon, PersonFact, person_mentions
from app.rag.understanding.query import Predicate
from app.rag.understanding.said import KNOWN, Said
from app.rag.understanding.spans import Spans, blanked

__all__ = ["Said", "read"]


def read(question: str, lexicon: Lexicon, asker_id: int, today: dt.date) -> Said | None:
    """What the question says; None when it asks for a record by id or key (a lookup reads it) or says "not
    mine" (no predicate expresses it). Words it does not understand in a clause that only tells the asker's
    situation (app/rag/understanding/clauses.py) are read again as that: its values count, nothing else. A word
    typed one slip from a word of the glossary is read as that word (spelling.py)."""
    question = spelling.corrected(question, spelling.data_words(lexicon))
    said = _read(question, lexicon, asker_id, today, ())
    if said is None or not said.unknown and not clauses.gives_reason(terms.fold(question)):
        return said
    topics = tuple(str(p.values[0]) for p in said.predicates if p.field == "text")
    situation = clauses.situation(terms.fold(question), said.unknown, question, topics)
    return _read(question, lexicon, asker_id, today, situation) if situation else said


def _read(question: str, lexicon: Lexicon, asker_id: int, today: dt.date,
          situation: list[tuple[int, int]]) -> Said | None:
    spans = Spans(terms.fold(question))
    said = Said(terms.language(question), it=bool(_IT.search(spans.text)), original=question)
    spans.find(g.PLEASANTRIES)
    spans.find_pattern(g.STRETCHED_GREETING)
    spans.find_pattern(g.TAKEN_BACK)  # "open bugs, I mean issues": the word taken back says nothing
    if any(t in ("task", "doc") for t, _ in refs.mentions(spans.text)) or refs.key_mentions(question):
        return None
    if spans.find(tq.NOT_MINE):
        return None
    around = _situation_values(spans, said.lang, lexicon, situation)
    said.any_state = bool(spans.find_pattern(g.ANY_STATE))  # "not just open ones" before "just" narrows
    _edit_markers(spans, said)
    points = bool(spans.find(g.POINTS))  # "story points" before the issue type Story
    spans.find(g.WHO_ELSE)  # "¿quién más ha comentado?" is "who else", no ranking
    dates.read_dates(spans, said, today)  # "created last month" is a window before "created last" is an order
    spans.find_pattern(g.TIE_BREAK)  # the engines' own tie-break, said before the order's words are read
    _orders(spans, said)  # "highest priority" orders before "highest" is read as a priority
    if spans.find_pattern(g.EVERY_KIND):
        said.noun = said.asks_tasks = True
    values.read_values(spans, said, lexicon)
    _people(spans, said, lexicon, asker_id, blanked(spans.text, situation))  # the question without its situation
    _returns(spans, said, points)
    values.task_said_as_type(spans, said, lexicon)
    _flags(spans, said, today)
    dates.read_relative_sprint(spans, said)
    _nouns(spans, said)
    said.unknown = spans.unknown(KNOWN, tq.NEGATIONS | {"isn't", "aren't", "isnt", "arent", "doesn't", "don't"})
    said.named_unknown = _named_unknown(said, spans)
    _topics(said)
    _add_situation(said, around)
    # "¿y la Wave 2?": "la" before a value the question names is its article, not "it"
    said.it = said.relative_sprint is None and any(  # "the sprint before that one" is no "it"
        spans.free((match.end() - 1, match.end())) for match in _IT.finditer(spans.text))
    if (said.noun or "issue_type" in said.fields) and said.fields & _NAMED_VALUES:  # "0.12.0 — what bugs hit it?"
        said.it = False
    if not said.fragment and not spans.says(g.ASKING_WORDS) and not said.noun and not said.returns \
            and not said.order and said.fields and said.fields <= _NAMED_VALUES | {"assignee", "reporter"}:
        # "Portal de Clientes LATAM?": a long name alone is a fragment of the last question
        said.fragment = len(spans.free_words()) <= 3
    return said


def _situation_values(spans: Spans, lang: str, lexicon: Lexicon, situation: list[tuple[int, int]]) -> Said:
    """The values of the data and the people the situation's clauses name, read on their own; then those clauses
    are taken whole, so nothing else of them is read."""
    around = Said(lang)
    if not situation:
        return around
    inside = Spans(spans.text, [*spans.taken, *_gaps(len(spans.text), situation)])
    for phrases in g.ORDER_WORDS.values():  # "la de mayor prioridad" is an order's words, not the priority Major
        inside.find(phrases)
    values.read_values(inside, around, lexicon)
    values.task_said_as_type(inside, around, lexicon)
    around.predicates = [p for p in around.predicates  # "a customer keeps complaining": no project by one word
                         if p.field != "project" or not any(inside.text[a:b] for a, b in around.loose_spans)]
    _named_people(inside, around, lexicon)
    for span in situation:
        spans.taken = [t for t in spans.taken if t[1] <= span[0] or t[0] >= span[1]]
        spans.take(span)
    return around


def _add_situation(said: Said, around: Said) -> None:
    """What the situation names that the question does not ("Alex is overloaded; how many open issues are on their
    plate?"): a field the question names itself keeps the question's value."""
    for predicate in around.predicates:
        if predicate.field not in said.fields and not (predicate.field == "assignee" and said.mine):
            said.add(predicate)
            said.asks_tasks = True
    if not said.people and not said.mine:
        said.people = around.people


def _gaps(length: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Everything of a text of ``length`` outside ``spans``."""
    gaps, start = [], 0
    for begin, end in sorted(spans):
        if begin > start:
            gaps.append((start, begin))
        start = max(start, end)
    return [*gaps, (start, length)] if start < length else gaps


def _named_unknown(said: Said, spans: Spans) -> bool:
    """Whether a word the reader did not know is written as part of a name ("Won't Fix", "Data model" where the
    asker sees no such value): a value nobody here can see, which no guess may read as something else. A name
    the reader knows whole beside it ("where HRB hurts most") is no such sign; one word of a project's name is."""
    words = list(re.finditer(r"[\w'\u2019-]+", said.original))
    aligned = len(spans.text) == len(said.original)  # folding kept every offset (no ligature, no "ß")

    def named(i: int) -> bool:
        word = words[i]
        opens = not said.original[:word.start()].rstrip() or said.original[:word.start()].rstrip()[-1] in ".!?¿¡:;"
        if opens or not word.group()[0].isupper() or word.group() == "I":  # a sentence's first word is capitalised
            return False
        return not aligned or spans.free(word.span()) or any(
            s <= word.start() and word.end() <= e for s, e in said.loose_spans)

    unknown = set(said.unknown)
    return any(terms.fold(w.group()) in unknown and (named(i) or i > 0 and named(i - 1)
                                                      or i + 1 < len(words) and named(i + 1))
               for i, w in enumerate(words))


_NAMED_VALUES = {"fix_version", "affects_version", "component", "label", "project", "sprint"}


def _topics(said: Said) -> None:
    """A word nothing understood but written as a name inside a question about tasks ("list the open Backoffice
    tasks") is a topic: the tasks must mention it (a text predicate), never dropped."""
    if not said.asks_tasks or values.QUOTED.search(said.original):
        return
    # the first word of each sentence is capitalised anyway ("… 2.0.0? Solo el número, gracias")
    body = re.sub(r"(?:^|[.!?\u00bf\u00a1:;]\s*)[\W\d_]*\w+", " ", said.original)
    named = {terms.fold(w) for w in re.findall(r"(?<![\w-])[A-Z][\w-]*", body)}
    held = set(_HELD.findall(terms.fold(said.original)))  # "tickets con platform": the value they carry
    for word in [w for w in said.unknown if w in named or w in held]:
        said.predicates.append(Predicate("text", (word,)))
        said.fields.add("text")
        said.unknown.remove(word)


_HELD = re.compile(r"(?<![\w-])(?:with|con|tagged|labell?ed|etiquetad[oa]s?)\s+([\w-]+)")


# One thing already said: "it", "that one", "¿quién lo tiene?", "¿para cuándo hay que tenerla?".
_IT = re.compile(r"(?<![\w-])(?:it|its|it's|(?:this|that) (?:one|task|ticket|issue)|(?<!de )eso|ello|"
                 r"(?:esa|esta|ese|este) (?:tarea|ticket|incidencia))(?![\w-])"
                 r"|(?:^|[¿¡]|(?<![\w-])(?:quien|que|y|ya|cuando|como|alguien|nadie|mas))\s*(?:lo|la|le)\s+"
                 r"(?!que\b|mas\b|mism)\w|(?<![\w-])\w{2,}(?:ar|er|ir)(?:lo|la)(?![\w-])")


def _edit_markers(spans: Spans, said: Said) -> None:
    body = spans.after_greetings().strip(" ¿?¡!.,")  # "thanks! same for Pavel": the opener after the thanks
    if spans.find(g.LIST_AGAIN) or spans.find_pattern(g.LIST_AGAIN_WORD):
        said.list_again = said.edit = True
    for taken_on in g.TAKEN_ON.finditer(spans.text):
        spans.take(taken_on.span("it"))
    if spans.find(g.THOSE):
        said.those = said.edit = True
        # "pásame esas mismas", "show me those": the last question's rows, listed
        said.list_again = said.list_again or bool(spans.find(g.GIVE_ME))
    correction = g.CORRECTION.match(body)
    if correction is not None and correction.end() > 0:
        said.edit = True
        start = spans.text.index(body)
        spans.take((start, start + correction.end()))
        body = body[correction.end():]
    said.fragment = len(terms.words(body)) <= 3 and not spans.says(g.ASKING_WORDS)
    rest = body
    while (opener := _opener(rest)) is not None:  # "y solo las críticas?": one opener after another
        said.edit = True
        spans.find((opener,))
        rest = rest[len(opener):].lstrip(" ,")
    if spans.find(("instead", "en su lugar", "en vez de eso")):  # "previous sprint instead"
        said.edit = True
    narrowed = spans.find(g.NARROW) or spans.find_pattern(g.NARROW_VERB)  # "keep only …" before "only" alone
    only = [span for _, span in spans.find(g.ONLY) if not _NOT_NARROWING.match(spans.text[span[1]:])
            and not _NOT_ONLY.search(spans.text[:span[0]])]
    if only or narrowed:  # "the high ones only", "las altas nada más" (not "just sitting there")
        said.edit = True


_NOT_NARROWING = re.compile(r"\s+(?:\w+ing|there|about|a|like|wondering|curious|checking|the number|the count|"
                            r"the figure|the total|el numero|la cifra|el total)\b")
_NOT_ONLY = re.compile(r"(?<![\w-])(?:not|no)\s+$")  # "not just open ones": every state, no narrowing


def _opener(body: str) -> str | None:
    return next((o for o in _OPENERS if body.startswith(o + " ") or body == o), None)


_OPENERS = sorted(g.EDIT_OPENERS, key=len, reverse=True)  # the longest first: "and what about" before "and"


def _people(spans: Spans, said: Said, lexicon: Lexicon, asker_id: int, asked: str) -> None:
    """The people named, as assignees or reporters; else the asker's own work when the question (``asked``: the
    text without its situation) says so in the first person."""
    _named_people(spans, said, lexicon)
    for asked_for_me in tq.FOR_ME_ASKED.finditer(spans.text):
        spans.take(asked_for_me.span("me"))
    if not said.people and spans.find(tq.MINE_PHRASES) or not said.people and tq.says_i(asked):
        said.mine = True
        said.add(Predicate("assignee", (asker_id,)))


def _named_people(spans: Spans, said: Said, lexicon: Lexicon) -> None:
    by_span: dict[tuple[int, int], list[PersonFact]] = {}
    for mention in person_mentions(spans.text, lexicon):
        person = lexicon.person(mention.value)
        if person is not None and spans.free(mention.span):
            by_span.setdefault(mention.span, []).append(person)
    for span, people in sorted(by_span.items(), key=lambda item: (item[0][0] - item[0][1], item[0][0])):
        if not spans.take(span):
            continue
        role = "reporter" if spans.before(span, (*g.REPORTER_BEFORE, *g.REPORTER_VERB_FIRST), gap=1) or spans.after(
            span, g.REPORTER_AFTER, gap=1) or spans.before(span, ("did", "does", "has", "have"), gap=1) \
            and spans.after(span, g.REPORTER_VERBS, gap=1) else "assignee"
        said.people.append(people)
        said.asks_tasks = said.asks_tasks or role == "reporter"
        if len(people) == 1:
            values.add_value(said, role, people[0].employee_id)
    reporter = any(p.field == "reporter" for p in said.predicates)
    spans.find((*g.REPORTER_BEFORE, *(g.REPORTER_VERB_FIRST if reporter else ())))


def _returns(spans: Spans, said: Said, points: bool) -> None:
    """Count, points, a group-by, an order with its limit."""
    fewest = bool(spans.find(g.FEWEST))
    loaded = bool(spans.find(g.LOADED))
    most = fewest or loaded or _more_than_any(spans) or bool(spans.find(g.MOST))
    group = _group_field(spans, said, per=not most)
    if group is not None and (most or group[1]):
        said.returns, said.group_by, said.ascending, said.asks_tasks = "group", group[0], fewest, True
    if loaded:
        said.add(Predicate("open", (True,)))
    if points:
        said.measure_points = said.returns == "group"
        said.returns = "group" if said.returns == "group" else "points"
        said.asks_tasks = True
        spans.find(g.COUNT)  # "¿cuántos puntos quedan?": the figure asked is the points
    elif (spans.find(g.COUNT) or _numero(spans, said.original)) and said.returns != "group":
        said.returns, said.asks_tasks = "count", True


def _numero(spans: Spans, original: str) -> bool:
    """"nº de" as typed (on the question as typed: folding reads "nº" as "no"); every one is taken."""
    return len(original) == len(spans.text) and any([spans.take(m.span()) for m in g.NUMERO.finditer(original)])


def _orders(spans: Spans, said: Said) -> None:
    """An order with a limit of one: a date's verb and a superlative, else the glossary's order words."""
    _date_order(spans, said)
    for (order, descending), phrases in g.ORDER_WORDS.items():
        if said.order is None and spans.find(phrases):
            said.order, said.limit, said.asks_tasks = (order, descending), 1, True
    if said.order is None and spans.find_pattern(g.PRIORITY_FIRST):
        said.order, said.limit, said.asks_tasks = ("priority", True), 1, True
    # "highest priority and soonest deadline": priority first, the due date breaks its ties (the engines' order)
    if said.order == ("due", False) and spans.find(g.ORDER_WORDS[("priority", True)]):
        said.order = ("priority", True)
    if said.order is not None:  # the order said twice ("la más importante, la de mayor prioridad") is one order
        spans.find(g.ORDER_WORDS.get(said.order, ()))


def _date_order(spans: Spans, said: Said) -> None:
    """An order said as a date's verb and a superlative at most three words apart, either way round ("se creó más
    recientemente", "the last one closed"): the newest or oldest by that date."""
    for name, verb in g.ORDER_VERBS.items():
        for said_verb in (m for m in verb.finditer(spans.text) if spans.free(m.span())):
            for descending, superlative in g.SUPERLATIVE.items():
                for word in superlative.finditer(spans.text):
                    between = spans.text[min(word.end(), said_verb.end()):max(word.start(), said_verb.start())]
                    if not spans.free(word.span()) or len(terms.words(between)) > 3 or _CLAUSE_MARK.search(between) \
                            or g.MODAL.search(between) or g.NOT_AN_ORDER_AFTER.match(spans.text[word.end():]):
                        continue
                    spans.take(word.span())
                    spans.take(said_verb.span())
                    said.order, said.limit, said.asks_tasks = (name, descending), 1, True
                    return


_CLAUSE_MARK = re.compile(r"[,.;:?!\u00bf\u00a1]")  # a verb and a superlative in two clauses make no order


def _more_than_any(spans: Spans) -> bool:
    """"more … than any other" (its words on either side of the values it ranks) is "the most"."""
    said = g.MORE_THAN_ANY.search(spans.text)
    if said is None or not (spans.free(said.span("more")) and spans.free(said.span("than"))):
        return False
    return spans.take(said.span("more")) and spans.take(said.span("than"))


def _group_field(spans: Spans, said: Said, per: bool) -> tuple[str, bool] | None:
    """(field, said with "per"/"by") of a group-by: "which component …", "who reported …", "per status"."""
    for name, words in g.GROUP_FIELD_WORDS.items():
        for phrase, span in spans.find(words):
            if name == "assignee" and spans.says(g.REPORTER_AFTER):  # "which person reported most of …?"
                name = "reporter"
            if name == "status" and spans.after(span, tq.STATUS_PHRASES):  # "filtra por estado In Progress"
                continue
            if spans.before(span, g.GROUP_MARKERS, gap=2):
                return name, True
            if not per and (spans.before(span, ("which", "what", "que", "cual", "cuales", "in which", "en que",
                                                *g.MOST, *g.FEWEST), 2) or _which_before(spans, span)
                            or spans.after(span, g.WITH_MOST, 8) or spans.before(span, g.AMONG, 1)):
                return name, False
            spans.taken.remove(span)  # a field word that groups nothing is read again as a field word
    for said_wise in (m for m in g.FIELD_WISE.finditer(spans.text) if spans.free(m.span())):
        name = next((n for n, words in g.GROUP_FIELD_WORDS.items() if said_wise.group("field") in words), None)
        if name is not None and spans.take(said_wise.span()):
            return name, True
    if not per and spans.find(g.WHERE):  # a tracker's "where" is a project ("where are the most late tasks?")
        return "project", False
    if not per and spans.find(g.REPORTER_WORDS):  # "who reported the most?", "¿quién abrió más?"
        return "reporter", False
    for _, span in spans.find(g.WHO) if not per else ():
        if spans.after(span, (*g.REPORTER_AFTER, *g.REPORTER_VERBS), gap=2) \
                or spans.after(span, g.REPORTER_AFTER, gap=5):  # "who has filed the most …?", "who's the one that opened"
            spans.find((*g.REPORTER_AFTER, *g.REPORTER_VERBS))
            return "reporter", False
        if spans.find_pattern(g.REPORTS):  # "who reports the most?"
            return "reporter", False
        if spans.before(span, ("by", "por"), gap=1) and spans.find(g.REPORTER_AFTER):  # "by whom … been raised"
            return "reporter", False
        return "assignee", False
    return None


_WHICH = re.compile(r"(?<![\w-])(?:which|what|que|cual|cuales)(?![\w-])")


def _which_before(spans: Spans, span: tuple[int, int]) -> bool:
    """"which Data Warehouse Migration component …": "which" before the field word, a value between them."""
    asked = list(_WHICH.finditer(spans.text[:span[0]]))
    if not asked:
        return False
    between = [m for m in spans.free_words() if asked[-1].end() <= m.start() and m.end() <= span[0]]
    return len(between) <= 1


def _flags(spans: Spans, said: Said, today: dt.date) -> None:
    """Open / finished, overdue, unassigned, unresolved, blocked, status and priority by the glossary's words; "in
    any state" said outright leaves the state out."""
    if spans.find_pattern(g.NOT_DONE):
        said.add(Predicate("open", (True,)))
    _state_flags(spans, said, today)
    if spans.find(g.CURRENTLY) and not said.fields & {"open", "status", "status_name", "resolution"}:
        said.add(Predicate("open", (True,)))  # "assigned to Leonie right now": the work she holds
    if said.order == ("priority", True) and not said.any_state \
            and not said.fields & {"open", "status", "status_name", "resolution"}:
        said.add(Predicate("open", (True,)))  # "my most important issue": of the work not finished
    if said.any_state:
        said.predicates = [p for p in said.predicates if p.field not in ("open", "status")]
        said.fields -= {"open", "status"}
        said.asks_tasks = True


def _state_flags(spans: Spans, said: Said, today: dt.date) -> None:
    for match in tq.POINTS_TO_DO.finditer(spans.text):  # "points still to do", "puntos por hacer": not the status
        if spans.take(match.span("todo")):
            said.add(Predicate("open", (True,)))
    if spans.find((*tq.TO_DO_VERBS, *g.OPEN_WORK)) or spans.find(tq.OPEN_NEGATED) or spans.find(g.UNRESOLVED):
        said.add(Predicate("open", (True,)))
    for match in tq.OVERDUE_SAID.finditer(spans.text):
        if spans.take(match.span()):
            said.add(Predicate("overdue", (today,)))
    for name, empty in g.EMPTY_FIELD.items():
        if name not in said.fields and spans.find_pattern(empty):
            said.add(Predicate("open", (True,)) if name == "resolution" else Predicate(name, (None,)))  # type: ignore[arg-type]
            said.asks_tasks = True
            said.mine = said.mine and name != "assignee"
    if spans.find((*tq.UNASSIGNED_PHRASES, *g.UNASSIGNED)):
        said.add(Predicate("assignee", (None,)))
        said.mine = False
    if spans.find(tq.OVERDUE_PHRASES):
        said.add(Predicate("overdue", (today,)))
    for match in tq.DONE_SAID.finditer(spans.text):
        span = match.span("verb") if match.group("verb") else match.span("wrap")
        if spans.take(span):
            said.add(Predicate("status", ("DONE",)))
    statuses = {k: v for k, v in tq.STATUS_PHRASES.items() if k != "todo" or said.lang != "es"}
    for match in _ASKER_DOING.finditer(spans.text):  # "estoy revisando el área BI": the asker's doing, no status
        if match.group("doing") in statuses:
            spans.take(match.span("doing"))
    for phrase, _ in spans.find(statuses):
        said.add(Predicate("status", (statuses[phrase],)))
    for phrase, _ in spans.find(tq.PRIORITY_PHRASES):
        values.add_value(said, "priority", tq.PRIORITY_PHRASES[phrase])
    for phrase, _ in spans.find(g.PRIORITY_NAMES):  # after the returns: "the highest number of …" is no priority
        values.add_value(said, "priority", g.PRIORITY_NAMES[phrase])
    if spans.find(g.BLOCKED):
        said.add(Predicate("blocked", (True,)))
        if "status" not in said.fields:  # what is held up is work not finished
            said.add(Predicate("open", (True,)))
    if spans.find(tq.OPEN_PHRASES):
        said.add(Predicate("open", (True,)))
    spans.find(tq.HOLDING)
    spans.find(tq.PERSON_MARKERS)
    if said.fields & {"status", "status_name"} and "open" in said.fields:  # "what's done on my plate?", "left in
        said.predicates = [p for p in said.predicates if p.field != "open"]  # Closed": the status said wins
        said.fields.discard("open")
    flags = {"open", "status", "overdue", "due", "blocked"}
    if flags & said.fields or (said.people or said.mine) and "priority" in said.fields or \
            any(p.field == "assignee" and p.values == (None,) for p in said.predicates):
        said.asks_tasks = True


_ASKER_DOING = re.compile(r"(?<![\w'-])(?:estoy|estamos|ando|andamos|i['\u2019]?m|i am|we['\u2019]re|we are)"
                          r"\s+(?P<doing>[\w-]+)")


def _nouns(spans: Spans, said: Said) -> None:
    if spans.find(("ones", "unas", "unos")):  # "minor ones only": the last question's, no noun of its own
        said.asks_tasks = True
    if spans.find(tq.TASK_NOUNS) or spans.find(("bugs", "bug", "tix", "tkts", "tickets", "incidencias")):
        said.asks_tasks = said.noun = True
    spans.find(tq.IDIOMS)
    values.unseen_values(spans, said)
    for words in g.FIELD_WORDS.values():
        spans.find(words)
    spans.find(g.REPORTER_WORDS)
    spans.find(g.REPORTER_AFTER)
    if "reporter" in said.fields:
        spans.find(g.REPORTER_VERBS)
