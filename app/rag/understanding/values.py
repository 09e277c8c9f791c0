"""The reader's step for values: the projects, sprints and field values the question names, read from the tracker's
own data (lexicon.py), given to the field the words around them name; and a value said with its field word that no
visible task holds (``unseen_values``). Pure: no I/O."""

from __future__ import annotations

import re
import string

from app.rag import task_questions as tq, terms
from app.rag.understanding import glossary as g
from app.rag.understanding.lexicon import Lexicon, Mention, project_mentions, sprint_mentions, value_mentions
from app.rag.understanding.query import Predicate
from app.rag.understanding.said import KNOWN, Said
from app.rag.understanding.spans import Spans


def read_values(spans: Spans, said: Said, lexicon: Lexicon) -> None:
    """Projects, sprints and field values the data holds, each given to the field the words around it name; the
    longest said first ("component Payments core" before the project Payments Platform's word "payments"), and
    between two said alike, the one a field word names ("etiqueta platform": the label, not the project)."""
    by_span: dict[tuple[int, int], list[Mention]] = {}
    for mention in value_mentions(spans.text, lexicon):
        by_span.setdefault(mention.span, []).append(mention)
    named = [(m.span, [m]) for m in project_mentions(spans.text, lexicon) + sprint_mentions(spans.text, lexicon)]

    def first(item: tuple[tuple[int, int], list[Mention]]) -> tuple[int, bool, bool]:
        span, mentions = item
        return -(span[1] - span[0]), not any(
            spans.before(span, g.FIELD_WORDS[m.field], gap=2) or spans.after(span, g.FIELD_WORDS[m.field])
            for m in mentions if m.field in g.FIELD_WORDS), _by_one_word(mentions[0], lexicon)

    for span, mentions in sorted([*named, *by_span.items()], key=first):
        if mentions[0].field in ("project", "sprint"):
            loose = _by_one_word(mentions[0], lexicon)
            if loose and any(  # "with the label platform": a label, seen or not
                    spans.before(span, g.FIELD_WORDS[name], gap=1) or spans.after(span, g.FIELD_WORDS[name], gap=2)
                    for name in _UNSEEN_FIELDS):  # "the Data model component": not the project Data Warehouse
                continue
            if loose and spans.before(span, g.HOLDING_VALUE, gap=1):
                continue  # "tickets con platform": the value they carry, not a word of a project's name
            if spans.take(span):
                add_value(said, mentions[0].field, mentions[0].value)
                if loose:
                    said.loose_spans.append(span)
            continue
        chosen = _field_of(spans, span, mentions, lexicon, said.original)
        if chosen is not None and spans.free(span) and _worth_taking(spans, chosen, said.original):
            spans.take(span)
            name = _version_field(spans, span, chosen.field, _held_as(lexicon, chosen.value))
            add_value(said, name, chosen.value)
            if name == "fix_version" and (_fixed_verb(spans, span) or spans.before(span, g.FIXED_IN, gap=2)
                                         and bool(spans.find(g.FIXED_IN))):
                said.add(Predicate("open", (False,)))  # "fixed in it": its finished work (not "fix version")
            spans.find(g.FIELD_WORDS[name])  # "closed as Won't Fix" says no status of its own
            said.asks_tasks = True
    _field_words(spans, said, lexicon)


def _by_one_word(mention: Mention, lexicon: Lexicon) -> bool:
    """A project named by one word of its name (or that word's twin), not by its name or key: a value said whole
    is read first ("platform: how many tasks?" is the label platform where one is stored)."""
    if mention.field != "project":
        return False
    project = lexicon.project(mention.value)
    return project is not None and mention.said not in (terms.fold(project.name), terms.fold(project.external_key or ""))


def _fixed_verb(spans: Spans, span: tuple[int, int], take: bool = True) -> bool:
    """Whether a verb of fixing stands at most three words before a version ("se arreglaron en la versión 1.8.0");
    its words are taken (understood) unless only looked at."""
    verbs = [m for m in g.FIXED_VERB.finditer(spans.text[:span[0]]) if spans.free(m.span())]
    if not verbs or len(terms.words(spans.text[verbs[-1].end():span[0]])) > 3:
        return False
    return spans.take(verbs[-1].span()) if take else True


def _field_of(spans: Spans, span: tuple[int, int], mentions: list[Mention], lexicon: Lexicon,
              original: str) -> Mention | None:
    """The field a value belongs to: the one whose field word stands next to it, else the one most tasks use."""
    for mention in mentions:
        if spans.before(span, g.FIELD_WORDS[mention.field], gap=2) or spans.after(span, g.FIELD_WORDS[mention.field]):
            return mention
    fixed = next((m for m in mentions if m.field == "fix_version"), None)
    if fixed is not None and (spans.before(span, g.FIXED_IN, gap=2) or _fixed_verb(spans, span, take=False)):
        return fixed  # "se arreglaron en la 1.4.0": where the work was fixed, however many bugs it affects
    area = next((m for m in mentions if m.field == "component"), None)
    if area is not None and spans.before(span, ("in", "en", "under", "within", "dentro de"), gap=1):
        return area  # "open issues in docs": an area holds issues; a label is carried ("tagged docs")
    as_written = [m for m in mentions if _as_stored(m, original)]  # "and Bug?": the type Bug, not the label bug
    if len(as_written) == 1:
        return as_written[0]
    return max(mentions, key=lambda m: lexicon.counts.get((m.field, m.value), 0))  # type: ignore[arg-type]


