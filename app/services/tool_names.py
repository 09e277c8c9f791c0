"""Names a model's tool may give where the typed query holds an id or a stored value (query_tasks, find_tasks),
resolved against the caller's own lexicon: the data's projects, sprints and people (public), and the values of
the fields of the tasks the caller may see (a value only hidden tasks hold reads exactly as a missing one). An
unknown or ambiguous name is refused with its candidates, never guessed. Pure: no I/O.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence

from app.domain import is_id
from app.rag import terms
from app.rag.understanding import edits
from app.rag.understanding import lexicon as lexicons
from app.rag.understanding.lexicon import Lexicon, PersonFact, ProjectFact, SprintFact

MAX_CANDIDATES = 10  # names listed in a refusal
RELATIVE_SPRINTS = ("current", "previous", "next")
# How a refusal names a field (query.py's field names).
LABELS = {"status": "status", "status_name": "tracker status", "priority": "priority",
          "priority_name": "tracker priority", "issue_type": "issue type",
          "resolution": "resolution", "label": "label", "component": "component", "fix_version": "fix version",
          "affects_version": "affected version"}


class Refused(ValueError):
    """A name the tool cannot resolve; the message (for the model) names the candidates."""


def key(text: str) -> str:
    """A value as compared: folded (case, accents), runs of spaces and underscores as one space ("In review" is
    IN_REVIEW), hyphens and dots kept ("needs-triage", "2.0.0")."""
    return " ".join(re.split(r"[\s_]+", terms.fold(text).strip()))


def _listed(names: Iterable[str], near: str | None = None) -> str:
    names = list(dict.fromkeys(names))
    if near is not None:
        close = difflib.get_close_matches(near, names, n=MAX_CANDIDATES, cutoff=0.5)
        names = [*close, *(n for n in names if n not in close)]
    shown = names[:MAX_CANDIDATES]
    return ", ".join(shown) + (f" (and {len(names) - len(shown)} more)" if len(names) > len(shown) else "")


def _said(value: object) -> str:
    return repr(value if not isinstance(value, str) else value[:80])


# --- projects ------------------------------------------------------------------------------------------

def project(lexicon: Lexicon, value: object) -> int:
    """A project by id, key ("PAY") or name; a unique word of its name as the reader takes it ("payments")."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        if is_id(value) and lexicon.project(value) is not None:
            return value
        raise Refused(f"there is no project #{value}; find a project's id with search_projects")
    if not isinstance(value, str) or not value.strip():
        raise Refused("project is a project's name, key or id")
    wanted = key(value)
    found = [p for p in lexicon.projects if wanted in {key(p.name), key(p.external_key or "")}]
    if not found:
        ids = {m.value for m in lexicons.project_mentions(wanted, lexicon)}
        ids |= {p.project_id for p in lexicon.projects if wanted in key(p.name)}
        found = [p for p in lexicon.projects if p.project_id in ids]
    if len(found) == 1:
        return found[0].project_id
    if found:
        raise Refused(f"several projects match {_said(value)}: {_projects(found)}; give the full name or the id")
    raise Refused(f"no project is called {_said(value)}; find it with search_projects (the projects: "
                  f"{_listed((p.name for p in lexicon.projects), value)})")


def _projects(found: Sequence[ProjectFact]) -> str:
    return ", ".join(f"{p.name} (id {p.project_id})" for p in found[:MAX_CANDIDATES])


# --- sprints -------------------------------------------------------------------------------------------

