"""Projects as a chat client offers them to a person: all of them by name, or those a few words match.

Every employee may see every project (project chunks are public; app/services/tools.py), so the list is
the same for everyone; what differs is the match: a name query is ranked exactly as the model's
``search_projects`` tool ranks it (that function, not a copy), so "/scope payments" in a client and
"only the payments project" to the model pick the same project, and only a caller who sees every chunk
is matched on the auto-summary too.
"""

from __future__ import annotations

from dataclasses import dataclass

from app import paging
from app.domain import Caller, Page, ProjectCard
from app.engines.base import Engine
from app.paging import Listing
from app.services import tools

KIND = "chat-projects"


@dataclass(frozen=True)
class ProjectChoice:
    project_id: int
    name: str
    score: float | None  # how well a query matched (0..1, higher is better); None in a plain listing


def _project_key(key: object) -> tuple[str, int]:
    """A projects cursor's key: the last one's folded name and id."""
    name, project_id = key  # type: ignore[misc]
    return str(name), int(project_id)


def _order(card: ProjectCard) -> tuple[str, int]:
    return card.name.casefold(), card.project_id


def listing(engine: Engine, limit: int, cursor: str | None = None) -> Listing[ProjectChoice]:
    """Every project by name (then id, for equal names), one keyset page at a time."""
    cards = sorted(engine.projects_for_matching(), key=_order)
    total = len(cards)
    if cursor is not None:
        after = paging.decode(cursor, KIND, {}, _project_key)
        cards = [c for c in cards if _order(c) > after]
    page = Page([ProjectChoice(c.project_id, c.name, None) for c in cards[:limit]], total, len(cards) > limit)
    return paging.listing(page, KIND, {}, lambda p: [p.name.casefold(), p.project_id])


def matching(engine: Engine, caller: Caller, query: str) -> Listing[ProjectChoice]:
    """The best few projects for ``query``, best first, with search_projects' scores (a client decides
    which count as a match); one page."""
    state = tools.ToolState(engine, caller, scope="all", pinned_project_id=None, conversation=None)
    found = tools.search_projects(state, query)
    if not found["success"]:
        raise ValueError(found["error"])
    items = [ProjectChoice(p["id"], p["title"], p["score"]) for p in found["projects"]]
    return Listing(items, len(items), None)
