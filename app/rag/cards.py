"""Record cards: the answer to a question about one entity (asked by id or name, or the conversation's focus),
composed from its live record rather than quoted from a line that shares a word with the question. Pure: no I/O.

A task's card is its title line, then status, priority, assignee, sprint, due date and story points, the
description and its latest comments with their authors and dates (a comment without them is shown without
them). A sprint's card is its project, dates and goal; a project's its dates and description; a document's
its whole text up to DOC_CHARS, cut only between sentences. When the question asks for one field ("who is
assigned to it?", "¿cuándo vence?", "what is blocking it?", "who commented?") the card is cut to that field.
Labels are in the question's language (English or Spanish); the values are the records' own.

Each card is a ``Computed`` (app/rag/computed.py): its text, the entity's anchor (what an LLM's reply must
keep, and the conversation's focus after it) and the figures it states (points, hours, the due date).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from app.records_model import CommentSource, DocSource, ProjectSource, SourceRecord, SprintSource, TaskSource
from app.rag import terms
from app.rag.understanding import clauses
from app.rag.computed import Computed
from app.rag.templates import header_line, paragraphs

DOC_CHARS = 1_500  # a document card's text at most; longer documents end at a sentence with "…"
MAX_COMMENTS = 3  # the latest comments a full card shows
MAX_FIELD_COMMENTS = 5  # when the comments are what is asked

LABELS = {
    "en": {"status": "Status", "priority": "Priority", "assignee": "Assignee", "sprint": "Sprint", "due": "Due",
           "points": "Story points", "hours": "Estimated hours", "project": "Project", "description": "Description",
           "comments": "Latest comments", "of": "of", "dates": "Dates", "goal": "Goal", "unassigned": "unassigned",
           "none": "none", "no_comments": "No comments yet.", "blocked_by": "What blocks it",
           "no_blockers": "Nothing on record blocks it.", "reporter": "Reporter", "created": "Created",
           "resolution": "Resolution", "links": "Links", "no_links": "No links on record.", "no_due": "no due date",
           "link": {"BLOCKS": "blocks", "BLOCKED_BY": "blocked by", "DEPENDS_ON": "depends on",
                    "DEPENDED_ON_BY": "depended on by", "DUPLICATES": "duplicates", "DUPLICATED_BY": "duplicated by",
                    "CLONES": "clones", "CLONED_BY": "cloned by", "RELATES": "relates to"}},
    "es": {"status": "Estado", "priority": "Prioridad", "assignee": "Responsable", "sprint": "Sprint",
           "due": "Vence", "points": "Puntos de historia", "hours": "Horas estimadas", "project": "Proyecto",
           "description": "Descripción", "comments": "Últimos comentarios", "of": "de", "dates": "Fechas",
           "goal": "Objetivo", "unassigned": "sin asignar", "none": "ninguno", "no_comments": "Aún sin comentarios.",
           "blocked_by": "Lo que la bloquea", "no_blockers": "Nada registrado la bloquea.",
           "reporter": "Reportada por", "created": "Creada", "resolution": "Resolución", "links": "Enlaces",
           "no_links": "Sin enlaces registrados.", "no_due": "sin fecha",
           "link": {"BLOCKS": "bloquea a", "BLOCKED_BY": "bloqueada por", "DEPENDS_ON": "depende de",
                    "DEPENDED_ON_BY": "de ella depende", "DUPLICATES": "duplica a", "DUPLICATED_BY": "duplicada por",
                    "CLONES": "clona a", "CLONED_BY": "clonada por", "RELATES": "relacionada con"}},
}
NOT_FOUND = {"en": "I can't find {what} among what you can see.",
             "es": "No encuentro {what} entre lo que puedes ver."}

# Which field a question asks for, by its (accent-folded) words. Comments and blockers first: "who commented
# on it?" asks for the comments' authors, not the assignee "who" would otherwise mean.
_COMMENT_WORDS = frozenset("""comment comments commented commenting said say says wrote comentario comentarios
comento comentaron comentado dijo dijeron dice dicen escribio written writes escrito escribieron""".split())
_BLOCK_WORDS = frozenset("""block blocks blocked blocking blocker blockers stuck bloquea bloquean bloqueado bloqueada
bloqueo bloqueos impide atascada atascado""".split())
_FIELD_WORDS = {
    "status": frozenset(terms.fold(w) for w in terms.FIELD_HINTS["statu"]) | {"done", "finished", "terminada",
                                                                              "hecha", "lista"},
    "priority": frozenset(terms.fold(w) for w in terms.FIELD_HINTS["prior"]),
    "assignee": frozenset(terms.fold(w) for w in terms.FIELD_HINTS["assig"]) | {"working", "trabajando"},
    "sprint": frozenset(terms.fold(w) for w in terms.FIELD_HINTS["sprin"]),
    "due": frozenset(terms.fold(w) for w in terms.FIELD_HINTS["due"]) | {"overdue", "atrasada", "vencida"},
    "points": frozenset(terms.fold(w) for w in terms.FIELD_HINTS["point"]),
    "hours": frozenset(terms.fold(w) for w in terms.FIELD_HINTS["hours"]),
    # A real tracker's fields (issue 31): who reported it, when it was created, how it was resolved, its links.
    # The verbs of opening are in both: "who" asks for the reporter, "when" / "what day" for the date.
    "reporter": frozenset("""reported reporter reporto reportada reportado filed raised opened abrio abrieron
                             levanto registro submitted logged created creo crearon informador informadora alta raise
                             file open log report create""".split()),
    "created": frozenset("""created creada creado creation creacion opened filed raised abierta abierto creo
                            crearon abrio abrieron reported reporto levanto registro submitted logged alta raise
                            file open log report create came come arrived llego entro""".split()),
    "resolution": frozenset("""resolution resolucion resolved resuelta resuelto""".split()),
    "links": frozenset("""depend depends dependent depending dependency dependencies depende dependen dependencias
                          linked links link enlaces enlazada relacionadas related duplicates duplicate duplicada
                          clones clonada""".split()),
}
_POINTING_ONLY = frozenset("who what is it that this was quien que es eso".split())
# How old a record is asks for the date it was created ("¿de cuándo es?", "¿de qué fecha es?", "how old is it?").
_CREATED_ASKED = re.compile(r"(?<![\w-])(?:de (?:cuando|que fecha|que dia)|how old|since when|from when|"
                            r"que antiguedad|how long ago)(?![\w-])")
# "who opened it?" asks for the reporter, "when was it opened?" for the date it was created.
_WHO = frozenset("who whom quien quienes".split())
_WHEN = frozenset("when cuando date fecha day dia".split())
_BLOCK_PREFIXES = ("block", "bloque", "waiting", "esperando", "stuck", "impide", "atasc")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def asked_fields(question: str) -> tuple[str, ...]:
    """The fields the question asks for, in card order; () for the whole card."""
    folded = terms.fold(question)
    asking = [folded[start:end] for start, end, asks in clauses.clauses(folded) if asks]
    # "Someone says HRB-284 is ancient. When was it filed?": the clause that asks says which field; one that only
    # points back ("… whoever filed LMN-18 - who is it") asks what the other clause said
    words = {w for part in (asking or [folded]) for w in terms.words(part)}
    if not words - _POINTING_ONLY:
        words = set(terms.words(folded))
    if _CREATED_ASKED.search(" ".join(asking) or folded):
        return ("created",)
    if words & _COMMENT_WORDS:
        return ("comments",)
    if words & _BLOCK_WORDS:
        return ("blockers",)
    asked = [name for name, hints in _FIELD_WORDS.items() if words & hints]
    if "reporter" in asked and "assignee" in asked and not (words & _FIELD_WORDS["assignee"]) - _WHO:
        asked.remove("assignee")  # "who reported it?": the "who" is the reporter's
    if "reporter" in asked and "created" in asked:
        asked.remove("created" if words & _WHO or not words & _WHEN else "reporter")
    if ("created" in asked or "resolution" in asked) and "due" in asked and not words & {"due", "deadline", "vence",
                                                                                          "plazo", "vencimiento"}:
        asked.remove("due")  # "when was it created?": the "when" is the creation's
    return tuple(asked)


def cards(question: str, records: Sequence[SourceRecord], missing: Sequence[str] = ()) -> Computed:
    """The cards of the entities asked for, then what was not found (``missing``: "task #107", a hidden one
    and a missing one read the same), as one computed answer focused on the first entity."""
    lang = terms.language(question)
    fields = asked_fields(question)
    built = [card(r, lang, fields) for r in records]
    text = "\n\n".join([*(c.text for c in built), *(NOT_FOUND[lang].format(what=m) for m in missing)])
    anchors = tuple(a for c in built for a in c.anchors)
    figures = tuple(dict.fromkeys(f for c in built for f in c.figures))
    return Computed(text, anchors, figures, anchors[0] if anchors else None)


def card(record: SourceRecord, lang: str, fields: Sequence[str] = ()) -> Computed:
    anchor = header_line(record).split("]", 1)[0] + "]"
    match record:
        case TaskSource():
            lines, figures = _task(record, LABELS[lang], fields)
        case SprintSource():
            lines, figures = _sprint(record, LABELS[lang], fields)
        case ProjectSource():
            lines, figures = _project(record, LABELS[lang], fields)
        case DocSource():
            lines, figures = [_document(record.body or "")], ()
        case _:
            raise TypeError(f"unknown source record {type(record).__name__}")
    text = "\n".join([header_line(record).replace("\n", " "), *(line for line in lines if line)])
    return Computed(text, (anchor,), figures, anchor)


def _status(ours: str | None, tracker_name: str | None) -> str:
    """Ours, with the tracker's own name where it differs ("IN_REVIEW (In QE Test)", "HIGH (Major)"), as the chunk
    shows it."""
    status = _or(ours, "-")
    name = (tracker_name or "").strip()
    return f"{status} ({name})" if name and terms.fold(name).replace(" ", "_") != terms.fold(status) else status


def _task(task: TaskSource, label: dict[str, str], fields: Sequence[str]) -> tuple[list[str], tuple[str, ...]]:
    values = {
        "status": _status(task.status, task.status_name), "priority": _status(task.priority, task.priority_name),
        "assignee": _person(task.assignee_first, task.assignee_last) or label["unassigned"],
        "sprint": _or(task.sprint_name, label["none"]), "due": _date(task.expected_end_date),
        "points": _number(task.story_points), "hours": _number(task.estimated_hours),
        "reporter": _person(task.reporter_first, task.reporter_last) or "-", "created": _date(task.created_at),
        "resolution": _or(task.resolution, "-"), "links": _links(task, label),
    }
    figures = tuple(v for v in (values["points"], values["hours"], values["due"]) if v not in ("", "-"))
    if "comments" in fields:
        shown = task.comments[-MAX_FIELD_COMMENTS:]
        return [_comments_heading(label, len(shown), len(task.comments)) if shown else label["no_comments"],
                *(_comment(c) for c in shown)], figures
    if "blockers" in fields:
        blocking = [c for c in task.comments if blocks(c.body)]
        said = [f"{label['blocked_by']}:", *(_comment(c) for c in blocking)] if blocking else [label["no_blockers"]]
        return [f"{label['status']}: {values['status']}", *said], figures
    if fields:  # one field asked: an empty date says so in words ("Due: no due date")
        return [f"{label[f]}: {label['no_due'] if f == 'due' and values[f] == '-' else values[f]}"
                for f in fields if values[f]], figures
    tracked = [f"{label[f]}: {values[f]}" for f in ("reporter", "created", "resolution") if values[f] not in ("", "-")]
    lines = [
        " | ".join(f"{label[f]}: {values[f]}" for f in ("status", "priority", "assignee")),
        " | ".join(f"{label[f]}: {values[f]}" for f in ("sprint", "due", "points", "hours") if values[f]),
        *([" | ".join(tracked)] if tracked else []),
        *([f"{label['links']}: {values['links']}"] if task.links else []),
        f"{label['project']}: {_or(task.project_name, label['none'])}",
        f"{label['description']}: {_or(task.description, '-')}",
    ]
    if task.comments:
        shown = task.comments[-MAX_COMMENTS:]
        lines += [_comments_heading(label, len(shown), len(task.comments)), *(_comment(c) for c in shown)]
    return lines, figures


def _links(task: TaskSource, label: dict) -> str:
    """A task's links by kind, read from its side ("depends on HDFS-12, HDFS-40; relates to HDFS-7")."""
    if not task.links:
        return label["no_links"]
    kinds: dict[str, list[str]] = {}
    for link in task.links:
        kinds.setdefault(link.link_type, []).append(link.target_key)
    return "; ".join(f"{label['link'].get(kind, kind.lower())} {', '.join(keys)}" for kind, keys in kinds.items())


