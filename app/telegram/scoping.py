"""What ``/scope <argument>`` names: all, none, a project id, or a project by name. Pure: no I/O.

A name is matched by our API, which ranks projects exactly as the model's ``search_projects`` tool does
(GET /chat/projects?query=); this module only decides what the ranking means for the user: the project
whose name it is, the one project that matches well, or a choice to offer when several do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# search_projects scores half on the name's string similarity and half on the share of the query's key
# terms found in the project's text: at 0.5 every key term was found, or the name is nearly the query.
GOOD_MATCH = 0.5


def fixed_scope(arg: str) -> str | None:
    """``all``, ``none`` or a positive project id, as our API spells them; None for anything else (a name)."""
    value = arg.strip().lower()
    if value in ("all", "none"):
        return value
    if value.isascii() and value.isdigit() and int(value) > 0:
        return str(int(value))
    return None


def choose(query: str, ranked: Sequence[dict[str, Any]]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(the project ``query`` names, []) or (None, the candidates to offer: several, or none at all).

    A project whose name is the query (case and spacing aside) wins outright; otherwise the good matches
    decide: exactly one is chosen, two or more are offered.
    """
    exact = [p for p in ranked if _plain(p["name"]) == _plain(query)]
    if len(exact) == 1:
        return exact[0], []
    good = exact or [p for p in ranked if p["score"] is not None and p["score"] >= GOOD_MATCH]
    if len(good) == 1:
        return good[0], []
    return None, list(good)


def _plain(name: str) -> str:
    return " ".join(name.casefold().split())
