"""Projects as a chat client offers them to a person: all of them by name, or those a few words match.

Every employee may see every project (project chunks are public; app/services/tools.py), so the list is
the same for everyone; what differs is the match: a name query is ranked exactly as the model's
``search_projects`` tool ranks it (that function, not a copy), so "/scope payments" in a client and
"only the payments project" to the model pick the same project, and only a caller who sees every chunk
is matched on the auto-summary too.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.domain import Caller
from app.engines.base import Engine
from app.services import tools


@dataclass(frozen=True)
class ProjectChoice:
    project_id: int
    name: str
    score: float | None  # how well a query matched (0..1, higher is better); None in a plain listing


def listing(engine: Engine, limit: int, offset: int) -> list[ProjectChoice]:
    """A page of every project, by name (then id, for equal names)."""
    cards = sorted(engine.projects_for_matching(), key=lambda c: (c.name.casefold(), c.project_id))
    return [ProjectChoice(c.project_id, c.name, None) for c in cards[offset:offset + limit]]


def matching(engine: Engine, caller: Caller, query: str) -> list[ProjectChoice]:
    """The best few projects for ``query``, best first, with search_projects' scores (a client decides
    which count as a match)."""
    state = tools.ToolState(engine, caller, scope="all", pinned_project_id=None, conversation=None)
    found = tools.search_projects(state, query)
    if not found["success"]:
        raise ValueError(found["error"])
    return [ProjectChoice(p["id"], p["title"], p["score"]) for p in found["projects"]]