def sprint(lexicon: Lexicon, value: object, project_id: int | None, today: dt.date) -> int:
    """A sprint by id or name, or current / previous / next of a project."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        if is_id(value) and lexicon.sprint(value) is not None:
            return value
        raise Refused(f"there is no sprint #{value}")
    if not isinstance(value, str) or not value.strip():
        raise Refused("sprint is a sprint's name or id, or current, previous or next with a project")
    wanted = key(value)
    if wanted in RELATIVE_SPRINTS:
        return _relative(lexicon, wanted, project_id, today)
    mine = [s for s in lexicon.sprints if project_id is None or s.project_id == project_id]
    found = [s for s in mine if key(s.name) == wanted]
    if not found:
        words = set(wanted.split())
        found = [s for s in mine if words <= set(key(s.name).split())]
    if len(found) == 1:
        return found[0].sprint_id
    if found:
        raise Refused(f"several sprints match {_said(value)}: {_sprints(lexicon, found)}; give the id, or a project")
    raise Refused(f"no sprint {'of that project ' if project_id else ''}is called {_said(value)} (the sprints: "
                  f"{_listed((s.name for s in mine), value) or 'none'})")


def _relative(lexicon: Lexicon, which: str, project_id: int | None, today: dt.date) -> int:
    if project_id is None:
        raise Refused(f"a {which} sprint is a project's: give project too")
    found = edits.relative_sprint(lexicon, which, project_id, today=today)
    if found is None:
        name = lexicon.project(project_id)
        raise Refused(f"{name.name if name else 'that project'} has no {which} sprint")
    return found.sprint_id


def _sprints(lexicon: Lexicon, found: Sequence[SprintFact]) -> str:
    def where(s: SprintFact) -> str:
        owner = lexicon.project(s.project_id) if s.project_id is not None else None
        return f", {owner.name}" if owner else ""
    return "; ".join(f"{s.name} (id {s.sprint_id}{where(s)})" for s in found[:MAX_CANDIDATES])


# --- people --------------------------------------------------------------------------------------------

def person(lexicon: Lexicon, value: object, asker_id: int) -> int | None:
    """A person by id, "me", full name, first name (or its first word), last name or login; None: nobody
    (unassigned)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        if is_id(value) and lexicon.person(value) is not None:
            return value
        raise Refused(f"there is no employee #{value}")
    if not isinstance(value, str) or not value.strip():
        raise Refused("a person is a name, a login, an id, \"me\", or null for nobody")
    wanted = key(value)
    if wanted in ("me", "yo", "mi"):
        return asker_id
    found = [p for p in lexicon.people if wanted == _full(p)]
    if not found:
        found = [p for p in lexicon.people if wanted in _short(p)]
    if len(found) == 1:
        return found[0].employee_id
    if found:
        names = ", ".join(f"{p.name} (id {p.employee_id})" for p in found[:MAX_CANDIDATES])
        raise Refused(f"several people match {_said(value)}: {names}; give the full name or the id")
    raise Refused(f"no employee is called {_said(value)} (close: "
                  f"{_listed((p.name for p in lexicon.people), value) or 'none'})")


def _full(p: PersonFact) -> str:
    return key(" ".join(x for x in (p.first_name, p.last_name) if x))


def _short(p: PersonFact) -> set[str]:
    names = set()
    if p.first_name:
        names |= {key(p.first_name), key(p.first_name).split()[0] if key(p.first_name) else ""}
    if p.last_name:
        names.add(key(p.last_name))
    if p.external_id and not p.external_id.isdigit() and ":" not in p.external_id:
        names.add(key(p.external_id))
    return names - {""}


# --- the values of the tasks' fields -------------------------------------------------------------------

def value(values: Mapping[str, Sequence[str]], name: str, said: object) -> str | None:
    """The stored value of field ``name`` that ``said`` names, among those of the caller's visible tasks; None
    stays None (an empty field: unresolved) where the field may be empty."""
    label = LABELS[name]
    if said is None and name == "resolution":
        return None
    if not isinstance(said, str) or not said.strip():
        raise Refused(f"a {label} is a non-empty string")
    stored = values.get(name, ())
    wanted = key(said)
    found = [v for v in stored if key(v) == wanted]
    if not found and name == "issue_type":  # "bugs", "stories"
        found = [v for v in stored if _plural(key(v)) == wanted]
    if found:
        return found[0]
    if not stored:
        raise Refused(f"no task the asker may see has any {label}")
    raise Refused(f"no task the asker may see has the {label} {_said(said)} (the {label} values: "
                  f"{_listed(stored, said)})")


def _plural(word: str) -> str:
    return word[:-1] + "ies" if word.endswith("y") else word + ("es" if word.endswith("s") else "s")
