"""Does an LLM's reply keep the answer computed from the records? Pure: no I/O.

A route that computed its answer (a tracker list, a count, a comparison, a record card) hands the model
that answer as its backbone (``Computed``, app/rag/computed.py). The model may phrase around it, but:

- **incomplete**: the reply drops an anchor the computed answer names (every listed item must stay cited;
  anchors are compared in any spelling the citation check accepts, "[task #7]" is "[TASK #7]");
- **contradicted**: the reply states a number that the computed answer does not — not one of its
  ``figures``, nor a number written in its text (an id, a story-point total, an ISO date, a number in a
  title). Numbers are runs of digits with an optional decimal part, and ISO dates as a whole, taken outside
  the anchors; a list's "1." / "2)" markers at a line's start are not statements. Numbers in words
  ("seven") are not read: a reply that spells a wrong count out is not caught by this check; a date
  rephrased ("November 20") counts as a number the computed answer does not state.

Either verdict replaces the reply by ``Computed.text`` (the service reports it as ``llm_error``). The check
is deliberately strict: a number taken from elsewhere in the context (a comment's "p95 2.3 s") also counts
as contradicting, because the reader cannot tell it from a changed figure; the answer that replaces the
reply is the computed one, which is right by construction.
"""

from __future__ import annotations

import re
from typing import Literal

from app.rag import citations
from app.rag.computed import Computed

Verdict = Literal["incomplete", "contradicted"]

_ANCHOR = re.compile(r"\[\s*+(?:TASK|SPRINT|PROJECT|DOC)\s*+#[^\]]{0,200}\]", re.IGNORECASE)
_LIST_MARK = re.compile(r"^[ \t]*+\d{1,3}[.)][ \t]", re.MULTILINE)
_NUMBER = re.compile(r"(?<![\d.-])\d{4}-\d{2}-\d{2}(?![\d-])|(?<![\d.])\d++(?:\.\d++)?")


def verdict(reply: str, computed: Computed) -> Verdict | None:
    """None when the reply keeps every anchor of the computed answer and states no other number."""
    cited = set(citations.anchors_in(reply))
    if any(a not in cited for a in computed.anchors):
        return "incomplete"
    allowed = numbers(computed.text) | {n for figure in computed.figures for n in numbers(figure)}
    stated = numbers(_LIST_MARK.sub(" ", _ANCHOR.sub(" ", reply)))
    return "contradicted" if stated - allowed else None


def numbers(text: str) -> set[str]:
    """The numbers a text states, normalised ("007" -> "7", "2.50" -> "2.5"); an ISO date is one figure
    ("2026-11-20"), so a comment's date does not allow every day of the month as a figure."""
    return {_normal(m.group(0)) for m in _NUMBER.finditer(text)}


def _normal(number: str) -> str:
    if "-" in number:
        return number  # a date
    whole, _, fraction = number.partition(".")
    whole = whole.lstrip("0") or "0"
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole
