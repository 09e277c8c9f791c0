"""Judging a tracker-benchmark answer (app/evals/jira_truth.py). Pure.

The kinds the conversation benchmark already has (list, count, compare, refusal) are judged by
app/evals/conversation_score.judge, unchanged. The new kinds:

- field (one field of one record): right when the value appears in the answer (a name as the person's full
  name — or a first name nobody else has —, a date as ISO or spelled out in English or Spanish);
- record (one record: "my most urgent issue", "which is due first", "the newest"): right when the first task
  it cites is the one asked (any of a tie);
- clarify (a first name several people share): right when the answer asks which one is meant (its first
  line is a question back, or it says "which one" / "cuál" / "did you mean" anywhere).

Leaks and invented anchors make any answer wrong, as in conversation_score. For counts and winners, what
only looks like a figure is taken out before the figures are read (not_figures: a ranking's "1.", "TLY-31",
"2.0.0", "Sprint 78"); for one field, the card's other fields (not_this_field: comment lines, the assignee,
the due date), so that a value is not found by coincidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.evals.conversation_score import Verdict, _has_any, all_anchors, cited_tasks, figures, judge, leaks, refuses
from app.evals.conversation_truth import Hidden, Truth, fold

ENUMERATION = re.compile(r"(?m)^\s*\d+[.)]\s+")  # "1. HIGH — 185": a ranking's place
NOT_FIGURES = (ENUMERATION, re.compile(r"\b[A-Z][A-Z0-9]*-\d+\b"),  # issue keys ("TLY-31")
               re.compile(r"\b\d+(?:\.\d+){2,}\b"), re.compile(r"(?i)\bsprint \d+\b"))  # versions, sprint names
# Where a card names other people and dates than the asked field: its comment lines ("- Ana Pérez
# (2026-09-27): …"), its assignee and its due date.
OTHER_FIELDS = (re.compile(r"(?m)^\s*- [^\n(]{1,80}\(\d{4}-\d{2}-\d{2}\):.*$"),
                re.compile(r"(?i)\b(?:assignee|responsable|asignad[oa]s? a)\s*:?[^|;\n]*"),
                re.compile(r"(?i)\b(?:due|vence|vencimiento)\s*:?\s*\d{4}-\d{2}-\d{2}"))
ASKS_WHICH = re.compile(r"\b(?:which one|which of|did you mean|do you mean|cual de|a cual|cual\b|a quien te refieres|"
                        r"which person|who do you mean|several people|varias personas)")


def not_figures(answer: str) -> str:
    """The answer without what looks like a figure but is none: a ranking's places, issue keys, version
    numbers and sprint names (the conversation judge reads "TLY-31" as 31, "2.0.0" as 2)."""
    for pattern in NOT_FIGURES:
        answer = pattern.sub(" ", answer)
    return answer


def not_this_field(answer: str, asked: str | None = None) -> str:
    """The answer without the other fields a record card shows (OTHER_FIELDS), so a comment written on the day
    the issue was created, or a reporter who is also its assignee or a commenter, is not read as the field; the
    asked field's own line stays ("when is it due?" is answered by "Due: 2027-01-01")."""
    for name, pattern in zip(("comment", "assignee", "due"), OTHER_FIELDS):
        answer = answer if name == asked else pattern.sub(" ", answer)
    return answer


def judge_tracker(truth: Truth, answer: str, hidden: Hidden, asked: Iterable[str] = ()) -> Verdict:
    """The verdict on ``answer`` for a tracker turn whose truth is ``truth``."""
    if truth.kind in ("count", "compare"):
        return judge(truth, not_figures(answer), hidden, None, asked)
    if truth.kind not in ("field", "record", "clarify"):
        return judge(truth, answer, hidden, None, asked)
    leaked = leaks(answer, hidden, asked)
    if leaked:
        return Verdict("wrong", True, False, f"leak: {leaked[0]}")
    invented = [a for a in all_anchors(answer) if hidden.existing is not None and a not in hidden.existing]
    if invented:
        return Verdict("wrong", False, False, f"cites {invented[0]}, which does not exist")
    if truth.kind == "clarify":
        if ASKS_WHICH.search(fold(answer)) or (refuses(answer) and "?" in answer.split("\n", 1)[0]):
            return Verdict("right")
        return Verdict("wrong", why="does not ask which person is meant")
    refused = refuses(answer)
    if truth.kind == "field":
        said = not_this_field(answer, truth.asked_field)
        if _has_any(said, truth.values[0], figures(said)):
            return Verdict("right")
        return Verdict("wrong", False, refused, f"no {truth.raw_values[0] if truth.raw_values else 'value'!r}")
    cited = cited_tasks(answer)
    if cited and cited[0] in truth.tasks:
        return Verdict("right")
    return Verdict("wrong", False, refused, f"first cites {cited[0] if cited else 'no task'}, not "
                                            f"{'/'.join(sorted(truth.raw_values))[:60]}")
