"""An answer computed from the records (a tracker list, a count, a comparison, a record card, a comment
thread): the offline answer itself, and what an LLM's reply must keep when it speaks around it.

A route that computes its answer (app/rag/routing.py) fills ``Evidence.computed`` (app/services/chat.py);
the LLM turn checks the model's reply against it and answers with ``text`` when the reply drops an anchor
or contradicts a figure. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Computed:
    text: str  # the whole answer, as the extractive (offline) answer gives it
    anchors: tuple[str, ...] = ()  # the items it names, in order ("[TASK #107]"): a reply must keep them
    figures: tuple[str, ...] = ()  # the numbers it states ("7", "97"): a reply must not state others for them
    focus: str | None = None  # the entity the conversation is about after this answer (an anchor), if any
