"""Each benchmark turn's truth, computed from the records (never written beside the question). Pure.

``Snapshot`` is the seeded database as read through the engine contract (app/services/conversation_bench
reads it once, right after seeding); ``truth`` applies the access rule to it, restated here on purpose
(managers and admins see everything; a developer sees the tasks assigned to them, the documents they own
and the organisation-wide ones, i.e. those without an owner), so the benchmark does not trust the code it
judges. What each template asks:

- my_status / person_status: the asker's (the person's) tasks in that status — a list;
- my_overdue: the asker's tasks due before today and not DONE — a list;
- my_due: the asker's tasks due in the ISO week (Monday to Sunday) this/next week — a list;
- person_tasks: every task assigned to the person; person_overdue: those due before today and not DONE — a list;
- topic_tasks: the tasks whose title names the area ("the refund flow") — a list;
- lookup_<field> / title_<field>: that task's status, assignee, due date, priority or story points — a lookup;
- card: the task's status, assignee and due date, all three — a lookup;
- count_status: how many of the project's tasks are in the status — a count;
- sum_points: the story points of the sprint's tasks not DONE — a count (a sum);
- compare_project_overdue / compare_person_open / compare_sprint_points: the project with the most
  overdue tasks, the assignee with the most tasks not DONE, the sprint with the most points not DONE —
  the winner(s) and the figure;
- comment_authors / fu_authors: the names of everyone who commented on the task; fu_others: the same
  without its assignee — names;
- latest_comment: the body of the task's newest comment (CREATED_AT, then id) — text;
- blocked_project / fu_blocked: tasks not DONE whose status is BLOCKED or whose description or a comment says
  it is held up (BLOCKED_WORDS: "blocked", "bloqueado", "waiting on", "esperando", "stuck", ...) — a list;
- doc_summary: every paragraph of the document; doc_fact: the paragraph holding the key phrase — text;
- scope_project / scope_all: the conversation's new retrieval scope — a scope;
- nowhere: nothing — a refusal.

Whatever the template, when nothing the asker may see answers it (a hidden or missing task or document, an
empty list, a zero count, nobody to name) the truth is a refusal. Under a project scope (a conversation
that said "only look at X from now on") lists, counts and comparisons count that project's tasks only.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Row = Mapping[str, Any]
MANAGER_ROLES = ("MANAGER", "ADMIN")

STATUS_WORDS = {  # how a status may be written in an answer (folded, see fold())
    "TODO": ("to do", "por hacer", "pendiente"), "IN_PROGRESS": ("in progress", "en progreso", "en curso"),
    "IN_REVIEW": ("in review", "en revision"), "DONE": ("done", "terminada", "terminado", "hecha", "completada"),
}
PRIORITY_WORDS = {"LOW": ("low", "baja"), "MEDIUM": ("medium", "media"), "HIGH": ("high", "alta"),
                  "CRITICAL": ("critical", "critica", "critico")}
UNASSIGNED_WORDS = ("unassigned", "sin asignar", "nobody", "no one", "nadie")
# What says a task is held up: blocked, a blocker, waiting on something (not "it blocks X", the other way
# round, nor "pendiente de revisión": awaiting review is not blocked).
BLOCKED_WORDS = ("blocked", "blocker", "blockers", "bloqueado", "bloqueada", "bloqueados", "bloqueadas", "bloqueo",
                 "bloqueos", "waiting on", "waiting for", "stuck", "on hold", "depends on", "esperando", "atascado",
                 "atascada", "atascados", "atascadas", "trabado", "trabada", "trabados", "trabadas", "depende de")
YOURS = ("assigned to you", "asignada a ti", "asignado a ti", "yours", "you are", "you have")  # the asker, addressed
YOU_LEAD = ("you have", "tu tienes", "tienes")  # a comparison whose winner is the asker
_MONTHS = {"en": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December"),
           "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
                  "octubre", "noviembre", "diciembre")}


def fold(text: str) -> str:
    """Lower case without accents, "_" as a space: how answers and values are compared."""
    text = unicodedata.normalize("NFKD", text.replace("_", " ").replace("\u2019", "'"))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


MIN_LEAK = 8  # a shorter hidden string is a word, not proof of a leak
WORD = re.compile(r"[a-z0-9ñ]+")  # a word of folded text


def words(text: str) -> str:
    """" a b c ": the folded words, space-delimited at both ends, so that ``in`` matches whole words."""
    return f" {' '.join(WORD.findall(fold(text)))} "


@dataclass(frozen=True)
class Hidden:
    """What one asker may not see (a leak names it), and the titles they may see (removed before looking)."""

    anchors: frozenset[str]
    titles: tuple[str, ...]
    visible_titles: tuple[str, ...] = ()
    existing: frozenset[str] | None = None  # every entity's anchor (one not here is invented); None: unchecked
    passages: tuple[str, ...] = ()  # paragraphs of hidden documents that no visible record holds


@dataclass(frozen=True)
class Snapshot:
    """The demo database's rows, by id (comments: a list, oldest first)."""

    today: dt.date
    employees: dict[int, Row]
    projects: dict[int, Row]
    sprints: dict[int, Row]
    tasks: dict[int, Row]
    comments: tuple[Row, ...]
    documents: dict[int, Row]

    def name(self, employee_id: int) -> str:
        row = self.employees[employee_id]
        return f"{row['first_name']} {row['last_name']}"

    def role(self, employee_id: int) -> str:
        return str(self.employees[employee_id]["role"]).upper()

    def sees_task(self, asker: int, task_id: int) -> bool:
        task = self.tasks.get(task_id)
        return task is not None and (self.role(asker) in MANAGER_ROLES or task["assignee_id"] == asker)

    def sees_doc(self, asker: int, doc_id: int) -> bool:
        doc = self.documents.get(doc_id)
        return doc is not None and (self.role(asker) in MANAGER_ROLES
                                    or doc["owner_employee_id"] in (None, asker))

    def visible_tasks(self, asker: int, project: int | None = None) -> list[Row]:
        return [t for i, t in sorted(self.tasks.items()) if self.sees_task(asker, i)
                and (project is None or t["project_id"] == project)]

    def comments_of(self, task_id: int) -> list[Row]:
        return sorted((c for c in self.comments if c["task_id"] == task_id),
                      key=lambda c: (str(c["created_at"]), c["comment_id"]))

    def doc_by_title(self, title: str) -> Row:
        return next(d for d in self.documents.values() if d["title"] == title)

    def hidden(self, asker: int) -> Hidden:
        """What the asker may not see, as a leak would show it: anchors, titles, and the paragraphs of hidden
        documents that nothing visible holds (a task's description is a template many tasks share, so is no
        proof of a leak)."""
        tasks = [t for i, t in self.tasks.items() if not self.sees_task(asker, i)]
        docs = [d for i, d in self.documents.items() if not self.sees_doc(asker, i)]
        anchors = {f"[TASK #{t['task_id']}]" for t in tasks} | {f"[DOC #{d['document_id']}]" for d in docs}
        visible = words(" | ".join([*(str(d["body"]) for i, d in self.documents.items() if self.sees_doc(asker, i)),
                                    *(str(t.get("description") or "") for t in self.visible_tasks(asker))]))
        passages = [p.strip() for d in docs for p in str(d["body"]).split("\n\n")
                    if len(p.strip()) >= MIN_LEAK and words(p) not in visible]
        return Hidden(frozenset(anchors), tuple(str(r["title"]) for r in [*tasks, *docs]),
                      self.visible_titles(asker), self.anchors(), tuple(passages))

    def anchors(self) -> frozenset[str]:
        """Every entity's anchor: one that is not here was invented."""
        return frozenset([*(f"[TASK #{i}]" for i in self.tasks), *(f"[DOC #{i}]" for i in self.documents),
                          *(f"[SPRINT #{i}]" for i in self.sprints), *(f"[PROJECT #{i}]" for i in self.projects)])

    def visible_titles(self, asker: int) -> tuple[str, ...]:
        return tuple(str(t["title"]) for t in self.visible_tasks(asker)) + tuple(
            str(d["title"]) for i, d in self.documents.items() if self.sees_doc(asker, i))