def _worth_taking(spans: Spans, mention: Mention, original: str) -> bool:
    """A value that is also a common word ("open", "done", "critical", "in progress") is the glossary's unless a
    field word says it is the value ("status Open", "label critical") or it is written as the tracker writes it
    ("how many issues of LMN are Closed?": the tracker's status Closed, not every finished issue)."""
    if mention.field == "priority_name":
        return True  # the tracker's own priorities are the words for priority ("minor" is its Minor, not LOW)
    said = mention.said
    common = said in terms.STOP or said in tq.FILLER or said in tq.STATUS_PHRASES or said in tq.OPEN_PHRASES \
        or said in tq.PRIORITY_PHRASES or said in tq.TASK_NOUNS or said in g.CLOSED
    return not common or _as_stored(mention, original) or spans.before(mention.span, g.FIELD_WORDS[mention.field], gap=2)


def _as_stored(mention: Mention, original: str) -> bool:
    """Whether the question writes the value as the tracker stores it, capitals and all ("are Closed?", "Bug",
    "Closed in TLY, how many"); a sentence's first word before a noun is capitalised whatever it is ("Open issues
    with label X, please.")."""
    value = str(mention.value)
    return value != value.lower() and any(
        not (_opens_sentence(original[:m.start()]) and _NOUN_AFTER.match(original[m.end():]))
        for m in re.finditer(rf"(?<![\w-]){re.escape(value)}(?![\w-])", original))


def _opens_sentence(before: str) -> bool:
    before = before.rstrip()
    return not before or before[-1] in ".!?:;\u00bf\u00a1"


_NOUN_AFTER = re.compile(r"\s+(?:{})\b".format("|".join(re.escape(n) for n in (*tq.TASK_NOUNS, "bugs", "bug"))),
                         re.IGNORECASE)


def _held_as(lexicon: Lexicon, value: object) -> set[str]:
    return {name for name in ("fix_version", "affects_version") if value in lexicon.values.get(name, ())}


def _version_field(spans: Spans, span: tuple[int, int], name: str, held_as: set[str]) -> str:
    """A version said with "affects"/"found in" is an affected version, whatever field it was found in; one said
    with no field word at all, of bugs ("known bugs in 2.9.0", "errores de la 3.0"), is where they were found.
    "Against" alone says nothing of the field: "open against Wave 3" is a fix version where the data has no other."""
    if name in ("fix_version", "affects_version"):
        if spans.before(span, g.RELEASE_WORDS, gap=1):  # "open against release 3.1.1" (not "affect version 1.7")
            return "fix_version"
        strong = [w for w in g.FIELD_WORDS["affects_version"] if w not in _AGAINST] if held_as == {"fix_version"} \
            else g.FIELD_WORDS["affects_version"]
        if spans.before(span, strong, gap=4) or spans.after(span, strong, gap=4):
            return "affects_version"
        found_in = spans.says(g.BUG_WORDS) and not spans.says(g.FIXED_IN) and not g.FIXED_VERB.search(spans.text) \
            and not spans.before(span, ("for", "para", "para la", "para el", "for version", "para la version"), gap=1)
        fix_words = [w for w in g.FIELD_WORDS["fix_version"] if w not in _BARE_VERSION]  # "bugs in version 2.8.0"
        if spans.before(span, fix_words if found_in else g.FIELD_WORDS["fix_version"], gap=3) \
                or spans.after(span, fix_words if found_in else g.FIELD_WORDS["fix_version"]):
            return "fix_version"
        if found_in:
            return "affects_version"
    return name


_BARE_VERSION = ("version", "versions", "versiones")
# Resolutions no other words could mean, read as such even where no visible task has them.
_UNMISTAKABLE = {"won't fix": "won't fix", "wont fix": "won't fix", "wontfix": "won't fix", "won't do": "won't do",
                 "wont do": "won't do", "cannot reproduce": "cannot reproduce", "can't reproduce": "cannot reproduce",
                 "cant reproduce": "cannot reproduce", "no se arreglara": "won't fix"}
_AGAINST = ("against", "contra", "contra la")


def add_value(said: Said, name: str, value: object) -> None:
    found = next((p for p in said.predicates if p.field == name), None)
    values = (*found.values, value) if found is not None and value not in found.values else (value,)
    said.add(Predicate(name, values))  # type: ignore[arg-type]


