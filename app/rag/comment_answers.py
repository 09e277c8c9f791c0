"""Answers read from a task's comments: who commented, what someone said, the latest comment, and what
is blocked and by what. Pure: no I/O; the records come from app/services/entities.py (under the access
rule) and are app.domain TaskSource rows.

Blockers are a BLOCKED status, the task's stored "is blocked by" links (TASK_LINKS, by key only: the target may
be a task the reader cannot see), then the sentences of its description and comments that say so ("Blocked
until the API contract is agreed", "waiting on design"). A comment with no recorded author (a row written before authors
were loaded, or an erased person's) says so rather than guessing one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from app.domain import DONE_STATUSES, Person
from app.records_model import CommentSource, TaskSource
from app.rag import terms
from app.rag.computed import Computed
from app.rag.understanding.blocked import BLOCKED_STATUS
from app.rag.understanding.blocked import BLOCKING as _BLOCKING

MAX_COMMENTS = 8  # the newest comments written out per task
MAX_BLOCKED = 15  # blocked tasks written out; the rest are counted

# "who else commented?", "¿alguien más la comentó?": besides its assignee, whom the conversation has named.
_ELSE = frozenset(("else", "other", "others", "besides", "mas", "otro", "otra", "otros", "otras", "aparte",
                   "ademas"))
_LATEST = frozenset(("latest", "last", "newest", "recent", "most recent", "ultimo", "ultima", "reciente",
                     "mas reciente", "nuevo", "nueva", "mas nuevo", "mas nueva", "final"))
# A person named after these is left out, not asked for: "who commented besides Chen?", "¿quién comentó aparte de Ana?".
_EXCEPT = re.compile(r"(?<![\w-])(?:besides|apart from|other than|except|excluding|aside from|aparte de|ademas de|"
                     r"salvo|excepto|menos|quitando)(?![\w-])")

# The links that make a task wait on their target, read from its own side.
WAITING_LINKS = ("BLOCKED_BY", "DEPENDS_ON")

_TEXT = {
    "en": {"head": "Comments on {anchor} {title} — {n}{by}:", "by": ", by {names}",
           "none": "{anchor} {title} has no comments.",
           "latest": "The latest comment on {anchor} {title}:", "of": "Comments by {name} on {anchor} {title} — {n}:",
           "none_of": "{name} has not commented on {anchor} {title}.", "unknown": "author not recorded",
           "blocked": "{anchor} {title} ({status}) is held up by:", "free": "No task you can see holds up {anchor} {title} "
           "({status}), and nothing in it says it is blocked.", "list": "Blocked tasks you can see{among} — {n}:", "among": " ({filters})",
           "no_list": "No task you can see{among} says it is blocked.", "more": "…and {n} more.",
           "link": "Blocked by: {key}", "status": "Status: BLOCKED",
           "waits": "{name} ({status}) waits on {n}:", "also": "It also says:",
           "others": "Comments on {anchor} {title} by others than {name} — {n}{by}:",
           "no_others": "No one but {name}, its assignee, has commented on {anchor} {title}.",
           "no_others_of": "No one but {name} has commented on {anchor} {title}."},
    "es": {"head": "Comentarios de {anchor} {title} — {n}{by}:", "by": ", de {names}",
           "none": "{anchor} {title} no tiene comentarios.", "latest": "El último comentario de {anchor} {title}:",
           "of": "Comentarios de {name} en {anchor} {title} — {n}:",
           "none_of": "{name} no ha comentado en {anchor} {title}.", "unknown": "autor no registrado",
           "blocked": "{anchor} {title} ({status}) está frenada por:",
           "free": "Ninguna tarea que puedas ver frena {anchor} {title} ({status}), y nada en ella dice que esté "
                   "bloqueada.",
           "list": "Tareas bloqueadas que puedes ver{among} — {n}:", "among": " ({filters})",
           "no_list": "Ninguna tarea abierta que puedas ver{among} dice estar bloqueada.", "more": "…y {n} más.",
           "link": "Bloqueada por: {key}", "status": "Estado: BLOCKED",
           "waits": "{name} ({status}) depende de {n}:", "also": "Además dice:",
           "others": "Comentarios de {anchor} {title} de otras personas que {name} — {n}{by}:",
           "no_others": "Nadie más que {name}, su responsable, ha comentado {anchor} {title}.",
           "no_others_of": "Nadie más que {name} ha comentado {anchor} {title}."},
}


def comments_answer(question: str, tasks: Sequence[TaskSource], lang: str, person: Person | None = None) -> Computed:
    """The comments of each task, newest last: only ``person``'s when a person is named ("what did Chen
    say?"), only others' than ``person``'s when it is named after "besides" / "aparte de", only the newest when the
    question asks for the latest one, only others' than the assignee's when it asks who else, else who
    commented and what."""
    say = _TEXT[lang]
    asked = set(terms.words(terms.fold(question)))
    latest = bool(asked & _LATEST) or "most recent" in terms.fold(question)
    others = bool(asked & _ELSE) and not latest
    excluded = person if person is not None and _EXCEPT.search(terms.fold(question)) else None
    blocks, figures = [], []
    for task in tasks:
        anchor, title = f"[TASK #{task.task_id}]", task.title
        comments = _in_order(task.comments)
        assignee = " ".join(p for p in (task.assignee_first, task.assignee_last) if p)
        # whose comments are left out: the person named after "besides", or the assignee of "who else"
        left_out: tuple[str, Callable[[CommentSource], bool], str] | None = None
        if excluded is not None:
            left_out = (excluded.name, lambda c: _by(c, excluded),
                        "" if excluded.employee_id == task.assignee_id else "_of")
        elif person is None and others and task.assignee_id is not None:
            left_out = (assignee, lambda c: c.author_id == task.assignee_id, "")
        if left_out is not None and comments:
            name, theirs, key = left_out
            comments = [c for c in comments if not theirs(c)]
            if not comments:
                blocks.append(say[f"no_others{key}"].format(name=name, anchor=anchor, title=title))
                continue
            head = say["others"].format(anchor=anchor, title=title, name=name, n=len(comments),
                                        by=_authors(say, comments))
            figures.append(str(len(comments)))
        elif person is not None:
            comments = [c for c in comments if _by(c, person)]
            if not comments:
                blocks.append(say["none_of"].format(name=person.name, anchor=anchor, title=title))
                continue
            head = say["of"].format(name=person.name, anchor=anchor, title=title, n=len(comments))
        elif not comments:
            blocks.append(say["none"].format(anchor=anchor, title=title))
            continue
        elif latest:
            comments, head = comments[-1:], say["latest"].format(anchor=anchor, title=title)
        else:
            head = say["head"].format(anchor=anchor, title=title, n=len(comments), by=_authors(say, comments))
            figures.append(str(len(comments)))
        blocks.append("\n".join([head, *(_line(c, lang) for c in comments[-MAX_COMMENTS:])]))
    anchors = tuple(f"[TASK #{t.task_id}]" for t in tasks)
    return Computed("\n\n".join(blocks), anchors, tuple(figures), anchors[0] if anchors else None)


def blockers_of(tasks: Sequence[TaskSource], lang: str, targets: Mapping[int, TaskSource] | None = None) -> Computed:
    """What holds each task up: the visible tasks it depends on or is blocked by (``targets``, by id), each cited,
    then what its own words (description and comments) say; or that nothing says so. A task whose holders are
    listed is named by its key, not cited: the answer is the holders."""
    say, targets = _TEXT[lang], targets or {}
    blocks, anchors = [], []
    for task in tasks:
        anchor, status = f"[TASK #{task.task_id}]", task.status or "-"
        holders = [targets[link.target_task_id] for link in task.links
                   if link.link_type in WAITING_LINKS and link.target_task_id in targets]
        holders = list({h.task_id: h for h in holders}.values())
        reasons = [r for r in blocking_lines(task, lang)
                   if not any(r == say["link"].format(key=h.external_key) for h in holders)]
        if holders:
            name = " ".join(p for p in (task.external_key, task.title) if p)
            lines = [say["waits"].format(name=name, status=status, n=len(holders)),
                     *(f"- [TASK #{h.task_id}] {' '.join(p for p in (h.external_key, h.title) if p)} — "
                       f"{h.status or '-'}" for h in holders)]
            blocks.append("\n".join(lines + ([say["also"], *(f"- {r}" for r in reasons)] if reasons else [])))
            anchors += [f"[TASK #{h.task_id}]" for h in holders]
            continue
        anchors.append(anchor)
        if reasons:
            blocks.append("\n".join([say["blocked"].format(anchor=anchor, title=task.title, status=status),
                                     *(f"- {r}" for r in reasons)]))
        else:
            blocks.append(say["free"].format(anchor=anchor, title=task.title, status=status))
    anchors = list(dict.fromkeys(anchors))
    return Computed("\n\n".join(blocks), tuple(anchors), (), anchors[0] if anchors else None)


def blocked_list(tasks: Sequence[TaskSource], lang: str, filters: str = "") -> Computed:
    """The open tasks whose description or comments say they are blocked, each with its reason."""
    say = _TEXT[lang]
    among = say["among"].format(filters=filters) if filters else ""
    blocked = [(t, blocking_lines(t, lang)) for t in tasks if (t.status or "").upper() not in DONE_STATUSES]
    blocked = [(t, reasons) for t, reasons in blocked if reasons]
    if not blocked:
        return Computed(say["no_list"].format(among=among))
    lines = [say["list"].format(among=among, n=len(blocked))]
    for task, reasons in blocked[:MAX_BLOCKED]:
        owner = " ".join(p for p in (task.assignee_first, task.assignee_last) if p)
        lines.append(f"- [TASK #{task.task_id}] {task.title} — {task.status or '-'}"
                     f"{', ' + owner if owner else ''}: {reasons[-1]}")
    if len(blocked) > MAX_BLOCKED:
        lines.append(say["more"].format(n=len(blocked) - MAX_BLOCKED))
    anchors = tuple(f"[TASK #{t.task_id}]" for t, _ in blocked[:MAX_BLOCKED])
    return Computed("\n".join(lines), anchors, (str(len(blocked)),), None)


def blocking_lines(task: TaskSource, lang: str = "en") -> list[str]:
    """Its BLOCKED status, its "is blocked by" links, then the sentences of the description and the comments
    (with their authors) that say it is held up."""
    found = [_TEXT[lang]["status"]] if (task.status or "").upper() == BLOCKED_STATUS else []
    found += [_TEXT[lang]["link"].format(key=link.target_key) for link in task.links if link.link_type == "BLOCKED_BY"]
    found += [s for s in re.split(r"(?<=[.!?])\s+", task.description or "") if _BLOCKING.search(s)]
    found += [_line(c, lang)[2:] if c.author_name else " ".join(c.body.split())
              for c in _in_order(task.comments) if _BLOCKING.search(c.body)]
    return found


def _in_order(comments: Sequence[CommentSource]) -> list[CommentSource]:
    """Oldest first: by date where every comment has one, else as stored (the order they were written)."""
    if comments and all(c.created_at is not None for c in comments):
        return sorted(comments, key=lambda c: c.created_at)  # type: ignore[arg-type, return-value]
    return list(comments)


def _authors(say: dict[str, str], comments: Sequence[CommentSource]) -> str:
    """", by Ana Garcia, Ben Carter": the comments' authors in order, each once ("" when none is known)."""
    authors = list(dict.fromkeys(c.author_name for c in comments if c.author_name))
    return say["by"].format(names=", ".join(authors)) if authors else ""


def _by(comment: CommentSource, person: Person) -> bool:
    if comment.author_id is not None:
        return comment.author_id == person.employee_id
    return comment.author_name is not None and terms.fold(comment.author_name) == terms.fold(person.name)


def _line(comment: CommentSource, lang: str) -> str:
    who = comment.author_name or _TEXT[lang]["unknown"]
    when = f" ({comment.created_at.isoformat()[:10]})" if comment.created_at is not None else ""
    return f"- {who}{when}: {' '.join(comment.body.split())}"