@dataclass(frozen=True)
class Truth:
    """What a right answer contains (app/evals/conversation_score.py says how each kind is judged)."""

    kind: str  # list | lookup | one | count | compare | names | text | scope | refusal
    entity: str | None = None  # the anchor a lookup, names or text answer is about
    tasks: frozenset[str] = frozenset()  # list: the matching tasks; count: the tasks counted; one: those tied
    figure: float | None = None  # list: how many; count: the figure; compare: the winner's figure
    values: tuple[tuple[str, ...], ...] = ()  # each group must appear, in any of its spellings (folded)
    sentences: tuple[str, ...] = ()  # text: paragraphs the answer must cover
    scope: str | None = None  # scope: the conversation's scope after the turn
    raw_values: tuple[str, ...] = field(default=(), compare=False)  # values as stored (reports)
    named: tuple[str, ...] = field(default=(), compare=False)  # values the question names ("2.0.0"): no figures
    asked_field: str | None = field(default=None, compare=False)  # field: which one (its own line is the answer)


REFUSAL = Truth("refusal")


def truth(snap: Snapshot, asker: int, template: str, slots: Mapping[str, Any], scope: int | None) -> Truth:
    """The truth of one turn asked by ``asker`` under the conversation's project ``scope`` (None: all)."""
    kind = template.split("_", 1)[0]
    if template.startswith(("lookup_", "title_")) or template == "card":
        return _lookup(snap, asker, template, slots["task"])
    if template in ("comment_authors", "fu_authors", "fu_others", "latest_comment"):
        return _comments(snap, asker, template, slots["task"])
    if template in ("fu_assignee", "fu_due", "fu_status"):
        field_of = {"fu_assignee": "lookup_assignee", "fu_due": "lookup_due", "fu_status": "lookup_status"}
        return _lookup(snap, asker, field_of[template], slots["task"])
    if template.startswith("scope_"):
        return Truth("scope", scope=str(slots["project"]) if template == "scope_project" else "all")
    if template in ("doc_summary", "doc_fact"):
        return _doc(snap, asker, slots)
    if template == "nowhere":
        return REFUSAL
    if kind == "compare":
        return _compare(snap, asker, template, scope)
    project = slots.get("project", scope)
    if template in ("count_status", "fu_count_status"):
        rows = [t for t in snap.visible_tasks(asker, project) if t["status"] == slots["status"]]
        return _count(rows, len(rows))
    if template == "sum_points":
        rows = [t for t in snap.visible_tasks(asker, scope) if t["sprint_id"] == slots["sprint"]
                and t["status"] != "DONE"]
        return _count(rows, sum(float(t["story_points"] or 0) for t in rows))
    return _list(_matching(snap, asker, template, slots, project))


def _matching(snap: Snapshot, asker: int, template: str, slots: Mapping[str, Any], project: int | None) -> list[Row]:
    rows = snap.visible_tasks(asker, project)
    if template in ("blocked_project", "fu_blocked"):
        return [t for t in rows if t["status"] != "DONE" and _blocked(snap, t)]
    if template == "topic_tasks":
        return [t for t in rows if words(slots["area"]) in words(str(t["title"]))]
    owner = slots.get("person", asker)
    rows = [t for t in rows if t["assignee_id"] == owner]
    if template in ("my_status", "person_status"):
        return [t for t in rows if t["status"] == slots["status"]]
    if template in ("my_overdue", "person_overdue"):
        return [t for t in rows if _due(t) is not None and _due(t) < snap.today and t["status"] != "DONE"]
    if template == "my_due":
        monday = snap.today - dt.timedelta(days=snap.today.weekday()) + dt.timedelta(weeks=slots["window"])
        return [t for t in rows if _due(t) is not None and monday <= _due(t) < monday + dt.timedelta(days=7)]
    if template == "person_tasks":
        return rows
    raise ValueError(f"no truth for template {template!r}")


def _blocked(snap: Snapshot, task: Row) -> bool:
    """A BLOCKED status, or its description or a comment saying it is held up (BLOCKED_WORDS)."""
    said = [str(task.get("description") or ""), *(str(c["body"]) for c in snap.comments_of(task["task_id"]))]
    return str(task["status"]).upper() == "BLOCKED" or any(
        words(w) in words(text) for text in said for w in BLOCKED_WORDS)


def _list(rows: list[Row]) -> Truth:
    if not rows:
        return REFUSAL
    return Truth("list", tasks=frozenset(f"[TASK #{t['task_id']}]" for t in rows), figure=len(rows))


def _count(rows: list[Row], figure: float) -> Truth:
    if not rows:
        return REFUSAL  # nothing visible to count: "none"/"0" is the answer, a refusal is right too
    return Truth("count", tasks=frozenset(f"[TASK #{t['task_id']}]" for t in rows), figure=figure)


def _lookup(snap: Snapshot, asker: int, template: str, task_id: int) -> Truth:
    if not snap.sees_task(asker, task_id):
        return REFUSAL
    task = snap.tasks[task_id]
    fields = ("status", "assignee", "due") if template == "card" else (template.split("_", 1)[1],)
    groups, raw = [], []
    for name in fields:
        spellings, stored = _value(snap, asker, task, name)
        groups.append(spellings)
        raw.append(stored)
    return Truth("lookup", entity=f"[TASK #{task_id}]", values=tuple(groups), raw_values=tuple(raw))


def _value(snap: Snapshot, asker: int, task: Row, name: str) -> tuple[tuple[str, ...], str]:
    if name == "status":
        return (fold(task["status"]), *STATUS_WORDS[task["status"]]), task["status"]
    if name == "priority":
        return (fold(task["priority"]), *PRIORITY_WORDS[task["priority"]]), task["priority"]
    if name == "assignee":
        if task["assignee_id"] is None:
            return UNASSIGNED_WORDS, "unassigned"
        mine = YOURS if task["assignee_id"] == asker else ()
        return (fold(snap.name(task["assignee_id"])), *mine), snap.name(task["assignee_id"])
    if name == "due":
        due = _due(task)
        if due is None:
            return ("-",), "-"
        return spell_date(due), due.isoformat()
    if name == "points":
        return (_number(float(task["story_points"] or 0)),), _number(float(task["story_points"] or 0))
    raise ValueError(f"no field {name!r}")


def spell_date(day: dt.date) -> tuple[str, ...]:
    """A date as an answer may write it (folded): ISO, "9 December 2026", "December 9, 2026", "9 de diciembre de 2026"."""
    spelled = (f"{day.day} {_MONTHS['en'][day.month - 1]} {day.year}",
               f"{_MONTHS['en'][day.month - 1]} {day.day}, {day.year}",
               f"{day.day} de {_MONTHS['es'][day.month - 1]} de {day.year}")
    return (day.isoformat(), *(fold(s) for s in spelled))


def _comments(snap: Snapshot, asker: int, template: str, task_id: int) -> Truth:
    if not snap.sees_task(asker, task_id):
        return REFUSAL
    comments = snap.comments_of(task_id)
    anchor = f"[TASK #{task_id}]"
    if template == "latest_comment":
        if not comments:
            return REFUSAL
        body = str(comments[-1]["body"])
        return Truth("text", entity=anchor, sentences=(body,), raw_values=(body,))
    authors = list(dict.fromkeys(c["author_id"] for c in comments if c["author_id"] is not None))
    if template == "fu_others":
        authors = [a for a in authors if a != snap.tasks[task_id]["assignee_id"]]
    if not authors:
        return REFUSAL
    names = [snap.name(a) for a in authors]
    return Truth("names", entity=anchor, values=tuple((fold(n),) for n in names), raw_values=tuple(names))


def _doc(snap: Snapshot, asker: int, slots: Mapping[str, Any]) -> Truth:
    doc = snap.documents.get(slots["doc"])
    if doc is None or not snap.sees_doc(asker, doc["document_id"]):
        return REFUSAL
    paragraphs = [p.strip() for p in str(doc["body"]).split("\n\n") if p.strip()]
    if "key" in slots:
        paragraphs = [p for p in paragraphs if fold(slots["key"]) in fold(p)]
        if not paragraphs:
            raise ValueError(f"no paragraph of {doc['title']!r} holds {slots['key']!r}: the demo data changed")
    return Truth("text", entity=f"[DOC #{doc['document_id']}]", sentences=tuple(paragraphs))


def _compare(snap: Snapshot, asker: int, template: str, scope: int | None) -> Truth:
    rows = snap.visible_tasks(asker, scope)
    tally: Counter = Counter()
    if template == "compare_project_overdue":
        for t in rows:
            if _due(t) is not None and _due(t) < snap.today and t["status"] != "DONE":
                tally[t["project_id"]] += 1
        spell = lambda i: _name_spellings(str(snap.projects[i]["name"]))  # noqa: E731
    elif template == "compare_person_open":
        for t in rows:
            if t["status"] != "DONE" and t["assignee_id"] is not None:
                tally[t["assignee_id"]] += 1
        spell = lambda i: (fold(snap.name(i)), fold(str(snap.employees[i]["first_name"])),  # noqa: E731
                           *(YOU_LEAD if i == asker else ()))
    elif template == "compare_sprint_points":
        for t in rows:
            if t["status"] != "DONE" and t["sprint_id"] is not None:
                tally[t["sprint_id"]] += float(t["story_points"] or 0)
        spell = lambda i: (fold(str(snap.sprints[i]["name"])),)  # noqa: E731
    else:
        raise ValueError(f"no truth for template {template!r}")
    if not tally or max(tally.values()) == 0:
        return REFUSAL
    top = max(tally.values())
    winners = [i for i, n in tally.items() if n == top]
    return Truth("compare", figure=top, values=(tuple(s for w in winners for s in spell(w)),),
                 raw_values=tuple(str(w) for w in winners))


def _name_spellings(name: str) -> tuple[str, ...]:
    """A project by its full name, or its first word (unique among the demo projects: "Payments")."""
    return (fold(name), fold(name.split()[0]))


def _due(task: Row) -> dt.date | None:
    due = task.get("expected_end_date")
    if due is None or isinstance(due, dt.date):
        return due
    return dt.date.fromisoformat(str(due)[:10])


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