def _sprint(sprint: SprintSource, label: dict[str, str], fields: Sequence[str]) -> tuple[list[str], tuple[str, ...]]:
    dates = f"{label['dates']}: {_date(sprint.start_date)} -> {_date(sprint.end_date)}"
    fields = [f for f in fields if f != "sprint"]  # "sprint" names the entity here, not a field of it
    if fields and set(fields) <= {"due", "status"}:
        return [dates] if "due" in fields else [], ()
    return [f"{label['project']}: {_or(sprint.project_name, label['none'])}", dates,
            f"{label['goal']}: {_or(sprint.goal, '-')}"], ()


def _project(project: ProjectSource, label: dict[str, str],
             fields: Sequence[str]) -> tuple[list[str], tuple[str, ...]]:
    dates = f"{label['dates']}: {_date(project.start_date)} -> {_date(project.end_date)}"
    if fields and set(fields) <= {"due", "status"}:
        return [dates] if "due" in fields else [], ()
    description = project.description.strip() if project.description and project.description.strip() else ""
    return [dates, f"{label['description']}: {description}" if description else ""], ()


def _document(body: str, limit: int = DOC_CHARS) -> str:
    """The document's paragraphs, whole up to ``limit``; past it, cut after the last whole sentence."""
    text = "\n".join(paragraphs(body))
    if len(text) <= limit:
        return text
    kept = ""
    for piece in _SENTENCE_END.split(text):
        if len(kept) + len(piece) + 1 > limit - 1:
            break
        kept = f"{kept} {piece}" if kept else piece
    return (kept or text[:limit - 1]) + "…"


def _comments_heading(label: dict[str, str], shown: int, total: int) -> str:
    return f"{label['comments']}:" if shown == total else f"{label['comments']} ({shown} {label['of']} {total}):"


def _comment(comment: CommentSource) -> str:
    """"- Chen Wei (2026-11-20): Blocked until …", with whatever of the author and date is known."""
    when = f"({_date(comment.created_at)})" if comment.created_at is not None else ""
    who = " ".join(p for p in ((comment.author_name or "").strip(), when) if p)
    return f"- {who}: {comment.body.strip()}" if who else f"- {comment.body.strip()}"


def blocks(body: str) -> bool:
    """A comment saying what blocks the task ("Blocked until …", "Bloqueado hasta …", "waiting on design")."""
    return any(terms.fold(w).startswith(_BLOCK_PREFIXES) for w in terms.words(body))


def _or(value: str | None, default: str) -> str:
    return value.strip() if value and value.strip() else default


def _person(first: str | None, last: str | None) -> str:
    return " ".join(p.strip() for p in (first, last) if p and p.strip())


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _date(value: dt.date | dt.datetime | None) -> str:
    if value is None:
        return "-"
    return (value.date() if isinstance(value, dt.datetime) else value).isoformat()