def _field_words(spans: Spans, said: Said, lexicon: Lexicon) -> None:
    """Resolutions and issue types said otherwise than stored ("won't fix", "defects"), when the data holds them."""
    for synonyms, name in ((g.RESOLUTION_SYNONYMS, "resolution"), (g.TYPE_SYNONYMS, "issue_type")):
        stored = lexicon.stored(name)
        for phrase, span in spans.find({k: v for k, v in synonyms.items() if v in stored}):
            add_value(said, name, stored[synonyms[phrase]])
            said.asks_tasks = True
            spans.find(g.FIELD_WORDS[name])  # "closed as wont fix" says no status of its own
        if name == "resolution":  # "Won't Fix" nobody here can see is still the resolution asked for
            for phrase, _ in spans.find({k: v for k, v in _UNMISTAKABLE.items() if v not in stored}):
                add_value(said, name, string.capwords(_UNMISTAKABLE[phrase]))
                said.asks_tasks = True
                spans.find(g.FIELD_WORDS[name])
    stored = lexicon.stored("priority_name")
    for phrase, _ in spans.find({k: v for k, v in g.PRIORITY_TWINS.items() if v in stored}):
        add_value(said, "priority_name", stored[g.PRIORITY_TWINS[phrase]])  # "menores": the tracker's Minor
        said.asks_tasks = True



# Fields whose value may be said with its field word though no visible task holds it.
_UNSEEN_FIELDS = ("component", "label", "fix_version", "affects_version")
_VERSION = re.compile(r"(?<![\w.-])v?\d+(?:\.\d+)+(?![\w-]|\.\w)")


# A title quoted whole ('the status of "Refactor the Android build module"') is a record's name, not values.
QUOTED = re.compile(r"[\"“”«»]([^\"“”«»]{3,})[\"“”«»]")


_DETERMINERS = frozenset("a an the this that each every one any which what my your his her their our per no whose "
                         "another".split())


def task_said_as_type(spans: Spans, said: Said, lexicon: Lexicon) -> None:
    """Where "task" is the tracker's type Task rather than every issue: in Spanish, which says "tarea" ("mis task
    abiertos"), and in English in the singular where a figure counts many ("open minor task count", "# of minor task
    still open"; the plural "tasks" stays every issue, "each task" is one of them)."""
    task_type = lexicon.stored("issue_type").get("task")
    if task_type is None:
        return
    if said.lang == "es":
        if spans.find(("task", "tasks")):
            add_value(said, "issue_type", task_type)
            said.asks_tasks = True
        return
    if said.returns not in ("count", "points", "group") or "issue_type" in said.fields:
        return
    for task in re.finditer(r"(?<![\w-])task(?![\w-])", spans.text):
        before = terms.words(spans.text[:task.start()])
        if spans.free(task.span()) and not (before and before[-1] in _DETERMINERS):
            spans.take(task.span())
            add_value(said, "issue_type", task_type)
            said.asks_tasks = True
            return


def unseen_values(spans: Spans, said: Said) -> None:
    """A value said with its field word, or shaped like a version, that the asker's visible tasks do not hold ("open
    tasks in the Cobros component", "what's left for 1.2?"): a predicate all the same. It matches nothing they may
    see, so the answer says so, the same whether hidden tasks hold it or not, instead of answering another question
    without it."""
    if QUOTED.search(spans.text):
        return
    for name in _UNSEEN_FIELDS:
        for _, span in spans.find(g.FIELD_WORDS[name]) if name not in said.fields else ():
            value = _unknown_words(spans, spans.text[span[1]:], span[1], after=True) or (
                _unknown_words(spans, spans.text[:span[0]], 0, after=False) if name in ("component", "label")
                else None)
            if value is not None and (name not in ("fix_version", "affects_version") or re.search(r"\d", value[0])):
                spans.take(value[1])
                add_value(said, name, value[0])
                said.asks_tasks = True
    for match in _VERSION.finditer(spans.text) if not said.fields & {"fix_version", "affects_version"} else ():
        if spans.take(match.span()):
            add_value(said, "fix_version", match.group())
            said.asks_tasks = True


def _unknown_words(spans: Spans, text: str, offset: int, after: bool) -> tuple[str, tuple[int, int]] | None:
    """The (at most three) free words no step understood right after (or, ``after`` False, right before) a field word,
    with their span in the question."""
    found = re.match(r"\s+(?:(?:as|como|called|llamad[oa]s?)\s+)?((?:[\w.'-]+)(?:\s+[\w.'-]+){0,2})", text) if after else \
        re.search(r"((?:[\w.'-]+\s+){0,1}[\w.'-]+)\s+$", text)
    if found is None:
        return None
    words, start = found.group(1).split(), offset + found.start(1)
    kept: list[str] = []
    for word in (words if after else reversed(words)):
        if word in terms.STOP or word in KNOWN or word in tq.FILLER or len(word) < 2:
            break
        kept.append(word)
    if not kept:
        return None
    said = " ".join(kept if after else reversed(kept))
    span = (start, start + len(said)) if after else (start + len(found.group(1)) - len(said), start + len(found.group(1)))
    return (said, span) if spans.free(span) else None
